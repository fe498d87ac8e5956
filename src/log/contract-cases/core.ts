// The cases every event store passes: nothing beyond the port and a reopen over the same
// stored chain. Each runs on a fresh, empty store (src/log/contract.ts).
import assert from 'node:assert/strict';
import { LogConflictError } from '../../errors.js';
import type { AppendInput } from '../../events/index.js';
import { decodeRecord } from '../chain.js';
import { GENESIS_HASH_HEX } from '../codec.js';
import type { EventStore } from '../port.js';
import { all, assertMatches, framesOf, jobEvent, memoryEvent, rejectsWith, seqsOf } from './support.js';
import type { CaseDef } from './types.js';

const HEX_HASH = /^[0-9a-f]{64}$/;

const appending: CaseDef[] = [
  {
    name: 'starts empty at the genesis head',
    async run({ store }) {
      assert.deepEqual(store.log.head(), { seq: 0, hash: GENESIS_HASH_HEX });
    },
  },
  {
    name: 'returns seq and hash for an append and reads the record back',
    async run({ store: { log } }) {
      const appended = await log.append(memoryEvent('m1', 'roll back with scripts/rollback.sh'));
      assert.equal(appended.seq, 1);
      assert.match(appended.hash, HEX_HASH);
      assert.deepEqual(log.head(), appended);
      const record = await log.get(1);
      assertMatches(record, { seq: 1, type: 'memory.written', v: 1, ns: 'private', actor: 'test', hash: appended.hash });
      assertMatches(record?.data, { id: 'm1', text: 'roll back with scripts/rollback.sh', terms: [], tags: [] });
    },
  },
  {
    name: 'gives 1,000 concurrent appends contiguous seqs in few batches, and the chain verifies',
    async run({ store: { log } }) {
      let commits = 0;
      log.onCommit(() => commits++);
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => log.append(jobEvent(i))));
      const seqs = results.map((r) => r.seq).sort((a, b) => a - b);
      assert.deepEqual(
        seqs,
        Array.from({ length: 1000 }, (_, i) => i + 1),
      );
      assert.equal(new Set(results.map((r) => r.hash)).size, 1000);
      // group commit: everything queued while a batch syncs shares the next batch
      assert.ok(commits < 1000, `${commits} commits for 1,000 appends: no group commit`);
      assertMatches(await log.verify(), { ok: true, checked: 1000, head: log.head() });
    },
  },
  {
    name: 'appends several events atomically and contiguously with appendAll',
    async run({ store: { log } }) {
      await log.append(jobEvent(0));
      const [a, b, c] = await log.appendAll([jobEvent(1), memoryEvent('m', 'x'), jobEvent(2)]);
      assert.deepEqual([a?.seq, b?.seq, c?.seq], [2, 3, 4]);
    },
  },
  {
    name: 'keeps timestamps non-decreasing along the log',
    async run({ store: { log } }) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(jobEvent(i))));
      const ts = (await all(log.read())).map((r) => r.ts);
      assert.deepEqual(
        ts,
        [...ts].sort((a, b) => a - b),
      );
    },
  },
];

