// A snapshot's live items (a million keys took 1.7 s at start-up) reach the vector projection's map
// in slices after the load, and a restored lane's key → label map (~1.2 s at a million, at the
// graph's arrival) likewise; a change or a read before that finishes them first, so the state is
// the one an eager load would have given — same items, same order, same snapshot and digest.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { VectorLane, VectorProjection } from '../projections/index.js';
import type { LogRecord } from '../src/events/index.js';
import { MemoryEventLog } from '../src/log/index.js';
import { memoryEvent, tempDir } from './helpers.js';

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

describe('a restored vector lane', () => {
  const dim = 16;
  const vectors = Array.from({ length: 10_000 }, (_, i) => Float32Array.from({ length: dim }, (_, j) => Math.sin(i * 7.3 + j * 1.1)));
  const hashOf = (i: number): string => i.toString(16).padStart(16, '0');
  let dir: ReturnType<typeof tempDir>;
  let lane: VectorLane;
  let file: string;

  beforeEach(() => {
    dir = tempDir();
    lane = new VectorLane('text', 'synthetic', dim);
    vectors.forEach((v, i) => lane.put(`k${i}`, v, undefined, hashOf(i)));
    lane.remove('k5');
    file = join(dir.path, 'lane.hnsw');
    lane.writeTo(file);
  });
  afterEach(() => dir.cleanup());

  const restore = (): Promise<VectorLane> => VectorLane.restore(structuredClone(lane.meta()), file);

  it('answers searches before its key → label map is filled, which warm-up slices then fill', async () => {
    const restored = await restore();
    expect(restored.size).toBe(9_999);
    expect(restored.efSearch).toBe(lane.efSearch);
    for (const i of [42, 4_200, 9_998]) expect(restored.search(vectors[i] as Float32Array, 5)).toEqual(lane.search(vectors[i] as Float32Array, 5));
    let slices = 1;
    while (!restored.warm(0)) slices += 1;
    expect(slices).toBeGreaterThan(1);
    expect(restored.contents()).toEqual(lane.contents());
  });

  it('derives its labels’ groups in slices that let the event loop turn, to the groups a put gave', async () => {
    const groupOfKey = (key: string): number => Number(key.slice(1)) % 3;
    const grouped = new VectorLane('text', 'synthetic', dim);
    vectors.forEach((v, i) => grouped.put(`k${i}`, v, undefined, hashOf(i), groupOfKey(`k${i}`)));
    grouped.remove('k5');
    grouped.writeTo(file);
    const restored = await VectorLane.restore(structuredClone(grouped.meta()), file);
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    await restored.regroup(groupOfKey, 0); // a zero budget: a turn every 4,096 labels
    clearInterval(ticking);
    expect(turns).toBeGreaterThan(0);
    const accept = Uint8Array.of(0, 1, 0);
    for (const i of [42, 4_201, 9_997])
      expect(restored.searchGated(vectors[i] as Float32Array, 5, accept)).toEqual(grouped.searchGated(vectors[i] as Float32Array, 5, accept));
    expect(restored.searchGated(vectors[4_201] as Float32Array, 5, accept).every((hit) => groupOfKey(hit.key) === 1)).toBe(true);
  });

  it('leaves excluded keys out alike by key (labels not yet mapped) and by label (mapped)', async () => {
    const groupOfKey = (key: string): number => Number(key.slice(1)) % 3;
    const grouped = new VectorLane('text', 'synthetic', dim);
    vectors.forEach((v, i) => grouped.put(`k${i}`, v, undefined, hashOf(i), groupOfKey(`k${i}`)));
    grouped.remove('k5');
    grouped.writeTo(file);
    const restored = await VectorLane.restore(structuredClone(grouped.meta()), file);
    await restored.regroup(groupOfKey, Infinity);
    const accept = Uint8Array.of(1, 1, 0);
    const byKey: ReturnType<VectorLane['searchGated']>[] = [];
    const queries = [42, 4_201, 9_997, 5];
    // each query's own nearest keys excluded (they would be found), with a removed key and one the lane never held
    const excludeFor = (i: number): Set<string> => new Set([...grouped.searchGated(vectors[i] as Float32Array, 6, accept).slice(0, 4).map((h) => h.key), 'k5', 'nope']);
    for (const i of queries) byKey.push(restored.searchGated(vectors[i] as Float32Array, 8, accept, excludeFor(i))); // before warm(): keys compared
    while (!restored.warm(0));
    queries.forEach((i, at) => {
      const byLabel = restored.searchGated(vectors[i] as Float32Array, 8, accept, excludeFor(i));
      expect(byLabel).toEqual(byKey[at]);
      expect(grouped.searchGated(vectors[i] as Float32Array, 8, accept, excludeFor(i))).toEqual(byLabel);
      expect(byLabel.some((h) => excludeFor(i).has(h.key))).toBe(false);
      expect(byLabel.length).toBe(8);
    });
  });

  it('finishes the map first for a change made before the slices end, reached by them or not', async () => {
    const restored = await restore();
    expect(restored.warm(0)).toBe(false); // k0 is mapped, k9999 not yet
    for (const l of [lane, restored]) {
      l.remove('k9999');
      l.put('k1', vectors[2] as Float32Array, undefined, hashOf(2));
    }
    expect(restored.warm(0)).toBe(true); // the change finished it
    expect(restored.size).toBe(lane.size);
    expect(restored.has('k9998')).toBe(true);
    expect(restored.has('k9999')).toBe(false);
    expect(restored.contents()).toEqual(lane.contents());
  });
});
