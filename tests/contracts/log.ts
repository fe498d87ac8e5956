// The event-store contract: every implementation of the port (src/log/port.ts) runs
// this one suite, the way abstract-level's suite runs against every Level store.
// A new store (PostgreSQL) adds a factory and calls runLogContract.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isKiokuError, LogConflictError } from '../../src/errors.js';
import { GENESIS_HASH_HEX, decodeRecord, encodeBody, encodeFrame, type EventStore } from '../../src/log/index.js';
import { jobEvent, memoryEvent } from '../helpers.js';

export interface OpenedStore {
  log: EventStore;
  /** close the log and open another over the same stored chain */
  reopen(): Promise<EventStore>;
  /** close the log, store these frames and head as they are (a newer writer's records), and open again */
  writeRaw(frames: { seq: number; type: string; frame: Buffer }[], head: { seq: number; hash: Buffer; ts: number }): Promise<EventStore>;
  /** close everything and remove what the store left behind */
  cleanup(): Promise<void>;
}

export interface LogStoreFactory {
  name: string;
  /** a fresh, empty store */
  create(): Promise<OpenedStore>;
}

export function runLogContract(factory: LogStoreFactory): void {
  describe(`event store contract on ${factory.name}`, () => {
    let store: OpenedStore;
    let log: EventStore;

    beforeEach(async () => {
      store = await factory.create();
      log = store.log;
    });

    afterEach(async () => {
      await store.cleanup();
    });

    it('starts empty at the genesis head', () => {
      expect(log.head()).toEqual({ seq: 0, hash: GENESIS_HASH_HEX });
    });

    it('returns seq and hash for an append and reads the record back', async () => {
      const appended = await log.append(memoryEvent('m1', 'roll back with scripts/rollback.sh'));
      expect(appended.seq).toBe(1);
      expect(appended.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(log.head()).toEqual(appended);
      const record = await log.get(1);
      expect(record).toMatchObject({ seq: 1, type: 'memory.written', v: 1, ns: 'private', actor: 'test', hash: appended.hash });
      expect(record?.data).toMatchObject({ id: 'm1', text: 'roll back with scripts/rollback.sh', terms: [], tags: [] });
    });

    it('gives 1,000 concurrent appends contiguous seqs in few batches, and the chain verifies', async () => {
      let commits = 0;
      log.onCommit(() => commits++);
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => log.append(jobEvent(i))));
      const seqs = results.map((r) => r.seq).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
      expect(new Set(results.map((r) => r.hash)).size).toBe(1000);
      // group commit: everything queued while a batch syncs shares the next batch
      expect(commits).toBeLessThan(1000);
      const report = await log.verify();
      expect(report).toMatchObject({ ok: true, checked: 1000, head: log.head() });
    });

    it('appends several events atomically and contiguously with appendAll', async () => {
      await log.append(jobEvent(0));
      const [a, b, c] = await log.appendAll([jobEvent(1), memoryEvent('m', 'x'), jobEvent(2)]);
      expect([a?.seq, b?.seq, c?.seq]).toEqual([2, 3, 4]);
    });

    it('keeps timestamps non-decreasing along the log', async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(jobEvent(i))));
      const ts: number[] = [];
      for await (const r of log.read()) ts.push(r.ts);
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
    });

    it('refuses an append whose expected head moved, with a typed conflict, and writes nothing', async () => {
      const first = await log.append(jobEvent(1));
      await log.append(jobEvent(2));
      const bySeq = log.append(jobEvent(3), { expectedHead: { seq: first.seq } });
      await expect(bySeq).rejects.toBeInstanceOf(LogConflictError);
      await expect(bySeq).rejects.toMatchObject({ code: 'KIOKU_LOG_CONFLICT', details: { actual: { seq: 2 } } });
      await expect(log.append(jobEvent(3), { expectedHead: { hash: first.hash } })).rejects.toMatchObject({ code: 'KIOKU_LOG_CONFLICT' });
      expect(log.head().seq).toBe(2);
      const ok = await log.append(jobEvent(3), { expectedHead: { seq: 2, hash: log.head().hash } });
      expect(ok.seq).toBe(3);
    });

    it('scopes an expected head to types: unrelated appends are no conflict, one of the types is', async () => {
      const seen = (await log.append(memoryEvent('m1', 'one'))).seq;
      await log.append(jobEvent(1)); // not a memory event
      const types = ['memory.written', 'memory.forgotten'];
      expect((await log.append(memoryEvent('m2', 'two'), { expectedHead: { seq: seen, types } })).seq).toBe(3);
      const stale = log.append(memoryEvent('m3', 'three'), { expectedHead: { seq: seen, types } });
      await expect(stale).rejects.toMatchObject({ code: 'KIOKU_LOG_CONFLICT' });
      // within one group commit, an earlier write of the group counts
      const [first, second] = await Promise.allSettled([
        log.append(memoryEvent('m4', 'four'), { expectedHead: { seq: 3, types } }),
        log.append(memoryEvent('m5', 'five'), { expectedHead: { seq: 3, types } }),
      ]);
      expect([first.status, second.status]).toEqual(['fulfilled', 'rejected']);
      // after a reopen, the last seq of a type comes from the store
      log = await store.reopen();
      await expect(log.append(memoryEvent('m6', 'six'), { expectedHead: { seq: 3, types } })).rejects.toMatchObject({ code: 'KIOKU_LOG_CONFLICT' });
      expect((await log.append(memoryEvent('m6', 'six'), { expectedHead: { seq: 4, types } })).seq).toBe(5);
    });

    it('lets exactly one of two writers that saw the same head win', async () => {
      const head = log.head();
      const outcomes = await Promise.allSettled([
        log.append(jobEvent(1), { expectedHead: { seq: head.seq } }),
        log.append(jobEvent(2), { expectedHead: { seq: head.seq } }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(log.head().seq).toBe(1);
    });

    it.each([
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
    ])('refuses an event with %s, naming the field, and writes nothing', async (_what, event, field) => {
      await log.append(jobEvent(0));
      const before = log.head();
      const attempt = log.append(event as never);
      await expect(attempt).rejects.toMatchObject({ code: 'KIOKU_EVENT_INVALID', details: { field } });
      expect(log.head()).toEqual(before);
      expect((await log.verify()).checked).toBe(1);
    });

    it('refuses an event that cannot be encoded on its own, while the rest of its group lands', async () => {
      const huge = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i]));
      const results = await Promise.allSettled([
        log.append(jobEvent(1)),
        log.append({ type: 'recall.performed', data: { recall_id: 'r', retrieval_mode: 'keyword', queries: [], key_prefix: '', keys: [], scores: [], flags: [], options: huge } }),
        log.append(jobEvent(2)),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'KIOKU_EVENT_INVALID' });
      expect(log.head().seq).toBe(2);
      expect((await log.verify()).ok).toBe(true);
    });

    it('refuses unknown event types from a writer and writes nothing', async () => {
      await expect(log.append({ type: 'memory.exploded', data: {} } as never)).rejects.toMatchObject({ code: 'KIOKU_EVENT_UNKNOWN_TYPE' });
      expect(log.head().seq).toBe(0);
    });

    it('refuses a whole appendAll when one event is invalid', async () => {
      await expect(log.appendAll([jobEvent(1), { type: 'card.removed', data: {} } as never])).rejects.toMatchObject({ code: 'KIOKU_EVENT_INVALID' });
      expect(log.head().seq).toBe(0);
    });

    it('reads by range, by type, by namespace and with a limit', async () => {
      await log.appendAll([jobEvent(1), memoryEvent('m1', 'one'), jobEvent(2, 'team'), memoryEvent('m2', 'two', 'team'), jobEvent(3)]);
      const seqs = async (opts: Parameters<EventStore['read']>[0]): Promise<number[]> => {
        const out: number[] = [];
        for await (const r of log.read(opts)) out.push(r.seq);
        return out;
      };
      expect(await seqs({})).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs({ from: 2, to: 4 })).toEqual([2, 3, 4]);
      expect(await seqs({ types: ['memory.written'] })).toEqual([2, 4]);
      expect(await seqs({ types: ['memory.written', 'job.event'], from: 3 })).toEqual([3, 4, 5]);
      expect(await seqs({ ns: 'team' })).toEqual([3, 4]);
      expect(await seqs({ limit: 2 })).toEqual([1, 2]);
      expect(await seqs({ from: 9 })).toEqual([]);
    });

    it('hands over the stored frames of a range, in order and clamped to the head, that decode to what read() gives', async () => {
      await log.appendAll(Array.from({ length: 2500 }, (_, i) => (i % 3 ? jobEvent(i) : memoryEvent(`m${i}`, `text ${i}`))));
      const framesOf = async (from: number, to: number): Promise<Uint8Array[]> => {
        const out: Uint8Array[] = [];
        for await (const batch of log.readFrames({ from, to })) out.push(...batch);
        return out;
      };
      const all = await framesOf(1, 2500);
      expect(all).toHaveLength(2500);
      const read: unknown[] = [];
      for await (const r of log.read()) read.push(r);
      expect(all.map(decodeRecord)).toEqual(read);
      expect((await framesOf(2400, 9999)).map((f) => decodeRecord(f).seq)).toEqual(Array.from({ length: 101 }, (_, i) => 2400 + i));
      expect(await framesOf(0, 0)).toEqual([]);
      expect(await framesOf(2501, 2600)).toEqual([]);
    });

    it('follows the live tail: existing records first, then new commits, until aborted', async () => {
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
      expect(seen).toEqual([1, 2, 3]);
    });

    it('keeps unknown types written by a newer version, and reads them back', async () => {
      // A newer Kioku wrote a type this one does not know: readers keep it, never drop it.
      const body = encodeBody({ seq: 1, ts: 1, type: 'future.thing', v: 3, ns: 'private', actor: 'x', data: { a: 1 } });
      const { frame, hash } = encodeFrame(new Uint8Array(32), body);
      log = await store.writeRaw([{ seq: 1, type: 'future.thing', frame }], { seq: 1, hash, ts: 1 });
      const read = [];
      for await (const r of log.read()) read.push(r);
      expect(read).toMatchObject([{ seq: 1, type: 'future.thing', v: 3, data: { a: 1 } }]);
      expect((await log.append(jobEvent(2))).seq).toBe(2);
      expect((await log.verify()).ok).toBe(true);
    });

    it('persists the head across close and reopen', async () => {
      await log.appendAll([jobEvent(1), jobEvent(2)]);
      const head = log.head();
      log = await store.reopen();
      expect(log.head()).toEqual(head);
      expect((await log.append(jobEvent(3))).seq).toBe(3);
      expect((await log.verify()).ok).toBe(true);
    });

    it('refuses appends after close with a typed error', async () => {
      await log.close();
      const err = await log.append(jobEvent(1)).catch((e: unknown) => e);
      expect(isKiokuError(err, 'KIOKU_LOG_CLOSED')).toBe(true);
    });
  });
}
