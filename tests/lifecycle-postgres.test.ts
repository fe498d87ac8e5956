// The nightly lifecycle job on a PostgreSQL team (issue 35): every node runs the timer, one node
// of the table holds the `lifecycle` role and runs the job, so no transition is appended twice;
// when that node goes, the role passes to another. A real throwaway cluster, nothing mocked.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import { PostgresEventLog } from '../src/log/postgres.js';
import { startLifecycleTimer, type LifecycleTimer } from '../src/server/lifecycle-timer.js';
import { tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 90_000);
afterAll(() => cluster?.destroy(), 180_000);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.runIf(PG_AVAILABLE)('the lifecycle job on a shared PostgreSQL store', () => {
  it('two nodes on one table: one runs the job, each transition appended once; the role passes on when that node closes', async () => {
    const url = await cluster.createDatabase('kioku_lifecycle');
    const dir = tempDir();
    const open = async (name: string): Promise<LocalKioku> =>
      openKioku({ data: join(dir.path, name), log: await PostgresEventLog.open({ url }), embedder: new HashedEmbedder(32) });
    const a = await open('a');
    const b = await open('b');
    const timers: LifecycleTimer[] = [];
    try {
      await a.writeMemories({ memories: ['one', 'two', 'three'].map((id) => ({ id, kind: 'fact', text: `Fact ${id} about the harbour ferry.` })) });
      // a run every ~0.36 s on each node
      const [ta, tb] = [startLifecycleTimer(a.store, { everyHours: 0.0001 }), startLifecycleTimer(b.store, { everyHours: 0.0001 })];
      timers.push(ta, tb);
      for (let i = 0; i < 100 && ta.runs.length + tb.runs.length < 3; i++) await sleep(50);
      await sleep(800);
      // the node without the role never ran the job (a run is recorded only when it ran)
      expect([ta.runs.length > 0, tb.runs.length > 0].sort()).toEqual([false, true]);
      const holder = ta.runs.length > 0 ? a : b;
      const other = holder === a ? b : a;
      const [holderTimer, otherTimer] = holder === a ? [ta, tb] : [tb, ta];
      const count = async (k: LocalKioku): Promise<number> => {
        let n = 0;
        for await (const _r of k.log.read({ types: ['lifecycle.transitioned'] })) n += 1;
        return n;
      };
      expect(await count(holder)).toBe(3);
      // the holder goes: the other node takes the role at its next tick and runs the job (nothing left to move)
      await holderTimer.stop();
      await holder.close();
      for (let i = 0; i < 100 && otherTimer.runs.length === 0; i++) await sleep(50);
      expect(otherTimer.runs[0]).toMatchObject({ items: 3, appended: 0 });
      expect(await count(other)).toBe(3);
    } finally {
      for (const t of timers) await t.stop();
      await a.close().catch(() => undefined);
      await b.close().catch(() => undefined);
      dir.cleanup();
    }
  }, 60_000);

  it('a run by hand on each node at the same instant appends each transition once (the store-wide lock orders them)', async () => {
    const url = await cluster.createDatabase('kioku_lifecycle_hand');
    const dir = tempDir();
    const open = async (name: string): Promise<LocalKioku> =>
      openKioku({ data: join(dir.path, name), log: await PostgresEventLog.open({ url }), embedder: new HashedEmbedder(32) });
    const a = await open('a');
    const b = await open('b');
    try {
      await a.writeMemories({ memories: ['one', 'two', 'three'].map((id) => ({ id, kind: 'fact', text: `Fact ${id} about the harbour ferry.` })) });
      // b sees the writes before it runs (it follows the table within a second)
      for (let i = 0; i < 100 && (await b.lifecycleRun({ dry_run: true })).items < 3; i++) await sleep(50);
      const runs = await Promise.all([a.lifecycleRun({}), b.lifecycleRun({})]);
      expect(runs.map((r) => r.appended).sort()).toEqual([0, 3]);
      let n = 0;
      for await (const _r of a.log.read({ types: ['lifecycle.transitioned'] })) n += 1;
      expect(n).toBe(3);
    } finally {
      await a.close();
      await b.close();
      dir.cleanup();
    }
  }, 60_000);
});
