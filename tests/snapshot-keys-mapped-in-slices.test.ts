// After a snapshot load, the keyword and records projections put their keys in a Map in slices
// (a million keys took over a second each at start-up); searches are answered meanwhile, and a
// read or change that needs the Map finishes it first, so the state is the one an eager load
// would have given — same answers, same order, same snapshot and digest.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeywordProjection, RecordsProjection } from '../projections/index.js';
import { ROWS_PER_CHUNK } from '../projections/records/rows.js';
import { packState } from '../projections/snapshot-file.js';
import type { LogRecord } from '../src/events/index.js';
import { MemoryEventLog } from '../src/log/index.js';
import { memoryEvent } from './helpers.js';

describe('keys mapped in slices after a snapshot load', () => {
  let log: MemoryEventLog;
  let records: LogRecord[];

  beforeEach(async () => {
    log = new MemoryEventLog();
    await log.appendAll(Array.from({ length: 10_000 }, (_, i) => memoryEvent(`m${i}`, `fact number ${i} about topic${i % 50}`)));
    records = [];
    for await (const r of log.read()) records.push(r);
  });
  afterEach(async () => {
    await log.close();
  });

  const changes = async (): Promise<LogRecord[]> => {
    const more = await log.appendAll([
      { type: 'memory.forgotten', ns: 'private', actor: 'test', data: { id: 'm1' } },
      { type: 'memory.forgotten', ns: 'private', actor: 'test', data: { id: 'm9998' } },
      memoryEvent('late', 'written before the slices ended about topic7'),
    ]);
    return Promise.all(more.map(async (a) => (await log.get(a.seq)) as LogRecord));
  };

  for (const make of [() => new KeywordProjection(), () => new RecordsProjection()]) {
    const name = make().name;
    const built = (): KeywordProjection | RecordsProjection => {
      const p = make();
      for (const r of records) p.apply(r);
      return p;
    };
    const loaded = (): KeywordProjection | RecordsProjection => {
      const p = make();
      p.load(structuredClone(built().snapshot()));
      return p;
    };
    const packed = (p: KeywordProjection | RecordsProjection): Buffer => Buffer.from(packState(p.snapshot()).state);

    it(`${name}: arrive in slices on a zero budget, and the state is the eager one`, () => {
      const p = loaded();
      let slices = 1;
      while (!p.warm(0)) slices += 1;
      expect(slices).toBeGreaterThan(2);
      expect(p.digest()).toBe(built().digest());
      expect(packed(p).equals(packed(built()))).toBe(true);
    });

    it(`${name}: a change before the slices end finds every key, reached by them or not`, async () => {
      const p = loaded();
      expect(p.warm(0)).toBe(false); // m0 is mapped, m9998 not yet
      const eager = built();
      for (const r of await changes()) {
        p.apply(r);
        eager.apply(r);
      }
      while (!p.warm(0));
      expect(p.digest()).toBe(eager.digest());
      expect(packed(p).equals(packed(eager))).toBe(true);
    });
  }

  it('keyword: searches are answered before the keys are mapped', () => {
    const eager = new KeywordProjection();
    for (const r of records) eager.apply(r);
    const p = new KeywordProjection();
    p.load(structuredClone(eager.snapshot()));
    const query = { namespaces: ['private'], limit: 5 };
    expect(p.search('topic7 fact', query)).toEqual(eager.search('topic7 fact', query));
    expect(p.warm(0)).toBe(false); // the search did not need the map
    expect(p.has('ev1:private:memory:m9999')).toBe(true); // this does
    expect(p.warm(0)).toBe(true);
  });

  it('records: an entry is found before the keys are mapped', () => {
    const p = new RecordsProjection();
    const eager = new RecordsProjection();
    for (const r of records) eager.apply(r);
    p.load(structuredClone(eager.snapshot()));
    expect(p.get('ev1:private:memory:m9999')).toEqual(eager.get('ev1:private:memory:m9999'));
    expect(p.rowsPacked).toBe(10_000 - (10_000 % ROWS_PER_CHUNK || ROWS_PER_CHUNK)); // only the last chunk unpacked
    expect(p.get('ev1:private:memory:m40')).toEqual(eager.get('ev1:private:memory:m40'));
    expect(p.rowsPacked).toBe(10_000 - (10_000 % ROWS_PER_CHUNK || ROWS_PER_CHUNK) - ROWS_PER_CHUNK);
  });
});
