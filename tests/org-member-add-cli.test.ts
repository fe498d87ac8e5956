// `kioku org member add` checks a member's token names against the library's auth file (issue 34)
// the same way with a service running (the route passes the service's token names) and without
// one (the CLI in process reads <data>/auth.json itself): a name the file does not hold for the
// namespace is refused (exit 2, KIOKU_INPUT_INVALID naming it) and nothing is appended.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { LocalJudge } from '../src/recall/index.js';
import { runCli, tempDir } from './helpers.js';
import { startTestServer } from './server-helpers.js';

const ADMIN = 'admin-token-memberadd-001';
const AUTH = {
  tokens: [
    { name: 'admin', token: ADMIN, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
    { name: 'alice-laptop', token: 'alice-token-memberadd-01', namespace: 'team', scopes: ['memory:read', 'memory:write'] },
    { name: 'bob-laptop', token: 'bob-token-memberadd-0001', namespace: 'team', scopes: ['memory:read', 'memory:write'] },
    { name: 'eve-laptop', token: 'eve-token-memberadd-0001', namespace: 'other', scopes: ['memory:read', 'memory:write'] },
  ],
};
const dir = tempDir();
const members = (json: Record<string, unknown> | undefined): string[] => ((json?.['members'] ?? []) as { name: string }[]).map((m) => m.name);

beforeAll(async () => {
  const k = await openKioku({ data: dir.path, createIfMissing: true, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
  await k.close();
  writeFileSync(join(dir.path, 'auth.json'), JSON.stringify(AUTH));
});
afterAll(() => dir.cleanup());

describe('kioku org member add', () => {
  it('in process (no service): reads the library’s auth file; a token name it holds only for another namespace is refused and nothing appended', async () => {
    const env = { KIOKU_DATA_DIR: dir.path, HOME: dir.path };
    const added = await runCli(['org', 'member', 'add', 'alice', '--token', 'alice-laptop', '--ns', 'team', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    // eve-laptop is a token of another namespace
    const refused = await runCli(['org', 'member', 'add', 'bob', '--token', 'bob-laptop,eve-laptop', '--ns', 'team', '--json'], env);
    expect(refused.code).toBe(2);
    expect(`${refused.stdout}${refused.stderr}`).toContain('KIOKU_INPUT_INVALID');
    expect(`${refused.stdout}${refused.stderr}`).toContain('"eve-laptop" is no token of namespace team in the auth file');
    const k = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
    try {
      expect((await k.org({ namespace: 'team' })).members.map((m) => m.name)).toEqual(['alice']);
    } finally {
      await k.close();
    }
  }, 120_000);

  it('through the service: the same check, the same answers', async () => {
    const server = await startTestServer({ dir: dir.path, authFile: join(dir.path, 'auth.json') });
    try {
      const env = { HOME: dir.path, KIOKU_URL: server.url, KIOKU_TOKEN: ADMIN };
      const refused = await runCli(['org', 'member', 'add', 'bob', '--token', 'bob-phone', '--json'], env);
      expect(refused.code).toBe(2);
      expect(`${refused.stdout}${refused.stderr}`).toContain('"bob-phone" is no token of namespace team in the auth file');
      const added = await runCli(['org', 'member', 'add', 'bob', '--token', 'bob-laptop', '--json'], env);
      expect(added.code, added.stderr).toBe(0);
      expect(members((await server.call('GET', '/v1/org', undefined, ADMIN)).body)).toEqual(['alice', 'bob']);
    } finally {
      await server.close();
    }
  }, 120_000);
});