const expectedHeads: CaseDef[] = [
  {
    name: 'refuses an append whose expected head moved, with a typed conflict, and writes nothing',
    async run({ store: { log } }) {
      const first = await log.append(jobEvent(1));
      await log.append(jobEvent(2));
      const bySeq = log.append(jobEvent(3), { expectedHead: { seq: first.seq } });
      const err = await rejectsWith(bySeq, { code: 'KIOKU_LOG_CONFLICT', details: { actual: { seq: 2 } } });
      assert.ok(err instanceof LogConflictError, 'the conflict is a LogConflictError');
      await rejectsWith(log.append(jobEvent(3), { expectedHead: { hash: first.hash } }), { code: 'KIOKU_LOG_CONFLICT' });
      assert.equal(log.head().seq, 2);
      const ok = await log.append(jobEvent(3), { expectedHead: { seq: 2, hash: log.head().hash } });
      assert.equal(ok.seq, 3);
    },
  },
  {
    name: 'scopes an expected head to types: unrelated appends are no conflict, one of the types is',
    async run({ store }) {
      let log = store.log;
      const seen = (await log.append(memoryEvent('m1', 'one'))).seq;
      await log.append(jobEvent(1)); // not a memory event
      const types = ['memory.written', 'memory.forgotten'];
      assert.equal((await log.append(memoryEvent('m2', 'two'), { expectedHead: { seq: seen, types } })).seq, 3);
      await rejectsWith(log.append(memoryEvent('m3', 'three'), { expectedHead: { seq: seen, types } }), { code: 'KIOKU_LOG_CONFLICT' });
      // within one group commit, an earlier write of the group counts
      const [first, second] = await Promise.allSettled([
        log.append(memoryEvent('m4', 'four'), { expectedHead: { seq: 3, types } }),
        log.append(memoryEvent('m5', 'five'), { expectedHead: { seq: 3, types } }),
      ]);
      assert.deepEqual([first.status, second.status], ['fulfilled', 'rejected']);
      // after a reopen, the last seq of a type comes from the store
      log = await store.reopen();
      await rejectsWith(log.append(memoryEvent('m6', 'six'), { expectedHead: { seq: 3, types } }), { code: 'KIOKU_LOG_CONFLICT' });
      assert.equal((await log.append(memoryEvent('m6', 'six'), { expectedHead: { seq: 4, types } })).seq, 5);
    },
  },
  {
    name: 'lets exactly one of two writers that saw the same head win',
    async run({ store: { log } }) {
      const head = log.head();
      const outcomes = await Promise.allSettled([
        log.append(jobEvent(1), { expectedHead: { seq: head.seq } }),
        log.append(jobEvent(2), { expectedHead: { seq: head.seq } }),
      ]);
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
      assert.equal(log.head().seq, 1);
    },
  },
];

const INVALID: [string, unknown, string][] = [
  ['a missing required field', { type: 'memory.written', data: { id: 'm1', kind: 'fact' } }, 'data.text'],
  ['a wrong field type', { type: 'job.event', data: { job_id: 'j', stage: 's', status: 'exploded' } }, 'data.status'],
  ['a field the catalog does not know', { type: 'card.removed', data: { id: 'c', colour: 'red' } }, 'data'],
  ['a bad namespace', { type: 'card.removed', ns: 'Not A Namespace', data: { id: 'c' } }, 'ns'],
  ['a wrong version', { type: 'card.removed', v: 7, data: { id: 'c' } }, 'v'],
  [
    'a bad evidence key',
    { type: 'lifecycle.transitioned', data: { evidence_key: 'nope', from: 'active', to: 'archived', reason: 'decay' } },
    'data.evidence_key',
  ],
];

const refusing: CaseDef[] = [
  ...INVALID.map(([what, event, field]): CaseDef => ({
    name: `refuses an event with ${what}, naming the field, and writes nothing`,
    async run({ store: { log } }) {
      await log.append(jobEvent(0));
      const before = log.head();
      await rejectsWith(log.append(event as AppendInput), { code: 'KIOKU_EVENT_INVALID', details: { field } });
      assert.deepEqual(log.head(), before);
      assert.equal((await log.verify()).checked, 1);
    },
  })),
  {
    name: 'refuses an event that cannot be encoded on its own, while the rest of its group lands',
    async run({ store: { log } }) {
      const huge = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i]));
      const results = await Promise.allSettled([
        log.append(jobEvent(1)),
        log.append({
          type: 'recall.performed',
          data: { recall_id: 'r', retrieval_mode: 'keyword', queries: [], key_prefix: '', keys: [], scores: [], flags: [], options: huge },
        }),
        log.append(jobEvent(2)),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assertMatches((results[1] as PromiseRejectedResult).reason, { code: 'KIOKU_EVENT_INVALID' });
      assert.equal(log.head().seq, 2);
      assert.equal((await log.verify()).ok, true);
    },
  },
  {
    name: 'refuses unknown event types from a writer and writes nothing',
    async run({ store: { log } }) {
      await rejectsWith(log.append({ type: 'memory.exploded', data: {} } as unknown as AppendInput), { code: 'KIOKU_EVENT_UNKNOWN_TYPE' });
      assert.equal(log.head().seq, 0);
    },
  },
  {
    name: 'refuses a whole appendAll when one event is invalid',
    async run({ store: { log } }) {
      await rejectsWith(log.appendAll([jobEvent(1), { type: 'card.removed', data: {} } as unknown as AppendInput]), { code: 'KIOKU_EVENT_INVALID' });
      assert.equal(log.head().seq, 0);
    },
  },
];

