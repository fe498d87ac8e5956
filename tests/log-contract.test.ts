// One contract, every store: LevelDB on disk (classic-level), the LevelDB log over
// memory-level, and the in-memory chain. Then what only a shared store can show: two
// logs writing one chain never fork it and never lose an acknowledged write.
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { isKiokuError } from '../src/errors.js';
import { EventLog, MemoryChain, MemoryEventLog, logSublevels, seqKey, type EventStore, type LevelStore } from '../src/log/index.js';
import { runLogContract, type OpenedStore } from './contracts/log.js';
import { jobEvent, tempDir } from './helpers.js';

function levelFactory(name: string, make: () => { db: LevelStore; cleanup: () => void }) {
  return {
    name,
    async create(): Promise<OpenedStore> {
      const { db, cleanup } = make();
      let log: EventStore = await EventLog.open(db);
      const reopen = async (): Promise<EventStore> => {
        await log.close();
        return (log = await EventLog.open(db));
      };
      return {
        log,
        reopen,
        async writeRaw(frames, head) {
          await log.close();
          const { records, meta } = logSublevels(db);
          for (const f of frames) await records.put(seqKey(f.seq), f.frame);
          await meta.put('head', JSON.stringify({ seq: head.seq, hash: head.hash.toString('hex'), ts: head.ts }));
          return (log = await EventLog.open(db));
        },
        async cleanup() {
          await log.close();
          await db.close();
          cleanup();
        },
      };
    },
  };
}

runLogContract(
  levelFactory('LevelDB on disk (classic-level)', () => {
    const dir = tempDir();
    return { db: new ClassicLevel<string, string>(dir.path) as unknown as LevelStore, cleanup: dir.cleanup };
  }),
);
runLogContract(levelFactory('LevelDB over memory-level', () => ({ db: new MemoryLevel<string, string>() as unknown as LevelStore, cleanup: () => undefined })));
runLogContract({
  name: 'memory (shared chain)',
  async create(): Promise<OpenedStore> {
    const chain = new MemoryChain();
    let log: EventStore = new MemoryEventLog(chain);
    return {
      log,
      async reopen() {
        await log.close();
        return (log = new MemoryEventLog(chain));
      },
      async writeRaw(frames, head) {
        await log.close();
        chain.store(
          frames.map((f) => ({ ...f, ns: '', ts: 0, hash: Buffer.alloc(32) })),
          { seq: head.seq, prev: head.hash, ts: head.ts },
        );
        return (log = new MemoryEventLog(chain));
      },
      cleanup: () => log.close(),
    };
  },
});

describe('two logs writing one shared chain', () => {
  it('never fork it: 400 concurrent appends from two writers land contiguous and the chain verifies', async () => {
    const chain = new MemoryChain();
    const a = new MemoryEventLog(chain);
    const b = new MemoryEventLog(chain);
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).append(jobEvent(i))));
    expect(results.map((r) => r.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(a.head()).toEqual(b.head());
    expect(await a.verify()).toMatchObject({ ok: true, checked: 400 });
    await Promise.all([a.close(), b.close()]);
  });

  it('checks an expected head against the shared head, not a writer own view: one of two wins, the loser retries', async () => {
    const chain = new MemoryChain();
    const a = new MemoryEventLog(chain);
    const b = new MemoryEventLog(chain);
    await a.append(jobEvent(0));
    const seen = b.head();
    await a.append(jobEvent(1)); // b has not written since it looked
    const lost = await b.append(jobEvent(2), { expectedHead: seen }).catch((e: unknown) => e);
    expect(isKiokuError(lost, 'KIOKU_LOG_CONFLICT')).toBe(true);
    const retried = await b.append(jobEvent(2), { expectedHead: b.head() });
    expect(retried.seq).toBe(3);
    expect(await a.verify()).toMatchObject({ ok: true, checked: 3 });
    await Promise.all([a.close(), b.close()]);
  });

  it('tells every log of every commit, whoever wrote it, and a tail on one follows writes of the other', async () => {
    const chain = new MemoryChain();
    const a = new MemoryEventLog(chain);
    const b = new MemoryEventLog(chain);
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
    await a.append(jobEvent(2));
    await following;
    expect(seen).toEqual([1, 2]);
    expect(ranges).toEqual([
      { from: 1, to: 1 },
      { from: 2, to: 2 },
    ]);
    await Promise.all([a.close(), b.close()]);
  });
});
