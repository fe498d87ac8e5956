// The records lookups a snapshot load leaves unbuilt are built in slices between requests (a
// million records take seconds); a change in the middle of a build files itself, so the lookups
// end right whether the build had reached its entry or not.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordsProjection } from '../projections/index.js';
import type { LogRecord } from '../src/events/index.js';
import { MemoryEventLog } from '../src/log/index.js';
import { memoryEvent } from './helpers.js';

describe('records warm-up in slices', () => {
  let log: MemoryEventLog;
  let records: LogRecord[];

  beforeEach(async () => {
    log = new MemoryEventLog();
    await log.appendAll(Array.from({ length: 5000 }, (_, i) => memoryEvent(`m${i}`, `fact number ${i}`)));
    records = [];
    for await (const r of log.read()) records.push(r);
  });
  afterEach(async () => {
    await log.close();
  });

  function loaded(): RecordsProjection {
    const built = new RecordsProjection();
    for (const r of records) built.apply(r);
    const fresh = new RecordsProjection();
    fresh.load(structuredClone(built.snapshot()));
    return fresh;
  }

  it('takes several slices on a zero budget and ends with the same lookups as one build', () => {
    const sliced = loaded();
    expect(sliced.lookupsBuilt).toBe(false);
    let slices = 1;
    while (!sliced.warm(0)) slices += 1;
    expect(slices).toBeGreaterThan(3);
    expect(sliced.lookupsBuilt).toBe(true);
    const whole = loaded();
    expect(whole.warm(Infinity)).toBe(true);
    for (const id of ['m0', 'm2500', 'm4999']) expect(sliced.document('private', 'memory', id)).toEqual(whole.document('private', 'memory', id));
  });

  it('keeps the lookups right when items change mid-build, filed already or not yet', async () => {
    const p = loaded();
    expect(p.warm(0)).toBe(false); // m0 (written first) is filed already, under kind "fact"
    const appended = await log.appendAll([
      { type: 'memory.written', ns: 'private', actor: 'test', data: { id: 'm0', kind: 'decision', text: 'fact number 0, now a decision' } },
      // m4999 (written last) is not filed yet
      { type: 'memory.written', ns: 'private', actor: 'test', data: { id: 'm4999', kind: 'decision', text: 'fact number 4999, now a decision' } },
      memoryEvent('late', 'written while the lookups were being built'),
    ]);
    for (const a of appended) p.apply((await log.get(a.seq)) as LogRecord);
    while (!p.warm(0));
    expect(p.byKindName('private', 'decision').map((e) => e.id)).toEqual(['m0', 'm4999']);
    const facts = p.byKindName('private', 'fact').map((e) => e.id);
    expect(facts).not.toContain('m0');
    expect(facts).not.toContain('m4999');
    expect(facts).toHaveLength(4998 + 1); // m1…m4998 and "late", each once
    expect(p.document('private', 'memory', 'late').map((e) => e.id)).toEqual(['late']);
  });

  it('a query in the middle of a build finishes it first', () => {
    const p = loaded();
    expect(p.warm(0)).toBe(false);
    expect(p.document('private', 'memory', 'm4321').map((e) => e.id)).toEqual(['m4321']);
    expect(p.lookupsBuilt).toBe(true);
  });
});
