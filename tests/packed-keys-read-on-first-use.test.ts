// The vector projection's keys (the live items' and each lane's label → key list) are stored
// packed and read when first used — by the warm-up, a write, or the graphs' arrival — not by the
// snapshot load (a million keys were a million strings at start-up); packed in chunks, they are
// read a slice at a time (a million in one piece held the event loop ~0.4–1 s).
import { describe, expect, it } from 'vitest';
import { keysOnFirstRead, packStringChunks, readKeysSome } from '../projections/packed-strings.js';
import { VectorProjection } from '../projections/index.js';
import { packState, unpackState } from '../projections/snapshot-file.js';
import { validateEvent, type LogRecord } from '../src/events/index.js';
import { memoryEvent } from './helpers.js';

/** A list in one bin, as stop 17's snapshots stored it. */
const packStrings = (list: readonly (string | null)[]): Uint8Array => packStringChunks(list, Math.max(1, list.length))[0] ?? new Uint8Array();

describe('packed keys', () => {
  it('are read on first access, once, and are then a plain list', () => {
    const holder: { keysPacked?: Uint8Array; keys?: (string | null)[] } = { keysPacked: packStrings(['a', null, 'c']) };
    keysOnFirstRead(holder);
    expect('keysPacked' in holder).toBe(false);
    const first = holder.keys;
    expect(first).toEqual(['a', null, 'c']);
    expect(holder.keys).toBe(first);
    holder.keys = ['z'];
    expect(holder.keys).toEqual(['z']);
  });

  it('that are damaged say so when read, not before', () => {
    const holder: { keysPacked?: Uint8Array; keys?: unknown } = { keysPacked: packStrings(['a']).subarray(0, 1) };
    expect(() => keysOnFirstRead(holder)).not.toThrow();
    expect(() => holder.keys).toThrow();
    const notStrings: { keysPacked?: Uint8Array; keys?: unknown } = { keysPacked: packStrings([1, 2] as unknown as string[]) };
    keysOnFirstRead(notStrings);
    expect(() => notStrings.keys).toThrow(/not a list of strings/);
  });

  it('in chunks, are read a slice at a time, or all at the first access, to the same list', () => {
    const list = Array.from({ length: 10_000 }, (_, i) => (i % 7 === 3 ? null : `ev1:private:memory:m${i}`));
    const sliced: { keysPacked?: Uint8Array[]; keys?: (string | null)[] } = { keysPacked: packStringChunks(list, 1000) };
    keysOnFirstRead(sliced);
    let slices = 1;
    while (!readKeysSome(sliced, 0)) slices += 1; // a zero budget: one chunk a slice
    expect(slices).toBe(10);
    expect(Object.getOwnPropertyDescriptor(sliced, 'keys')?.value).toEqual(list); // a plain list once read
    expect(readKeysSome(sliced, 0)).toBe(true);
    const partly: { keysPacked?: Uint8Array[]; keys?: (string | null)[] } = { keysPacked: packStringChunks(list, 1000) };
    keysOnFirstRead(partly);
    expect(readKeysSome(partly, 0)).toBe(false);
    expect(partly.keys).toEqual(list); // the first access reads the rest
    const empty: { keysPacked?: Uint8Array[]; keys?: (string | null)[] } = { keysPacked: [] };
    keysOnFirstRead(empty);
    expect(empty.keys).toEqual([]);
  });

  it('in chunks, a damaged chunk says which when it is read', () => {
    const chunks = packStringChunks(['a', 'b', 'c', 'd'], 2);
    const holder: { keysPacked?: Uint8Array[]; keys?: unknown } = { keysPacked: [chunks[0] as Uint8Array, packStrings([1, 2] as unknown as string[])] };
    keysOnFirstRead(holder);
    expect(readKeysSome(holder, 0)).toBe(false); // chunk 0 is fine
    expect(() => readKeysSome(holder, 0)).toThrow(/key chunk 1 is not a list of strings/);
    expect(() => holder.keys).toThrow(/key chunk 1/);
  });

  it('vector: a snapshot load leaves them packed; the state after use is the eager one', () => {
    const built = new VectorProjection();
    let seq = 0;
    const apply = (input: Parameters<typeof validateEvent>[0]): void => {
      const e = validateEvent(input);
      const record: LogRecord = {
        seq: ++seq,
        ts: 1_764_000_000_000 + seq,
        type: e.type,
        v: e.v,
        ns: e.ns,
        actor: e.actor,
        data: e.data,
        hash: 'a'.repeat(64),
        bytes: 0,
      };
      built.apply(record);
    };
    for (let i = 0; i < 50; i++) apply(memoryEvent(`m${i}`, `fact ${i}`));
    const snap = built.snapshot();
    const state = unpackState({ ...packState(snap), format: 2, name: 'vector', version: 1, seq, hash: 'a'.repeat(64) }) as { live: object };
    const loaded = new VectorProjection();
    loaded.load(state);
    const keys = Object.getOwnPropertyDescriptor(state.live, 'keys');
    expect(keys?.get).toBeTypeOf('function'); // not read by the load
    expect(loaded.loadedOlderFormat).toBe(false);
    expect(loaded.warm(Infinity)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(state.live, 'keys')?.value).toHaveLength(50); // read by the warm-up
    expect(loaded.snapshot()).toEqual(snap);
    expect(loaded.digest()).toBe(built.digest());
    // stop 17's snapshots hold each list in one bin: they load to the same state, and are rewritten in chunks
    const oneBin = (chunks: Uint8Array[]): Uint8Array => {
      const holder: { keysPacked?: Uint8Array[]; keys?: (string | null)[] } = { keysPacked: chunks };
      keysOnFirstRead(holder);
      return packStrings(holder.keys as (string | null)[]);
    };
    const older = structuredClone(snap) as unknown as { live: { keysPacked: Uint8Array | Uint8Array[] } };
    older.live.keysPacked = oneBin(older.live.keysPacked as Uint8Array[]);
    const fromOlder = new VectorProjection();
    fromOlder.load(unpackState({ ...packState(older), format: 2, name: 'vector', version: 1, seq, hash: 'a'.repeat(64) }));
    expect(fromOlder.loadedOlderFormat).toBe(true);
    expect(fromOlder.digest()).toBe(built.digest());
    expect(fromOlder.snapshot()).toEqual(snap);
  });
});
