// A recall outside any session (issue 33, PV): its planned queries are sealed, but not with a data
// key of its own per call (the key file grew by a line per recall): session-less recalls of a
// namespace share one key per UTC day. 50 of them over a real loopback server add at most two keys
// (a day may turn during the run); the query words are in no file of the log, and a namespace purge
// deletes that key so they can never be read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
const dir = tempDir('kioku-sessionless-');
const keyLines = (): string[] => readFileSync(join(dir.path, 'keys', 'data-keys.jsonl'), 'utf8').trim().split('\n');
const files = (root: string): string[] => readdirSync(root).flatMap((f) => (statSync(join(root, f)).isDirectory() ? files(join(root, f)) : [join(root, f)]));

beforeAll(async () => {
  s = await startTestServer({ dir: dir.path });
  const wrote = await s.call('POST', '/v1/memories', { namespace: 'solo', memories: [{ id: 'm1', kind: 'fact', text: 'The ledger is kept in the shed.' }] });
  expect(wrote.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  dir.cleanup();
});

describe('session-less recalls', () => {
  it('50 of them add at most two data keys (one per namespace per UTC day), their queries sealed', async () => {
    await s.call('POST', '/v1/recall', { namespace: 'solo', query: 'warmup ledger' });
    const before = keyLines().length;
    for (let i = 0; i < 50; i++) {
      const r = await s.call('POST', '/v1/recall', { namespace: 'solo', query: `where is the ledger cassowary${i}?` });
      expect(r.status).toBe(200);
    }
    expect(keyLines().length - before).toBeLessThanOrEqual(1);
    const units = keyLines().map((l) => (JSON.parse(l) as { unit: string }).unit);
    expect(units.filter((u) => u.startsWith('recall:solo:')).length).toBeLessThanOrEqual(2);
    for (const u of units.filter((x) => x.startsWith('recall:'))) expect(u).toMatch(/^recall:solo:\d{4}-\d{2}-\d{2}$/);
    expect(files(join(dir.path, 'log')).filter((f) => readFileSync(f).includes(Buffer.from('cassowary')))).toEqual([]);
  });

  it('a namespace purge deletes their key', async () => {
    const purged = await s.call('POST', '/v1/purge', { scope: 'namespace', namespace: 'solo' });
    expect(purged.status).toBe(200);
    expect(keyLines().filter((l) => l.includes('"recall:solo:'))).toEqual([]);
  });
});
