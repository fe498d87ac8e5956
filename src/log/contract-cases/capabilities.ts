// The cases of what not every store has, each run only when the manifest declares it
// (src/log/contract.ts): the optional methods of the port, several logs over one stored
// chain, and raw writes past the log.
import assert from 'node:assert/strict';
import { isKiokuError } from '../../errors.js';
import type { EventStore, StoreHealth } from '../port.js';
import {
  all,
  assertMatches,
  chainFrame,
  chainFrames,
  eventually,
  framesOf,
  iterate,
  jobEvent,
  memoryEvent,
  rawChain,
  rejectsWith,
  withAnother,
} from './support.js';
import type { CaseContext, CaseDef } from './types.js';

const health: CaseDef[] = [
  {
    name: 'reports its health: its kind, connected, the head it knows, its lag, where it is',
    needs: ['health'],
    async run({ store: { log } }) {
      await log.appendAll([jobEvent(1), jobEvent(2), jobEvent(3)]);
      const h = (log.health as () => StoreHealth)();
      assertMatches(h, { kind: log.kind, connected: true, node_head: 3 });
      assert.ok(h.table_head >= h.node_head, `table_head ${h.table_head} is behind this node's own writes (${h.node_head})`);
      assert.equal(h.replication_lag, Math.max(0, h.table_head - h.node_head));
      assert.equal(typeof h.where, 'string');
    },
  },
];

const roles: CaseDef[] = [
  {
    name: 'gives a role to a process alone on the store, and keeps it when asked again',
    needs: ['holdsRole'],
    async run({ store: { log } }) {
      const holds = log.holdsRole as (role: string) => Promise<boolean>;
      assert.equal(await holds.call(log, 'embedding'), true);
      assert.equal(await holds.call(log, 'embedding'), true);
    },
  },
  {
    name: 'gives a role to one of two logs on a shared chain, and to the other once the holder closes',
    needs: ['holdsRole', 'shared'],
    async run(t) {
      await withAnother(t, async (other) => {
        const log = t.store.log;
        assert.equal(await log.holdsRole?.('embedding'), true);
        assert.equal(await other.holdsRole?.('embedding'), false, 'two logs hold one role');
        await log.close();
        await eventually('the role to pass to the other log', async () => (await other.holdsRole?.('embedding')) === true);
      });
    },
  },
];

async function inTurn(log: EventStore): Promise<void> {
  const exclusive = (log.exclusive as NonNullable<EventStore['exclusive']>).bind(log);
  let inside = 0;
  let most = 0;
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      exclusive('contract', async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 10));
        inside -= 1;
        return i;
      }),
    ),
  );
  assert.deepEqual(results, [0, 1, 2, 3, 4]);
  assert.equal(most, 1, 'two tasks ran under one lock at once');
  await assert.rejects(
    exclusive('contract', async () => {
      throw new Error('task failed');
    }),
    /task failed/,
  );
  assert.equal(await exclusive('contract', async () => 'free again'), 'free again');
}

const locks: CaseDef[] = [
  {
    name: 'runs tasks under one lock name one at a time, hands back results and errors, and frees the lock after either',
    needs: ['exclusive'],
    run: async ({ store }) => inTurn(store.log),
  },
  {
    name: "brings head() up to the store's real head before a task under the lock",
    needs: ['exclusive', 'shared'],
    async run(t) {
      await withAnother(t, async (other) => {
        await other.appendAll([jobEvent(1), jobEvent(2), jobEvent(3)]);
        const log = t.store.log;
        const seen = await log.exclusive?.('contract', async () => log.head());
        assert.deepEqual(seen, other.head());
      });
    },
  },
];

const importing: CaseDef[] = [
  {
    name: 'imports an exported chain into an empty store verbatim: the same head, frames and records, and it verifies',
    needs: ['importChain'],
    async run({ store: { log }, factory }) {
      await log.appendAll(Array.from({ length: 30 }, (_, i) => (i % 4 ? jobEvent(i, i % 2 ? 'team' : 'private') : memoryEvent(`m${i}`, `text ${i}`))));
      const frames = await chainFrames(log);
      const target = await factory.create();
      try {
        const head = await target.log.importChain?.(iterate(frames));
        assert.deepEqual(head, log.head());
        assert.deepEqual(target.log.head(), log.head());
        assert.deepEqual(await framesOf(target.log, 1, 30), await framesOf(log, 1, 30));
        assert.deepEqual(await all(target.log.read({ types: ['memory.written'] })), await all(log.read({ types: ['memory.written'] })));
        assertMatches(await target.log.verify(), { ok: true, checked: 30 });
        assert.equal((await target.log.append(jobEvent(99))).seq, 31);
      } finally {
        await target.cleanup();
      }
    },
  },
  {
    name: 'refuses to import into a store that holds events, and keeps them',
    needs: ['importChain'],
    async run({ store: { log } }) {
      await log.append(jobEvent(1));
      const before = log.head();
      const frames = await chainFrames(log);
      await rejectsWith(log.importChain?.(iterate(frames)) as Promise<unknown>, { code: 'KIOKU_USAGE', details: { head_seq: 1 } });
      assert.deepEqual(log.head(), before);
      assert.equal((await log.verify()).ok, true);
    },
  },
  {
    name: 'keeps unknown types written by a newer version and imported, and reads them back',
    needs: ['importChain'],
    async run({ store: { log } }) {
      const { frames } = rawChain([{ type: 'future.thing', v: 3, data: { a: 1 } }]);
      await log.importChain?.(iterate(frames.map((f) => chainFrame(f.frame))));
      await keepsFutureTypes(log);
    },
  },
];