const reading: CaseDef[] = [
  {
    name: 'reads by range, by type, by namespace and with a limit',
    async run({ store: { log } }) {
      await log.appendAll([jobEvent(1), memoryEvent('m1', 'one'), jobEvent(2, 'team'), memoryEvent('m2', 'two', 'team'), jobEvent(3)]);
      assert.deepEqual(await seqsOf(log, {}), [1, 2, 3, 4, 5]);
      assert.deepEqual(await seqsOf(log, { from: 2, to: 4 }), [2, 3, 4]);
      assert.deepEqual(await seqsOf(log, { types: ['memory.written'] }), [2, 4]);
      assert.deepEqual(await seqsOf(log, { types: ['memory.written', 'job.event'], from: 3 }), [3, 4, 5]);
      assert.deepEqual(await seqsOf(log, { ns: 'team' }), [3, 4]);
      assert.deepEqual(await seqsOf(log, { limit: 2 }), [1, 2]);
      assert.deepEqual(await seqsOf(log, { from: 9 }), []);
    },
  },
  {
    name: 'hands over the stored frames of a range, in order and clamped to the head, that decode to what read() gives',
    async run({ store: { log } }) {
      await log.appendAll(Array.from({ length: 2500 }, (_, i) => (i % 3 ? jobEvent(i) : memoryEvent(`m${i}`, `text ${i}`))));
      const frames = await framesOf(log, 1, 2500);
      assert.equal(frames.length, 2500);
      assert.deepEqual(frames.map(decodeRecord), await all(log.read()));
      assert.deepEqual(
        (await framesOf(log, 2400, 9999)).map((f) => decodeRecord(f).seq),
        Array.from({ length: 101 }, (_, i) => 2400 + i),
      );
      assert.deepEqual(await framesOf(log, 0, 0), []);
      assert.deepEqual(await framesOf(log, 2501, 2600), []);
    },
  },
  {
    name: 'follows the live tail: existing records first, then new commits, until aborted',
    async run({ store: { log } }) {
      await log.append(jobEvent(1));
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const r of log.tail({ from: 1, signal: controller.signal })) {
          seen.push(r.seq);
          if (seen.length === 3) controller.abort();
        }
      })();
      await log.append(jobEvent(2));
      await log.append(jobEvent(3));
      await following;
      assert.deepEqual(seen, [1, 2, 3]);
    },
  },
];

const lifecycle: CaseDef[] = [
  {
    name: 'persists the head across close and reopen',
    async run({ store }) {
      let log: EventStore = store.log;
      await log.appendAll([jobEvent(1), jobEvent(2)]);
      const head = log.head();
      log = await store.reopen();
      assert.deepEqual(log.head(), head);
      assert.equal((await log.append(jobEvent(3))).seq, 3);
      assert.equal((await log.verify()).ok, true);
    },
  },
  {
    name: 'refuses appends after close with a typed error',
    async run({ store: { log } }) {
      await log.close();
      await rejectsWith(log.append(jobEvent(1)), { code: 'KIOKU_LOG_CLOSED' });
      assert.equal(log.isClosed, true);
    },
  },
  {
    name: 'declares in its manifest exactly the optional methods it has',
    async run({ store, supports }) {
      const methods = { health: store.log.health, holdsRole: store.log.holdsRole, exclusive: store.log.exclusive, importChain: store.log.importChain };
      const factory = { shared: store.openAnother, writeRaw: store.writeRaw };
      for (const [name, fn] of Object.entries({ ...methods, ...factory })) {
        const has = typeof fn === 'function';
        const declared = supports[name as keyof typeof supports] === true;
        assert.equal(
          has,
          declared,
          has ? `the store has ${name} but the manifest does not declare it` : `the manifest declares ${name} but the store has none`,
        );
      }
    },
  },
];

export const CORE_CASES: readonly CaseDef[] = [...appending, ...expectedHeads, ...refusing, ...reading, ...lifecycle];
