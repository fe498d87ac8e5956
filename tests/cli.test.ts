// The real `kioku` CLI in a child process: exit codes (0 ok, 1 problem, 2 usage/IO)
// and one JSON object on the last line with --json. It runs as installed (bin/kioku.js → dist/,
// rebuilt by tests/global-setup.ts when a source is newer): the same code, each process spared tsx's start-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { Knowledge } from '../src/knowledge/index.js';
import { logSublevels, openLevelStore, openLog, seqKey } from '../src/log/index.js';
import { createRecallCore, openSession, startTurn } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { jobEvent, memoryEvent, runCli as runCliFrom, tempDir } from './helpers.js';

const runCli = (args: string[], env: Record<string, string> = {}): ReturnType<typeof runCliFrom> => runCliFrom(args, env, 'installed');

let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  dir = tempDir();
  const log = await openLog(dir.path);
  await log.appendAll([jobEvent(1), memoryEvent('m1', '部署回滚用 scripts/rollback.sh'), jobEvent(2, 'team')]);
  await log.append({
    type: 'embedding.computed',
    data: { evidence_key: 'ev1:private:memory:m1', model: 'hash-64', lane: 'text', dim: 2, vector: new Uint8Array(8) },
  });
  await log.close();
});
afterAll(() => dir.cleanup());

describe('kioku verify', () => {
  it('exits 0 on a clean chain with the documented JSON shape', async () => {
    const r = await runCli(['verify', '--data', dir.path, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, head: { seq: 4 }, checked: 4 });
    expect((r.json?.['head'] as { hash: string }).hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.json).not.toHaveProperty('damage');
  });

  it('prints a human report without --json and honours KIOKU_DATA_DIR', async () => {
    const r = await runCli(['verify'], { KIOKU_DATA_DIR: dir.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/chain ok: 4 records/);
    expect(r.stdout).toMatch(/anchors: none/);
  });

  it('exits 2 with a clear message when there is no store', async () => {
    const empty = tempDir();
    try {
      const r = await runCli(['verify', '--data', `${empty.path}/nothing`, '--json']);
      expect(r.code).toBe(2);
      expect(r.json).toMatchObject({ ok: false, error: { code: 'KIOKU_STORE_MISSING' } });
      expect(r.stderr).toMatch(/no Kioku store/);
    } finally {
      empty.cleanup();
    }
  });

  it('exits 2 when another process holds the store', async () => {
    const db = await openLevelStore(dir.path);
    try {
      const r = await runCli(['verify', '--data', dir.path, '--json']);
      expect(r.code).toBe(2);
      expect(r.json).toMatchObject({ error: { code: 'KIOKU_STORE_LOCKED' } });
    } finally {
      await db.close();
    }
  });

  it('exits 1 with seq and kind when the chain is damaged', async () => {
    const copy = tempDir();
    try {
      const log = await openLog(copy.path);
      for (let i = 0; i < 5; i++) await log.append(jobEvent(i));
      await log.close();
      const db = await openLevelStore(copy.path);
      await logSublevels(db).records.del(seqKey(3));
      await db.close();
      const r = await runCli(['verify', '--data', copy.path, '--json']);
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ ok: false, damage: { seq: 3, kind: 'missing' } });
      const human = await runCli(['verify', '--data', copy.path]);
      expect(human.stdout).toMatch(/DAMAGED at seq 3: missing/);
    } finally {
      copy.cleanup();
    }
  });
});

describe('kioku usage', () => {
  it('exits 2 on an unknown command or flag', async () => {
    expect((await runCli(['frobnicate'])).code).toBe(2);
    expect((await runCli(['verify', '--no-such-flag'])).code).toBe(2);
  });

  it('exits 0 for --help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/verify/);
  });
});

