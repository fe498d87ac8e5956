// One contract, every store: LevelDB on disk (classic-level), the LevelDB log over
// memory-level, and the in-memory chain (which, like PostgreSQL, several logs share: the
// contract's `shared` cases show two logs writing one chain never fork it).
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { EventLog, MemoryChain, MemoryEventLog, logSublevels, seqKey, type EventStore, type LevelStore } from '../src/log/index.js';
import type { ContractStore, LogStoreFactory } from '../src/log/contract.js';
import { describeLogContract } from './contracts/log.js';
import { tempDir } from './helpers.js';

function levelFactory(name: string, make: () => { db: LevelStore; cleanup: () => void }): LogStoreFactory {
  return {
    name,
    async create(): Promise<ContractStore> {
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

/** LevelDB: one writer per store; it imports an exported chain (kioku log import). */
const LEVEL = { importChain: true, writeRaw: true } as const;

describeLogContract({
  factory: levelFactory('LevelDB on disk (classic-level)', () => {
    const dir = tempDir();
    return { db: new ClassicLevel<string, string>(dir.path) as unknown as LevelStore, cleanup: dir.cleanup };
  }),
  supports: LEVEL,
});
describeLogContract({
  factory: levelFactory('LevelDB over memory-level', () => ({ db: new MemoryLevel<string, string>() as unknown as LevelStore, cleanup: () => undefined })),
  supports: LEVEL,
});
describeLogContract({ factory: memoryFactory(), supports: { shared: true, writeRaw: true } });

function memoryFactory(): LogStoreFactory {
  return {
    name: 'memory (shared chain)',
    async create(): Promise<ContractStore> {
      const chain = new MemoryChain();
      let log: EventStore = new MemoryEventLog(chain);
      return {
        log,
        async reopen() {
          await log.close();
          return (log = new MemoryEventLog(chain));
        },
        // another node on the same chain
        openAnother: async () => new MemoryEventLog(chain),
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
  };
}
