// The vector projection and the indexing job: vectors arrive as embedding.computed
// events, the HNSW index is snapshotted and reloaded, retired items leave it, and a
// failing model never costs an item its keyword findability.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VectorLane, type KeywordProjection, type VectorProjection } from '../projections/index.js';
import { efSearchFor } from '../projections/vector/lane.js';
import { HashedEmbedder, UseLiteEmbedder, type Embedder } from '../src/embed/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { openKioku, type KiokuStore } from '../src/kioku.js';
import { Knowledge, evidenceKey } from '../src/knowledge/index.js';
import { memoryStore, recordsOfType, tempDir } from './helpers.js';

const vec = (store: { projections: KiokuStore['projections'] }): VectorProjection => store.projections.views.vector;
const kw = (store: { projections: KiokuStore['projections'] }): KeywordProjection => store.projections.views.keyword;
const mem = (id: string): string => evidenceKey({ ns: 'private', layer: 'memory', id });

async function vectorSearch(store: { projections: KiokuStore['projections'] }, embedder: Embedder, query: string, k = 5): Promise<string[]> {
  const [q] = await embedder.embed([query]);
  return vec(store)
    .search(q as Float32Array, { lane: 'text', model: embedder.id, k, namespaces: ['private'] })
    .map((h) => h.key);
}

describe('with the bundled USE-lite model', () => {
  it('finds an English paraphrase with no shared words by the vector lane and not by keyword', async () => {
    const store = await memoryStore();
    const embedder = new UseLiteEmbedder();
    try {
      await store.knowledge.writeMemories({
        memories: [
          { id: 'revert', kind: 'procedure', text: 'To revert a bad release, execute the rollback script with the previous tag.' },
          { id: 'cake', kind: 'fact', text: 'The chocolate cake recipe needs three eggs and dark cocoa.' },
          { id: 'weather', kind: 'fact', text: 'It rained all weekend in Lisbon.' },
          { id: 'holiday', kind: 'event', text: 'Our team offsite is planned for March in the mountains.' },
          { id: 'cjk', kind: 'fact', text: '数据库迁移必须手动重新执行。' },
        ],
      });
      const job = await new EmbeddingIndexer(store, embedder).run();
      expect(job).toMatchObject({ status: 'succeeded', embedded: 4, skipped_cjk: 1, model: 'use-lite-512' });
      const query = 'How can I undo a broken deployment?';
      expect(
        kw(store)
          .search(query, { namespaces: ['private'] })
          .map((h) => h.key),
      ).not.toContain(mem('revert'));
      expect((await vectorSearch(store, embedder, query, 3))[0]).toBe(mem('revert'));
      // mainly-CJK text never gets a USE-lite vector (they would all be alike): keyword serves it
      expect(vec(store).lane('text', 'use-lite-512')?.has(mem('cjk'))).toBe(false);
      expect(kw(store).search('数据库迁移', { namespaces: ['private'] })[0]?.key).toBe(mem('cjk'));
    } finally {
      await embedder.close();
      await store.close();
    }
  });
});

