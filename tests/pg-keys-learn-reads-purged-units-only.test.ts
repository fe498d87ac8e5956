// A node that learns of a memory purge another node committed looks up only the keys that purge
// may have deleted, not every key of the namespace: before, PostgresKeyStore.learn read the kid of
// every key of the purged namespace (one key per memory) — inside the append lock when an append
// learnt it — so one memory purge in a namespace of 300 memories read 299 rows on every other node.
// Real PostgreSQL (a throwaway cluster), two nodes; a third key store beside them counts the rows
// its learn reads. Skipped where PostgreSQL is not installed (required on CI).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresKeyStore, purgedUnits } from '../src/log/postgres-keys.js';
import { PG_AVAILABLE } from './support/postgres.js';
import { startTwoNodes, type TwoNodes } from './support/two-nodes.js';

const NS = 'private';
let nodes: TwoNodes;
let pool: pg.Pool;

beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  nodes = await startTwoNodes('kioku_pglearn');
  pool = new pg.Pool({ connectionString: nodes.url, max: 2 });
}, 90_000);
afterAll(async () => {
  await pool?.end();
  await nodes?.stop();
});

const head = async (): Promise<number> => Number((await pool.query<{ seq: string }>('SELECT coalesce(max(seq), 0) AS seq FROM public.kioku_events')).rows[0]!.seq);

it('names the units a purged event may have deleted', () => {
  const memory = purgedUnits(NS, { scope: 'memory', target: 'm1', keys: [`ev1:${NS}:memory:m1`] });
  expect(['memory:private:m1', 'notice:private:n-1'].map(memory)).toEqual([true, true]);
  expect(['memory:private:m2', 'session:private:m1', 'memory:other:m1'].map(memory)).toEqual([false, false, false]);
  const session = purgedUnits(NS, { scope: 'session', target: 's1', keys: [`ev1:${NS}:trace:t1`, `ev1:${NS}:episode:e1`] });
  expect(['session:private:s1', 'episode:private:e1', 'memory:private:m1'].map(session)).toEqual([true, true, false]);
  const all = purgedUnits(NS, { scope: 'namespace', target: NS, keys: [] });
  expect(['memory:private:x', 'session:private:y', 'memory:other:x'].map(all)).toEqual([true, true, false]);
});

describe.runIf(PG_AVAILABLE)('learning of a purge on a shared PostgreSQL store', () => {
  it("reads only the purged memory's keys, and drops the purged key", async () => {
    const memories = Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, kind: 'fact', text: `Ledger entry ${i} is kept in drawer ${i}.` }));
    for (let i = 0; i < memories.length; i += 100) expect((await nodes.a.call('POST', '/v1/memories', { memories: memories.slice(i, i + 100) })).status).toBe(200);
    // a third node's key store, caught up with the table before the purge
    const watcher = new PostgresKeyStore('public.kioku_keys', 'public.kioku_events', pool);
    await watcher.load();
    const from = await head();
    const [row] = (await pool.query<{ kid: string }>('SELECT kid FROM public.kioku_keys WHERE unit = $1', [`memory:${NS}:m7`])).rows;
    expect(watcher.key(row!.kid)).toBeDefined();

    const purge = await nodes.a.call('POST', '/v1/purge', { scope: 'memory', id: 'm7', reason: 'asked to' });
    expect(purge.status, JSON.stringify(purge.body)).toBe(200);
    const to = await head();

    let rowsRead = 0;
    const counting = {
      query: async (...args: Parameters<pg.Pool['query']>) => {
        const res = (await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args)) as pg.QueryResult | pg.QueryResult[];
        for (const r of Array.isArray(res) ? res : [res]) rowsRead += r.rowCount ?? 0;
        return res;
      },
    } as unknown as pg.Pool;
    await watcher.learn(counting, from, to);
    expect(watcher.key(row!.kid)).toBeUndefined();
    expect(watcher.all()).toHaveLength(299);
    // the purged event itself, and at most a handful of keys (before: 299 kids of the namespace)
    expect(rowsRead).toBeLessThanOrEqual(5);
  }, 120_000);
});
