// One embedding job per shared library: on PostgreSQL the node holding the "embedding" role
// embeds what any node writes, the others read its vectors; when that node goes away another
// takes the role and embeds what comes next. Never two vectors for one item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import { tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 60_000);
afterAll(() => cluster?.destroy());

async function node(url: string, dir: string): Promise<LocalKioku> {
  const kioku = await openKioku({ data: dir, store: url, embedder: new HashedEmbedder(32), backgroundIndexing: true });
  void kioku.core; // starts the background embedding job
  return kioku;
}

/** embedding.computed events in the table for `id`, text lane. */
async function vectorsOf(kioku: LocalKioku, id: string): Promise<number> {
  let n = 0;
  for await (const r of kioku.log.read({ types: ['embedding.computed'] }))
    if ((r.data as { evidence_key: string; lane: string }).evidence_key === `ev1:private:memory:${id}` && (r.data as { lane: string }).lane === 'text') n += 1;
  return n;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

describe.runIf(PG_AVAILABLE)('the embedding job on a shared store', () => {
  it('runs on one node at a time, and moves to another when that node goes away', async () => {
    const url = await cluster.createDatabase('kioku_leader');
    const dirs = [tempDir(), tempDir()];
    const a = await node(url, dirs[0]?.path as string);
    let b: LocalKioku | undefined;
    try {
      // a is alone: it takes the role and embeds
      await a.writeMemories({ memories: [{ id: 'm1', kind: 'fact', text: 'the first fact, embedded by the only node' }] });
      await until(async () => (await vectorsOf(a, 'm1')) === 1, 10_000);
      // b joins and writes: one node embeds it, once
      b = await node(url, dirs[1]?.path as string);
      const nodeB = b;
      await nodeB.writeMemories({ memories: [{ id: 'm2', kind: 'fact', text: 'written on the second node' }] });
      await until(async () => (await vectorsOf(nodeB, 'm2')) === 1, 10_000);
      await new Promise((r) => setTimeout(r, 1_500)); // time for a second job to (wrongly) embed it too
      expect(await vectorsOf(nodeB, 'm2')).toBe(1);
      // the leader goes away: b takes over within a few seconds
      await a.close();
      await nodeB.writeMemories({ memories: [{ id: 'm3', kind: 'fact', text: 'written after the first node left' }] });
      const took = await until(async () => (await vectorsOf(nodeB, 'm3')) === 1, 15_000);
      expect(took).toBeLessThan(15_000);
      expect(await vectorsOf(nodeB, 'm1')).toBe(1);
    } finally {
      await a.close().catch(() => undefined);
      await b?.close();
      for (const d of dirs) d.cleanup();
    }
  }, 60_000);
});
