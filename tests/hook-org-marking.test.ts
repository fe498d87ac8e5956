// The hook's marking of someone else's memory (issue 34), through the installed entry as a host
// spawns it (bin/kioku.js hook run → the bundle; npm test builds dist/ first) against a real
// service with an org: bob's prompt gets alice's org-wide memory marked as hers ("someone else's
// memory: noted by alice"), and bob's own memory unmarked.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_HEADER } from '../src/hook/render.js';
import { REPO, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = { admin: 'admin-token-hookorg-0001', alice: 'alice-token-hookorg-0001', bob: 'bob-token-hookorg-000001' };
const ALICE = 'The billing cutover ships in three stages: the invoices service first, then the ledger.';
const BOB = 'My billing cutover checklist: freeze the ledger exports before the invoices service moves.';

let server: TestServer;
const hookDir = tempDir();

/** One UserPromptSubmit through the spawned hook, as bob (his token), in its own session. */
function hookAsBob(prompt: string, session: string): Promise<{ code: number; context: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/kioku.js'), 'hook', 'run', '--data', hookDir.path], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: hookDir.path, KIOKU_URL: server.url, KIOKU_TOKEN: TOKENS.bob },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const context = stdout ? (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : '';
      resolve({ code: code ?? -1, context });
    });
    child.stdin.end(JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: session, transcript_path: null, cwd: '/repo', prompt }));
  });
}

/** The lines of the injected item under `key`: its key line and what follows it up to the next item. */
const itemOf = (context: string, key: string): string => {
  const at = context.indexOf(`[${key}]`);
  if (at < 0) return '';
  const next = context.indexOf('\n[ev1:', at + 1);
  return context.slice(at, next < 0 ? undefined : next);
};

beforeAll(async () => {
  server = await startTestServer({
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
        { name: 'alice-laptop', token: TOKENS.alice, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        { name: 'bob-laptop', token: TOKENS.bob, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
      ],
    },
  });
  for (const change of [
    { action: 'space_add', space: 'acme' },
    { action: 'member_add', member: 'alice', tokens: ['alice-laptop'] },
    { action: 'member_add', member: 'bob', tokens: ['bob-laptop'] },
    { action: 'member_join', member: 'alice', space: 'acme' },
    { action: 'member_join', member: 'bob', space: 'acme' },
  ])
    expect((await server.call('POST', '/v1/org', change, TOKENS.admin)).status).toBe(200);
  const write = (token: string, id: string, text: string, audience?: unknown) =>
    server.call('POST', '/v1/memories', { memories: [{ id, kind: 'decision', text, ...(audience ? { audience } : {}) }] }, token);
  expect((await write(TOKENS.alice, 'A-org', ALICE, { org: true })).status).toBe(200);
  expect((await write(TOKENS.bob, 'B-own', BOB)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  hookDir.cleanup();
});

describe('the spawned hook in an org', () => {
  it("marks alice's memory as someone else's in bob's injection, and leaves bob's own unmarked", async () => {
    const theirs = await hookAsBob(ALICE, 'bob-hook-1');
    expect(theirs.code).toBe(0);
    expect(theirs.context).toContain(HOOK_HEADER);
    const aliceItem = itemOf(theirs.context, 'ev1:team:memory:A-org');
    expect(aliceItem, theirs.context).toContain("someone else's memory: noted by alice");
    expect(aliceItem).toContain(ALICE);
    const own = await hookAsBob(BOB, 'bob-hook-2');
    expect(own.code).toBe(0);
    const bobItem = itemOf(own.context, 'ev1:team:memory:B-own');
    expect(bobItem, own.context).toContain(BOB);
    expect(bobItem).not.toContain("someone else's memory");
    expect(own.context).not.toContain('noted by bob');
  }, 60_000);
});
