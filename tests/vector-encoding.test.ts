// Vectors in embedding.computed: float16 since event v2 (half the log), float32 in v1 events
// (upcast as such, so old logs rebuild to the very same index).
import { afterEach, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { decodeVector, encodeVector, fromHalf, toHalf, upcast, validateEvent } from '../src/events/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { openKioku, type KiokuStore } from '../src/kioku.js';
import { Knowledge } from '../src/knowledge/index.js';
import { tempDir } from './helpers.js';

describe('float16 vector bytes', () => {
  it('converts exactly where float16 can hold the value, rounding ties to even', () => {
    for (const [x, h] of [
      [0, 0x0000],
      [-0, 0x8000],
      [1, 0x3c00],
      [-2, 0xc000],
      [65504, 0x7bff], // largest half
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [1 + 2 ** -11, 0x3c00], // halfway between 1 and the next half: to even (1)
      [1 + 3 * 2 ** -11, 0x3c02], // halfway between 0x3c01 and 0x3c02: to even
      [1e6, 0x7c00], // too large: infinity
      [2 ** -26, 0x0000], // too small: zero
    ] as const) {
      expect(toHalf(x)).toBe(h);
    }
    for (let h = 0; h < 0x7c00; h += 7) expect(toHalf(fromHalf(h))).toBe(h); // every finite half round-trips
    expect(Number.isNaN(fromHalf(toHalf(NaN)))).toBe(true);
  });

  it('keeps a unit vector within float16 precision, in half the bytes', () => {
    const v = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i * 0.37) / 16);
    const bytes = encodeVector(v, 'f16');
    expect(bytes.byteLength).toBe(1024);
    const back = decodeVector(bytes, 512, 'f16');
    for (let i = 0; i < 512; i++) expect(Math.abs((back[i] as number) - (v[i] as number))).toBeLessThanOrEqual(Math.abs(v[i] as number) * 2 ** -11 + 2 ** -25);
    expect(decodeVector(encodeVector(v, 'f32'), 512, 'f32')).toEqual(v);
    expect(() => decodeVector(bytes, 512, 'f32')).toThrow(/expected 2048/);
  });

  it('upcasts a v1 event as float32 and writes v2 events with the encoding given (float32 by default)', () => {
    const data = { evidence_key: 'ev1:private:memory:m1', model: 'm', lane: 'text', dim: 2, vector: encodeVector([0.5, -0.25], 'f32') };
    const v1 = upcast({ seq: 1, ts: 0, type: 'embedding.computed', v: 1, ns: 'private', actor: 'a', data });
    expect(v1.v).toBe(2);
    expect(v1.data).toMatchObject({ encoding: 'f32' });
    expect(validateEvent({ type: 'embedding.computed', data })).toMatchObject({ v: 2, data: { encoding: 'f32' } });
    expect(() => validateEvent({ type: 'embedding.computed', data: { ...data, encoding: 'int4' } })).toThrow(/encoding/);
    expect(() => validateEvent({ type: 'embedding.computed', v: 1, data })).toThrow(/v2/);
  });
});

describe('the indexer writes float16 vectors', () => {
  let store: KiokuStore | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('appends 2 bytes per dimension, and the index finds the item as with float32', async () => {
    store = await openKioku({ data: dir.path });
    const knowledge = new Knowledge(store, 'test');
    await knowledge.writeMemories({
      memories: [
        { id: 'a', kind: 'fact', text: 'the staging database lives on host pg-staging-2' },
        { id: 'b', kind: 'fact', text: 'release notes go to the #releases channel' },
      ],
    });
    const embedder = new HashedEmbedder(64);
    await new EmbeddingIndexer(store, embedder).run();
    const events = [];
    for await (const r of store.log.read({ types: ['embedding.computed'] })) events.push(r);
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e.v).toBe(2);
      expect(e.data).toMatchObject({ encoding: 'f16', dim: 64 });
      expect((e.data as { vector: Uint8Array }).vector.byteLength).toBe(128);
    }
    const [query] = await embedder.embed(['which host has the staging database?']);
    const hits = store.projections.views.vector.search(query as Float32Array, { lane: 'text', model: embedder.id, k: 2, namespaces: ['private'] });
    expect(hits[0]?.key).toBe('ev1:private:memory:a');
  });
});
