// Purge really erases (issue 33, must show): write, recall, anchor, snapshot, purge (POST /v1/purge
// on a real loopback server), restart; then the purged words appear in no file under the data dir
// (LevelDB .log/.ldb, snapshots, key store: every byte), and recall, evidence lookup, replay, the
// log export, a rebuild and an import elsewhere cannot return them; `kioku verify` is clean and the
// anchor written before the purge still verifies. A control memory that was not purged stays
// readable everywhere, and is found in plain text in a projection snapshot: the scan can fail.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKEN = 'purge-test-token-0123456789';
const NS = 'solo';
const TOKENS = { tokens: [{ name: 'solo', token: TOKEN, namespace: NS, scopes: ['memory:read', 'memory:write', 'service:read', 'log:read'] }] };
const PURGED = ['marigold', 'quokka', 'zebraquartz', 'obsidianheron'];
const CONTROL = 'tapirlantern';
let s: TestServer;
const dir = tempDir('kioku-purge-');
const other = tempDir('kioku-purge-import-');
const call = (method: string, path: string, body?: unknown) => s.call(method, path, body, TOKEN);
const enc = encodeURIComponent;
let turnKey = '';

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((f) => {
    const p = join(root, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
/** every file under `root` holding `word` as bytes (UTF-8) */
const holding = (root: string, word: string): string[] => filesUnder(root).filter((f) => readFileSync(f).includes(Buffer.from(word)));
const leaks = (value: unknown): string[] => PURGED.filter((w) => JSON.stringify(value).includes(w));

beforeAll(async () => {
  s = await startTestServer({ dir: dir.path, tokens: TOKENS });
  const wrote = await call('POST', '/v1/memories', {
    memories: [
      { id: 'm-purge', kind: 'fact', text: 'The marigold quokka ledger is kept in the shed.', terms: ['marigold'] },
      { id: 'm-keep', kind: 'fact', text: `The ${CONTROL} stays.` },
    ],
  });
  expect(wrote.status).toBe(200);
  expect((await call('POST', '/v1/sessions/open', { agent: 'test', session_id: 's-purge' })).status).toBe(200);
  const turn = await call('POST', '/v1/turns/start', { session_id: 's-purge', query: 'where is the zebraquartz?' });
  expect(turn.status).toBe(200);
  turnKey = `ev1:${NS}:trace:${String(turn.body['turn_id'])}`;
  expect((await call('POST', `/v1/turns/${String(turn.body['turn_id'])}/complete`, { answer: 'behind the obsidianheron' })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  dir.cleanup();
  other.cleanup();
});

describe('purge', () => {
  it('finds the words before the purge, anchors the head and snapshots the projections', async () => {
    const recall = await call('POST', '/v1/recall', { query: 'marigold quokka ledger' });
    expect((recall.body['records'] as { evidence_key: string }[]).map((r) => r.evidence_key)).toContain(`ev1:${NS}:memory:m-purge`);
    expect((await call('GET', `/v1/evidence/${enc(turnKey)}`)).body['text']).toMatch(/zebraquartz[\s\S]*obsidianheron/);
    expect((await call('POST', '/v1/log/verify', { write_anchor: true })).body).toMatchObject({ ok: true });
    await s.state.store!.projections.snapshotAll();
    expect(holding(dir.path, 'marigold').length).toBeGreaterThan(0); // the snapshots hold live text
    // the log holds none of it: sealed
    expect(holding(join(dir.path, 'log'), 'marigold')).toEqual([]);
  });

  it('purges a memory and a session through POST /v1/purge; the views drop the text at once', async () => {
    const m = await call('POST', '/v1/purge', { scope: 'memory', id: 'm-purge', reason: 'asked to' });
    expect(m).toMatchObject({ status: 200, body: { scope: 'memory', target: 'm-purge', units: 1, items: 1 } });
    const session = await call('POST', '/v1/purge', { scope: 'session', id: 's-purge' });
    expect(session).toMatchObject({ status: 200, body: { scope: 'session', units: 1, items: 1 } });
    expect((await call('POST', '/v1/purge', { scope: 'namespace', namespace: 'other' })).status).toBe(403);
    for (const key of [`ev1:${NS}:memory:m-purge`, turnKey]) {
      const e = await call('GET', `/v1/evidence/${enc(key)}`);
      expect(e.body).toMatchObject({ status: 'forgotten', text: '', tombstone: { purged: true } });
    }
    expect(leaks((await call('POST', '/v1/recall', { query: 'ledger shed' })).body)).toEqual([]);
  });

  it('after a restart: recall, evidence and replay cannot return it; replay says which turn lost its text', async () => {
    await s.stop();
    s = await startTestServer({ dir: dir.path, tokens: TOKENS });
    const recall = await call('POST', '/v1/recall', { query: 'ledger shed' });
    expect(leaks(recall.body)).toEqual([]);
    expect(leaks((await call('GET', `/v1/evidence/${enc(`ev1:${NS}:memory:m-purge`)}`)).body)).toEqual([]);
    const replay = await call('POST', '/v1/replay', {});
    expect(replay.status).toBe(200);
    expect(leaks(replay.body)).toEqual([]);
    expect(replay.body['turns']).toEqual([expect.objectContaining({ query: '⟦purged⟧', text_purged: true })]);
    expect((await call('GET', `/v1/evidence/${enc(`ev1:${NS}:memory:m-keep`)}`)).body['text']).toContain(CONTROL);
    await s.stop();
  });

  it('leaves no plaintext in any file under the data dir; verify is clean with the earlier anchor; the export is sealed', async () => {
    for (const word of PURGED) expect(holding(dir.path, word), word).toEqual([]);
    expect(holding(dir.path, CONTROL).length).toBeGreaterThan(0); // the scan finds what was kept
    const verify = await runCli(['verify', '--data', dir.path, '--json']);
    expect(verify.json).toMatchObject({ ok: true, anchors: { checked: 1 } });
    const out = join(other.path, 'export.kchain');
    const exported = await runCli(['log', 'export', '--data', dir.path, '--out', out, '--json']);
    expect(exported.json).toMatchObject({ ok: true, data_keys: expect.any(Number) });
    expect(readFileSync(`${out}.keys`, 'utf8').trim().split('\n')).toHaveLength(exported.json?.['data_keys'] as number);
    for (const word of [...PURGED, CONTROL]) expect(readFileSync(out).includes(Buffer.from(word)), word).toBe(false);
  }, 90_000);

  it('a rebuild and an import elsewhere (the export carries the remaining keys) bring none of it back', async () => {
    const out = join(other.path, 'export.kchain');
    const keys = readFileSync(`${out}.keys`, 'utf8').trim().split('\n').length;
    expect((await runCli(['rebuild', '--data', dir.path, '--json'])).code).toBe(0);
    for (const word of PURGED) expect(holding(dir.path, word), word).toEqual([]);
    const imported = join(other.path, 'lib');
    expect((await runCli(['log', 'import', out, '--data', imported, '--json'])).json).toMatchObject({ ok: true, data_keys: keys });
    const items = await runCli(['export', '--data', imported, '--ns', NS, '--history']);
    expect(items.code).toBe(0);
    expect(items.stdout).toContain(CONTROL);
    expect(leaks(items.stdout)).toEqual([]);
    for (const word of PURGED) expect(holding(imported, word), word).toEqual([]);
    expect(existsSync(join(dir.path, 'keys', 'data-keys.jsonl'))).toBe(true);
  }, 90_000);
});