describe('kioku rebuild and log', () => {
  it('rebuilds the projections and reports their digests', async () => {
    const r = await runCli(['rebuild', '--data', dir.path, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, events: 4 });
    expect(r.json?.['projections']).toContainEqual(expect.objectContaining({ name: 'stats', seq: 4 }));
    const again = await runCli(['rebuild', '--projection', 'stats', '--data', dir.path, '--json']);
    expect((again.json?.['projections'] as { digest: string }[])[0]?.digest).toBe((r.json?.['projections'] as { digest: string }[])[0]?.digest);
  });

  it('refuses an unknown projection with exit 2', async () => {
    const r = await runCli(['rebuild', '--projection', 'nope', '--data', dir.path, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ error: { code: 'KIOKU_PROJECTION_UNKNOWN' } });
  });

  it('prints statistics per type and namespace', async () => {
    const r = await runCli(['log', 'stats', '--data', dir.path, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      total: 4,
      by_type: { 'job.event': { count: 2 }, 'memory.written': { count: 1 }, 'embedding.computed': { count: 1 } },
      by_namespace: { private: { count: 3 }, team: { count: 1 } },
    });
    const human = await runCli(['log', 'stats', '--data', dir.path]);
    expect(human.stdout).toMatch(/job\.event\s+2/);
  });

  it('shows one record, with bytes as base64', async () => {
    const r = await runCli(['log', 'show', '2', '--data', dir.path, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ seq: 2, type: 'memory.written', data: { text: '部署回滚用 scripts/rollback.sh' } });
    const vec = await runCli(['log', 'show', '4', '--data', dir.path, '--json']);
    expect(vec.json).toMatchObject({ data: { vector: { $bytes: 'AAAAAAAAAAA=', length: 8 } } });
  });

  it('exits 2 for a record that does not exist or a bad seq', async () => {
    expect((await runCli(['log', 'show', '99', '--data', dir.path, '--json'])).json).toMatchObject({ error: { code: 'KIOKU_RECORD_NOT_FOUND' } });
    const bad = await runCli(['log', 'show', 'abc', '--data', dir.path]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/positive integer/);
  });
});

describe('kioku recall and report', () => {
  it('recalls through the shared core and prints the packet as JSON', async () => {
    const d = tempDir();
    try {
      const log = await openLog(d.path);
      await log.append({ type: 'memory.written', data: { id: 'rb', kind: 'procedure', text: 'Roll back with scripts/rollback.sh and the previous tag.' } });
      await log.close();
      const r = await runCli(['recall', 'how to roll back', '--data', d.path, '--json'], { KIOKU_EMBEDDER: 'hash' });
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ retrieval_mode: 'keyword', records: [{ evidence_key: 'ev1:private:memory:rb' }], judge: { judge: 'local-calibrated' } });
      expect((r.json?.['warnings'] as string[]).some((w) => w.startsWith('vectors_pending'))).toBe(true);
      const cold = await runCli(['report', 'cold', '--min-considered', '1', '--data', d.path, '--json']);
      expect(cold.code).toBe(0);
      expect(cold.json).toMatchObject({ namespace: 'private', min_considered: 1 });
      const bad = await runCli(['recall', 'x', '--limit', '99', '--data', d.path], { KIOKU_EMBEDDER: 'hash' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/limit/);
    } finally {
      d.cleanup();
    }
  });
});

describe('kioku replay', () => {
  it('tries changed delivery rules on recorded turns without appending, and refuses bad rule values', async () => {
    const d = tempDir();
    try {
      const store = await openKioku({ data: d.path });
      await new Knowledge(store, 'cli-test').writeMemories({
        memories: [
          { id: 'rb', kind: 'procedure', text: 'Roll back with scripts/rollback.sh and the previous tag.' },
          { id: 'rb2', kind: 'fact', text: 'Every rollback is announced in the ops channel.' },
        ],
      });
      const core = createRecallCore(store, { embedder: new HashedEmbedder(32), judge: new DoubleJudge((c) => (/roll ?back/i.test(c.text) ? 0.9 : 0.1)) });
      const { session_id } = await openSession(core, { agent: 'cli-test' });
      const t = await startTurn(core, { session_id, query: 'what about the rollback?' });
      expect(t.delivery.length).toBe(2);
      await core.close();
      await store.close();
      const same = await runCli(['replay', '--data', d.path, '--json']);
      expect(same.code).toBe(0);
      expect(same.json).toMatchObject({ totals: { turns: 1, changed_turns: 0, before: { items: 2 }, after: { items: 2 } } });
      const head = (same.json?.['log_head'] as { before: number }).before;
      const one = await runCli(['replay', '--data', d.path, '--max-items', '1', '--json']);
      expect(one.json).toMatchObject({ totals: { changed_turns: 1, after: { items: 1 } }, log_head: { before: head, after: head } });
      const strict = await runCli(['replay', '--data', d.path, '--floor', '0.95']);
      expect(strict.code).toBe(0);
      expect(strict.stdout).toMatch(/rules: floor 0\.95/);
      expect(strict.stdout).toMatch(/partial matches held/);
      const kept = await runCli(['replay', '--data', d.path, '--keep-partial-matches', '--json']);
      expect(kept.json).toMatchObject({ rules: { hold_partial_matches: false }, totals: { changed_turns: 0 } });
      // refused before the store is opened, so these run side by side
      const bads = [
        ['--floor', '2'],
        ['--max-items', '7'],
        ['--max-history', '1.5'],
        ['--from', '2026-12-01', '--to', '2026-11-01'],
      ];
      const refused = await Promise.all(bads.map((bad) => runCli(['replay', '--data', d.path, ...bad])));
      refused.forEach((r, i) => {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(new RegExp(bads[i]?.[0] as string));
      });
    } finally {
      d.cleanup();
    }
  }, 30_000);
});