describe('vector projection on disk', () => {
  let dir: ReturnType<typeof tempDir>;
  const embedder = new HashedEmbedder(64);
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  async function seed(): Promise<void> {
    const store = await openKioku({ data: dir.path });
    const knowledge = new Knowledge(store, 'test');
    // more than the initial HNSW capacity (1,024), so the index has to grow
    for (let b = 0; b < 3; b++) {
      await knowledge.writeMemories({
        memories: Array.from({ length: 400 }, (_, i) => ({
          id: `m${b * 400 + i}`,
          kind: 'fact' as const,
          text: `Fact ${b * 400 + i} about ${['deploys', 'billing', 'hiring', 'security', 'coffee'][i % 5]} and item ${i % 37}`,
        })),
      });
    }
    // a conversation: traces get a window lane too
    for (let t = 0; t < 3; t++) {
      await store.log.append({ type: 'turn.started', data: { turn_id: `t${t}`, session_id: 's1', query: `question ${t} about billing` } });
      await store.log.append({ type: 'turn.completed', data: { turn_id: `t${t}`, session_id: 's1', answer: `answer ${t}` } });
    }
    const job = await new EmbeddingIndexer(store, embedder).run();
    expect(job).toMatchObject({ status: 'succeeded', embedded: 1200 + 3 + 3 });
    await store.close();
  }

  it('reloads the HNSW index from the snapshot and answers exactly as a rebuild does', async () => {
    await seed();
    const reopened = await openKioku({ data: dir.path });
    const status = reopened.projections.status().find((s) => s.name === 'vector');
    expect(status).toMatchObject({ source: 'snapshot', seq: reopened.log.head().seq });
    expect(vec(reopened).lane('text', embedder.id)?.size).toBe(1203);
    expect(vec(reopened).lane('window', embedder.id)?.size).toBe(3);
    const queries = ['deploys item 3', 'billing', 'coffee and item 12', 'question about billing', 'security'];
    const loaded = await Promise.all(queries.map((q) => vectorSearch(reopened, embedder, q, 10)));
    const loadedDigest = reopened.projections.digests();
    await reopened.projections.rebuild(['vector']);
    const rebuilt = await Promise.all(queries.map((q) => vectorSearch(reopened, embedder, q, 10)));
    expect(rebuilt).toEqual(loaded);
    expect(reopened.projections.digests()).toEqual(loadedDigest);
    await reopened.close();
  });

  it('rebuilds the vector projection from the log when its HNSW file is damaged, and answers as before', async () => {
    await seed();
    const first = await openKioku({ data: dir.path });
    const before = await vectorSearch(first, embedder, 'billing', 10);
    await first.close();
    const vectorDir = join(dir.path, 'projections', 'vector');
    const files = readdirSync(vectorDir).find((d) => d.startsWith('files-')) as string;
    for (const f of readdirSync(join(vectorDir, files))) writeFileSync(join(vectorDir, files, f), Buffer.alloc(100, 7)); // read early, then again: both fail
    const warnings: string[] = [];
    const reopened = await openKioku({ data: dir.path, onWarning: (m) => warnings.push(m) });
    try {
      expect(reopened.projections.status().find((s) => s.name === 'vector')).toMatchObject({ source: 'genesis', seq: reopened.log.head().seq });
      expect(warnings.join('\n')).toMatch(/projection vector: snapshot discarded \(load failed/);
      expect(await vectorSearch(reopened, embedder, 'billing', 10)).toEqual(before);
    } finally {
      await reopened.close();
    }
  });

  it('widens the HNSW search breadth with the graph size (recall@10 at a million vectors)', () => {
    expect([1_000, 100_000, 128_000, 200_000, 1_000_000, 5_000_000].map(efSearchFor)).toEqual([64, 64, 64, 100, 500, 1024]);
    expect(new VectorLane('text', embedder.id, 64).efSearch).toBe(64);
  });

  it('vectorOf answers a key read before with its vector as stored, and a replaced vector with the new one', async () => {
    const lane = new VectorLane('text', embedder.id, 64);
    const [a, b] = await embedder.embed(['deploys', 'billing']);
    lane.put('k', a as Float32Array, undefined, 'h1');
    const first = lane.vectorOf('k');
    const stored = (v: Float32Array): number[] => {
      // hnswlib keeps cosine vectors normalised: what vectorOf returns is that copy
      const n = Math.hypot(...v);
      return [...v].map((x) => Math.fround(x / n));
    };
    expect([...(first as Float32Array)].map((x, i) => Math.abs(x - (stored(a as Float32Array)[i] as number)))).toSatisfy((d: number[]) => d.every((x) => x < 1e-6));
    expect(lane.vectorOf('k')).toEqual(first); // read again: kept
    lane.put('k', b as Float32Array, undefined, 'h2'); // replaced: a new label, so nothing kept answers for it
    const second = lane.vectorOf('k') as Float32Array;
    expect([...second].map((x, i) => Math.abs(x - (stored(b as Float32Array)[i] as number)))).toSatisfy((d: number[]) => d.every((x) => x < 1e-6));
    lane.remove('k');
    expect(lane.vectorOf('k')).toBeUndefined();
  });

  it('restores a lane from a graph read before its metadata was unpacked, without reading the file again', async () => {
    const lane = new VectorLane('text', embedder.id, 64);
    const vectors = await embedder.embed(['deploys', 'billing', 'hiring', 'security']);
    vectors.forEach((v, i) => lane.put(`k${i}`, v, undefined, `h${i}`));
    const file = join(dir.path, 'lane.hnsw');
    lane.writeTo(file);
    const early = VectorLane.readGraph(file);
    const restored = await VectorLane.restore(lane.meta(), join(dir.path, 'no-such-file.hnsw'), early);
    expect(restored.search(vectors[1] as Float32Array, 1).map((h) => h.key)).toEqual(['k1']);
    // without a usable early read the file is read
    const again = await VectorLane.restore(lane.meta(), file, Promise.resolve(undefined));
    expect(again.search(vectors[2] as Float32Array, 1).map((h) => h.key)).toEqual(['k2']);
  });

  it('rebuilding twice gives identical digests for every projection', async () => {
    await seed();
    const store = await openKioku({ data: dir.path });
    const caughtUp = store.projections.digests();
    await store.projections.rebuild();
    const once = store.projections.digests();
    await store.projections.rebuild();
    expect(store.projections.digests()).toEqual(once);
    expect(once).toEqual(caughtUp);
    expect(Object.keys(once).sort()).toEqual(['access', 'delivered', 'graph', 'jobs', 'keyword', 'lifecycle', 'notices', 'org', 'records', 'stats', 'turns', 'usage', 'vector']);
    await store.close();
  });

  it('drops forgotten and superseded items from every lane', async () => {
    await seed();
    const store = await openKioku({ data: dir.path });
    const knowledge = new Knowledge(store, 'test');
    const before = await vectorSearch(store, embedder, 'Fact 7 about hiring and item 7', 3);
    expect(before[0]).toBe(mem('m7'));
    await knowledge.forget({ id: 'm7' });
    await knowledge.writeMemories({ memories: [{ id: 'm8b', kind: 'fact', text: 'Fact 8 replaced', supersede_ids: ['m8'] }] });
    const after = await vectorSearch(store, embedder, 'Fact 7 about hiring and item 7', 50);
    expect(after).not.toContain(mem('m7'));
    expect(await vectorSearch(store, embedder, 'Fact 8 about security and item 8', 50)).not.toContain(mem('m8'));
    await store.close();
  });
});

describe('the indexing job', () => {
  let store: Awaited<ReturnType<typeof memoryStore>>;
  beforeEach(async () => {
    store = await memoryStore();
    await store.knowledge.writeMemories({ memories: [{ id: 'r1', kind: 'procedure', text: 'Rotate the API keys every quarter.' }] });
  });
  afterEach(async () => store.close());

  class FailingEmbedder implements Embedder {
    readonly id = 'broken-model';
    readonly dim = 8;
    readonly readsCjk = true;
    calls = 0;
    constructor(private readonly failures: number) {}
    async init(): Promise<void> {}
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      this.calls += 1;
      if (this.calls <= this.failures) throw new Error('model server unreachable');
      return texts.map(() => Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]));
    }
    async close(): Promise<void> {}
  }

  it('records a failed job when the model keeps failing, and the item stays findable by keyword', async () => {
    const failing = new FailingEmbedder(Infinity);
    const job = await new EmbeddingIndexer(store, failing, { maxAttempts: 2, retryDelayMs: 1 }).run();
    expect(job).toMatchObject({ status: 'failed', embedded: 0, planned: 1 });
    expect(job.error).toMatch(/model server unreachable/);
    expect(failing.calls).toBe(2);
    const events = (await recordsOfType(store.log, 'job.event')).map((e) => (e.data as { status: string }).status);
    expect(events).toEqual(['queued', 'running', 'failed']);
    expect(kw(store).search('rotate API keys', { namespaces: ['private'] })[0]?.key).toBe(mem('r1'));
    expect(vec(store).lane('text', 'broken-model')).toBeUndefined();
  });

  it('retries a failing batch and succeeds', async () => {
    const flaky = new FailingEmbedder(1);
    const job = await new EmbeddingIndexer(store, flaky, { retryDelayMs: 1 }).run();
    expect(job).toMatchObject({ status: 'succeeded', embedded: 1 });
    expect(vec(store).lane('text', 'broken-model')?.has(mem('r1'))).toBe(true);
  });

  it('is resumable: a second run embeds only what changed', async () => {
    const embedder = new HashedEmbedder(32);
    expect((await new EmbeddingIndexer(store, embedder).run()).embedded).toBe(1);
    expect((await new EmbeddingIndexer(store, embedder).run()).status).toBe('idle');
    await store.knowledge.writeMemories({ memories: [{ id: 'r2', kind: 'fact', text: 'New fact.' }] });
    expect((await new EmbeddingIndexer(store, embedder).run()).embedded).toBe(1);
    // a different model re-embeds everything for itself, by appending
    expect((await new EmbeddingIndexer(store, new HashedEmbedder(16)).run()).embedded).toBe(2);
    expect(vec(store).laneIds().sort()).toEqual(['text@hash-ngram-16', 'text@hash-ngram-32']);
  });

  it('runs in the background after writes, never making the write wait', async () => {
    const embedder = new HashedEmbedder(32);
    const indexer = new EmbeddingIndexer(store, embedder);
    indexer.start(10);
    await store.knowledge.writeMemories({ memories: [{ id: 'bg', kind: 'fact', text: 'Background indexing works.' }] });
    expect(vec(store).lane('text', embedder.id)?.has(mem('bg')) ?? false).toBe(false);
    for (let i = 0; i < 100 && !vec(store).lane('text', embedder.id)?.has(mem('bg')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(vec(store).lane('text', embedder.id)?.has(mem('bg'))).toBe(true);
    await indexer.stop();
  });
});