async function keepsFutureTypes(log: EventStore): Promise<void> {
  assertMatches(await all(log.read()), [{ seq: 1, type: 'future.thing', v: 3, data: { a: 1 } }]);
  assert.equal((await log.append(jobEvent(2))).seq, 2);
  assert.equal((await log.verify()).ok, true);
}

async function writeRaw(t: CaseContext, chain: ReturnType<typeof rawChain>): Promise<EventStore> {
  assert.ok(t.store.writeRaw, 'the manifest declares writeRaw, but the store has none');
  return t.store.writeRaw(chain.frames, chain.head);
}

const raw: CaseDef[] = [
  {
    name: 'keeps unknown types written by a newer version, and reads them back',
    needs: ['writeRaw'],
    async run(t) {
      // A newer Kioku wrote a type this one does not know: readers keep it, never drop it.
      await keepsFutureTypes(await writeRaw(t, rawChain([{ type: 'future.thing', v: 3, data: { a: 1 } }])));
    },
  },
  {
    name: 'verify names the first damaged record: one whose bytes changed after it was hashed',
    needs: ['writeRaw'],
    async run(t) {
      const chain = rawChain(
        ['one', 'two', 'three'].map((text, i) => ({ type: 'memory.written', v: 1, data: { id: `m${i}`, kind: 'fact', text, terms: [], tags: [] } })),
      );
      const second = chain.frames[1] as { frame: Buffer };
      const at = second.frame.lastIndexOf(Buffer.from('two'));
      second.frame = Buffer.from(second.frame);
      second.frame.write('twO', at); // the body changed, the stored hash did not
      const log = await writeRaw(t, chain);
      assertMatches(await log.verify(), { ok: false, checked: 1, damage: { seq: 2, kind: 'modified' } });
    },
  },
];

const shared: CaseDef[] = [
  {
    name: 'two logs on one stored chain never fork it: 400 concurrent appends from both land contiguous and the chain verifies',
    needs: ['shared'],
    async run(t) {
      await withAnother(t, async (b) => {
        const a = t.store.log;
        const results = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).append(jobEvent(i))));
        assert.deepEqual(
          results.map((r) => r.seq).sort((x, y) => x - y),
          Array.from({ length: 400 }, (_, i) => i + 1),
        );
        await eventually('both logs to know the head', () => a.head().seq === 400 && b.head().seq === 400);
        assert.deepEqual(a.head(), b.head());
        assertMatches(await a.verify(), { ok: true, checked: 400 });
      });
    },
  },
  {
    name: "checks an expected head against the stored head, not a log's own view: one of two wins, the loser retries",
    needs: ['shared'],
    async run(t) {
      await withAnother(t, async (b) => {
        const a = t.store.log;
        await a.append(jobEvent(0));
        await eventually('the other log to hear of the commit', () => b.head().seq === 1);
        const seen = b.head();
        await a.append(jobEvent(1)); // b has not written since it looked
        const lost = await b.append(jobEvent(2), { expectedHead: seen }).catch((e: unknown) => e);
        assert.ok(isKiokuError(lost, 'KIOKU_LOG_CONFLICT'), `expected KIOKU_LOG_CONFLICT, got ${String(lost)}`);
        await eventually('the other log to hear of the commit', () => b.head().seq === 2);
        assert.equal((await b.append(jobEvent(2), { expectedHead: b.head() })).seq, 3);
        assertMatches(await a.verify(), { ok: true, checked: 3 });
      });
    },
  },
  {
    name: 'tells every log of every commit, whoever wrote it, and a tail on one follows writes of the other',
    needs: ['shared'],
    async run(t) {
      await withAnother(t, async (b) => {
        const a = t.store.log;
        const ranges: { from: number; to: number }[] = [];
        b.onCommit((r) => ranges.push(r));
        const controller = new AbortController();
        const seen: number[] = [];
        const following = (async () => {
          for await (const r of b.tail({ signal: controller.signal })) {
            seen.push(r.seq);
            if (seen.length === 2) controller.abort();
          }
        })();
        await a.append(jobEvent(1));
        await eventually('the other log to hear of the commit', () => ranges.length === 1);
        await a.append(jobEvent(2));
        await following;
        assert.deepEqual(seen, [1, 2]);
        assert.deepEqual(ranges, [
          { from: 1, to: 1 },
          { from: 2, to: 2 },
        ]);
      });
    },
  },
];

export const CAPABILITY_CASES: readonly CaseDef[] = [...health, ...roles, ...locks, ...importing, ...raw, ...shared];
