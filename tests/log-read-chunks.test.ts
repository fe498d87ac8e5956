// Reading the log from disk takes one trip through LevelDB's thread pool per chunk of records:
// classic-level's default ends a nextv() at 16 KiB (~45 records), which made a rebuild wait on
// ~1,800 trips for 65,000 events. Counted, not timed.
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLog, verifyChain, openLevelStore, type EventLog } from '../src/log/index.js';
import type { AppendInput } from '../src/events/index.js';
import { tempDir } from './helpers.js';

// classic-level's native iterator (its package has no exports map, so the file can be reached)
const { Iterator } = createRequire(import.meta.url)('classic-level/iterator.js') as {
  Iterator: { prototype: { _nextv: (...args: unknown[]) => Promise<unknown[]> } };
};

/** a job event of ~360 bytes stored, the size of the usual record */
const largeJobEvent = (i: number): AppendInput => ({
  type: 'job.event',
  actor: 'test',
  data: { job_id: `job-${i}`, stage: 'embed', status: 'running', detail: `step ${i} `.repeat(25) },
});

const EVENTS = 5_000; // ~1.8 MB of frames: ~110 trips at 16 KiB each

describe('reading the log from disk', () => {
  let dir: ReturnType<typeof tempDir>;
  let trips = 0;
  const original = Iterator.prototype._nextv;

  beforeEach(async () => {
    dir = tempDir();
    const log = await openLog(dir.path);
    for (let i = 0; i < EVENTS; i += 500) await log.appendAll(Array.from({ length: 500 }, (_, j) => largeJobEvent(i + j)));
    await log.close();
    trips = 0;
    Iterator.prototype._nextv = function (this: unknown, ...args: unknown[]) {
      trips += 1;
      return original.apply(this, args);
    };
  });

  afterEach(() => {
    Iterator.prototype._nextv = original;
    dir.cleanup();
  });

  it('reads a chunk of records per trip when folding or replaying', async () => {
    let log: EventLog | undefined = await openLog(dir.path);
    try {
      trips = 0;
      let read = 0;
      for await (const record of log.read({ from: 1 })) read += record.seq > 0 ? 1 : 0;
      expect(read).toBe(EVENTS);
      expect(trips).toBeLessThanOrEqual(EVENTS / 1000 + 2);
    } finally {
      await log?.close();
      log = undefined;
    }
  });

  it('reads a chunk of records per trip when verifying', async () => {
    const db = await openLevelStore(dir.path, { createIfMissing: false });
    try {
      trips = 0;
      const report = await verifyChain(db);
      expect(report.ok).toBe(true);
      expect(report.checked).toBe(EVENTS);
      expect(trips).toBeLessThanOrEqual(EVENTS / 1000 + 2);
    } finally {
      await db.close();
    }
  });
});
