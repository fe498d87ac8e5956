// A snapshot's live items (a million keys took 1.7 s at start-up) reach the vector projection's map
// in slices after the load; a change or a read before that finishes them first, so the state is the
// one an eager load would have given — same items, same order, same snapshot and digest.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VectorProjection } from '../projections/index.js';
import type { LogRecord } from '../src/events/index.js';
import { MemoryEventLog } from '../src/log/index.js';
import { memoryEvent } from './helpers.js';

describe('vector live items after a snapshot load', () => {
  let log: MemoryEventLog;
  let records: LogRecord[];

  beforeEach(async () => {
    log = new MemoryEventLog();
    await log.appendAll(Array.from({ length: 10_000 }, (_, i) => memoryEvent(`m${i}`, `fact number ${i}`, i % 3 === 0 ? 'team' : 'private')));
    records = [];
    for await (const r of log.read()) records.push(r);
  });
  afterEach(async () => {
    await log.close();
  });

  function built(): VectorProjection {
    const p = new VectorProjection();
    for (const r of records) p.apply(r);
    return p;
  }

  function loaded(): VectorProjection {
    const p = new VectorProjection();
    p.load(structuredClone(built().snapshot()));
    return p;
  }

  it('arrive in slices on a zero budget, in the snapshot order', () => {
    const p = loaded();
    let slices = 1;
    while (!p.warm(0)) slices += 1;
    expect(slices).toBeGreaterThan(1);
    expect(p.snapshot()).toEqual(built().snapshot());
    expect(p.digest()).toBe(built().digest());
  });

  it('are all there for a change made before the slices end, reached by them or not', async () => {
    const p = loaded();
    expect(p.warm(0)).toBe(false); // m0 is in the map, m9999 not yet
    const eager = built();
    const more = await log.appendAll([
      { type: 'memory.forgotten', ns: 'private', actor: 'test', data: { id: 'm1' } },
      { type: 'memory.forgotten', ns: 'private', actor: 'test', data: { id: 'm9998' } },
      memoryEvent('late', 'written before the slices ended'),
    ]);
    for (const a of more) {
      const record = (await log.get(a.seq)) as LogRecord;
      p.apply(record);
      eager.apply(record);
    }
    expect(p.warm(0)).toBe(true); // the change finished them
    expect(p.snapshot()).toEqual(eager.snapshot());
    expect(p.waiting('text', 'any').length).toBe(10_000 - 2 + 1);
  });
});
