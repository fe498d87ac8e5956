// The exact scan that stands in for hnswlib-node when its addon is not built (projections/vector/
// graph.ts): the same neighbours and cosine scores as hnswlib on a small set, its own file format,
// and a whole service that recalls through the vector lane with KIOKU_VECTOR_INDEX=exact.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { expect, it } from 'vitest';
import { ExactIndex } from '../projections/vector/exact-index.js';
import { REPO, tempDir } from './helpers.js';

function points(n: number, dim: number, seed = 7): number[][] {
  let s = seed;
  const rand = (): number => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  return Array.from({ length: n }, () => Array.from({ length: dim }, rand));
}

it('finds the neighbours hnswlib finds, with the same cosine distances, filter and deletions included', () => {
  const dim = 16;
  const data = points(300, dim);
  const exact = new ExactIndex('cosine', dim);
  exact.initIndex({ maxElements: 100 });
  const hnsw = new hnswlib.HierarchicalNSW('cosine', dim);
  hnsw.initIndex({ maxElements: 300, m: 16, efConstruction: 200, randomSeed: 100 });
  hnsw.setEf(300); // at this size a full-breadth walk is exact: a fair reference
  exact.resizeIndex(300);
  data.forEach((p, label) => {
    exact.addPoint(p, label);
    hnsw.addPoint(p, label);
  });
  for (const label of [3, 50, 51]) {
    exact.markDelete(label);
    hnsw.markDelete(label);
  }
  const even = (label: number): boolean => label % 2 === 0;
  for (const q of points(10, dim, 99)) {
    for (const filter of [undefined, even]) {
      const a = exact.searchKnn(q, 10, filter);
      const b = hnsw.searchKnn(q, 10, filter);
      expect(a.neighbors).toEqual(b.neighbors);
      a.distances.forEach((d, i) => expect(d).toBeCloseTo(b.distances[i] as number, 5));
    }
  }
  expect(exact.getPoint(7).map((x) => Math.round(x * 1e5))).toEqual(hnsw.getPoint(7).map((x) => Math.round(x * 1e5)));
});

it('writes and reads its own file, and refuses an hnswlib file', async () => {
  const dir = tempDir('kioku-exact-');
  try {
    const index = new ExactIndex('cosine', 4);
    index.initIndex({ maxElements: 8 });
    points(5, 4).forEach((p, label) => index.addPoint(p, label));
    index.markDelete(2);
    index.writeIndexSync(join(dir.path, 'a.exact'));
    const again = new ExactIndex('cosine', 4);
    await again.readIndex(join(dir.path, 'a.exact'));
    const q = [0.3, -0.2, 0.9, 0.1];
    expect(again.searchKnn(q, 5)).toEqual(index.searchKnn(q, 5));
    expect(again.searchKnn(q, 5).neighbors).not.toContain(2);
    const hnsw = new hnswlib.HierarchicalNSW('cosine', 4);
    hnsw.initIndex({ maxElements: 8 });
    hnsw.addPoint([1, 0, 0, 0], 0);
    hnsw.writeIndexSync(join(dir.path, 'b.hnsw'));
    await expect(new ExactIndex('cosine', 4).readIndex(join(dir.path, 'b.hnsw'))).rejects.toThrow(/not an exact vector index/);
  } finally {
    dir.cleanup();
  }
});

it('with KIOKU_VECTOR_INDEX=exact a library recalls through the vector lane on the exact scan, from its snapshot too', () => {
  const dir = tempDir('kioku-exact-cli-');
  try {
    const script = `
      import { VECTOR_INDEX } from '${join(REPO, 'projections/index.ts')}';
      import { openKioku } from '${join(REPO, 'src/kioku.ts')}';
      import { HashedEmbedder } from '${join(REPO, 'src/embed/index.ts')}';
      import { EmbeddingIndexer } from '${join(REPO, 'src/indexer/embedding-job.ts')}';
      const embedder = new HashedEmbedder(64);
      let store = await openKioku({ data: ${JSON.stringify(dir.path)}, embedder });
      await store.writeMemories({ memories: [{ id: 'rollback', kind: 'procedure', text: 'Roll back a release with scripts/rollback.sh.' }, { id: 'cake', kind: 'fact', text: 'The office cake needs eggs.' }] });
      await new EmbeddingIndexer(store.store, embedder).run();
      await store.close();
      store = await openKioku({ data: ${JSON.stringify(dir.path)}, embedder }); // the lane back from its snapshot
      const p = await store.recall({ query: 'roll back a release' });
      console.log(JSON.stringify({ index: VECTOR_INDEX, mode: p.retrieval_mode, first: p.records[0]?.evidence_key, source: store.projections.status().find((s) => s.name === 'vector')?.source }));
      await store.close();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KIOKU_VECTOR_INDEX: 'exact' },
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1) as string)).toEqual({
      index: { kind: 'exact', reason: 'KIOKU_VECTOR_INDEX=exact' },
      mode: 'hybrid',
      first: 'ev1:private:memory:rollback',
      source: 'snapshot',
    });
  } finally {
    dir.cleanup();
  }
}, 60_000);
