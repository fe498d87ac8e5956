// npm run bench:index -- --records 100000 [--vectors N] [--json] [--data DIR] [--no-model]
// Write rate, keyword and vector query latency, HNSW recall@10 against exact search,
// exact-scan cost by size, the bundled model's embedding rate (on a sample), RSS,
// on-disk size and start-up time with snapshots. Vectors are synthetic and clustered
// (embedding 100k texts with the bundled model takes many minutes; its rate is
// measured on a sample instead). Prints a table, then one JSON object.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import hnswlib from 'hnswlib-node';
import { HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M } from '../../projections/vector/lane.js';
import { UseLiteEmbedder, embedDocuments } from '../../src/embed/index.js';
import type { AppendInput } from '../../src/events/index.js';
import { openKioku } from '../../src/kioku.js';
import { Knowledge } from '../../src/knowledge/index.js';
import { Synthetic, percentile, syntheticEmbedding } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    vectors: { type: 'string' },
    dim: { type: 'string', default: '512' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    'no-model': { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const VECTORS = Number(values.vectors ?? RECORDS);
const DIM = Number(values.dim);
if (![RECORDS, VECTORS, DIM].every((n) => Number.isSafeInteger(n) && n > 0) || VECTORS > RECORDS) {
  process.stderr.write('usage: bench:index -- --records N [--vectors N ≤ records] [--dim D] [--data DIR] [--json] [--no-model]\n');
  process.exit(2);
}
const keep = values.data !== undefined;
const dataDir = keep ? resolve(values.data as string) : mkdtempSync(join(tmpdir(), 'kioku-bench-index-'));
if (keep) for (const d of ['log', 'projections']) rmSync(join(dataDir, d), { recursive: true, force: true });

const syn = new Synthetic();
const rand = (): number => syn.rand();
const word = (): string => syn.word();
const text = (i: number): string => syn.text(i);
const CJK = syn.cjk;
const pct = percentile;
const median = (xs: number[]): number => pct(xs, 0.5);
const rss = (): number => Math.round(process.memoryUsage().rss / 1e6);
const log = (msg: string): void => void process.stderr.write(`${msg}\n`);
let peakRss = rss();
const sample = setInterval(() => (peakRss = Math.max(peakRss, rss())), 200);

// ---- 1. writes ----
const store = await openKioku({ data: dataDir });
const knowledge = new Knowledge(store, 'bench');
let t = performance.now();
const BATCH = 500;
for (let i = 0; i < RECORDS; i += BATCH) {
  await knowledge.writeMemories({
    memories: Array.from({ length: Math.min(BATCH, RECORDS - i) }, (_, j) => ({
      id: `r${i + j}`,
      kind: 'fact' as const,
      text: text(i + j),
      terms: [word(), word()],
    })),
  });
  if ((i / BATCH) % 40 === 0) log(`  wrote ${i + BATCH}/${RECORDS}`);
}
const writeMs = performance.now() - t;

// ---- 2. vectors: clustered synthetic, appended as embedding.computed events ----
const CLUSTERS = 200;
const centers = syn.centers(CLUSTERS, DIM);
const noisy = (c: Float32Array, amount: number): Float32Array => syn.near(c, amount);
const vectors: Float32Array[] = [];
t = performance.now();
for (let i = 0; i < VECTORS; i += BATCH) {
  const events: AppendInput[] = [];
  for (let j = i; j < Math.min(VECTORS, i + BATCH); j++) {
    const v = noisy(centers[j % CLUSTERS] as Float32Array, 0.8);
    vectors.push(v);
    events.push(syntheticEmbedding(j, v));
  }
  const appended = await store.log.appendAll(events);
  await store.projections.waitFor(appended.at(-1)?.seq ?? 0);
  if ((i / BATCH) % 40 === 0) log(`  indexed ${i + BATCH}/${VECTORS} vectors`);
}
const vectorMs = performance.now() - t;

// ---- 3. keyword queries ----
const keyword = store.projections.views.keyword;
const kwLat: number[] = [];
for (let q = 0; q < 1000; q++) {
  const query = Array.from({ length: 2 + (q % 3) }, word).join(' ');
  const s = performance.now();
  keyword.search(query, { namespaces: ['private'], limit: 50 });
  kwLat.push(performance.now() - s);
}
const cjkLat: number[] = [];
for (let q = 0; q < 200; q++) {
  const query = Array.from({ length: 8 }, () => CJK[Math.floor(rand() * CJK.length)]).join('');
  const s = performance.now();
  keyword.search(query, { namespaces: ['private'], limit: 50 });
  cjkLat.push(performance.now() - s);
}

// ---- 4. vector queries and recall against exact ----
const vector = store.projections.views.vector;
const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};
const exactTop = (q: Float32Array, n: number, k: number): number[] => {
  const scored: [number, number][] = [];
  for (let i = 0; i < n; i++) scored.push([dot(q, vectors[i] as Float32Array), i]);
  scored.sort((a, b) => b[0] - a[0]);
  return scored.slice(0, k).map((s) => s[1]);
};
const vecLat: number[] = [];
let hits = 0;
let total = 0;
const QUERIES = 200;
for (let q = 0; q < QUERIES; q++) {
  const qv = noisy(centers[(q * 7) % CLUSTERS] as Float32Array, 0.9);
  const s = performance.now();
  const res = vector.search(qv, { lane: 'text', model: 'synthetic', k: 50, namespaces: ['private'] });
  vecLat.push(performance.now() - s);
  const got = new Set(res.slice(0, 10).map((h) => Number(h.key.slice(h.key.lastIndexOf(':r') + 2))));
  for (const i of exactTop(qv, VECTORS, 10)) if (got.has(i)) hits += 1;
  total += 10;
}

// ---- 5. exact scan vs HNSW by size: is a plain scan faster below some size? ----
const bySize: { n: number; exactMs: number; hnswMs: number }[] = [];
for (const n of [1_000, 5_000, 20_000, VECTORS].filter((n, i, a) => n <= VECTORS && a.indexOf(n) === i)) {
  const exact: number[] = [];
  for (let q = 0; q < 20; q++) {
    const qv = noisy(centers[q % CLUSTERS] as Float32Array, 0.9);
    const s = performance.now();
    exactTop(qv, n, 50);
    exact.push(performance.now() - s);
  }
  let hnswMs = median(vecLat);
  if (n !== VECTORS) {
    const idx = new hnswlib.HierarchicalNSW('cosine', DIM);
    idx.initIndex({ maxElements: n, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: 100 });
    for (let i = 0; i < n; i++) idx.addPoint(Array.from(vectors[i] as Float32Array), i);
    idx.setEf(HNSW_EF_SEARCH);
    const lat: number[] = [];
    for (let q = 0; q < 50; q++) {
      const qv = Array.from(noisy(centers[q % CLUSTERS] as Float32Array, 0.9));
      const s = performance.now();
      idx.searchKnn(qv, 50);
      lat.push(performance.now() - s);
    }
    hnswMs = median(lat);
  }
  bySize.push({ n, exactMs: median(exact), hnswMs });
}

// ---- 6. the bundled model on a sample ----
let model: { id: string; docsPerSec: number; queryMs: number; loadMs: number } | null = null;
if (!values['no-model']) {
  const embedder = new UseLiteEmbedder();
  let s = performance.now();
  await embedder.init();
  const loadMs = performance.now() - s;
  const docs = Array.from(
    { length: 96 },
    (_, i) => `Release ${i}: to revert a deploy run the rollback script and re-apply the ${i % 7} migrations by hand, then tell the on-call team.`,
  );
  s = performance.now();
  await embedDocuments(embedder, docs);
  const docsPerSec = docs.length / ((performance.now() - s) / 1000);
  const q: number[] = [];
  for (let i = 0; i < 20; i++) {
    s = performance.now();
    await embedder.embed([`how do I roll back release ${i}?`]);
    q.push(performance.now() - s);
  }
  await embedder.close();
  model = { id: embedder.id, docsPerSec: Math.round(docsPerSec), queryMs: median(q), loadMs: Math.round(loadMs) };
}

// a forced GC (the npm script passes --expose-gc) so the heap figure is live data, not garbage
(globalThis as { gc?: () => void }).gc?.();
const rssLoaded = rss();
const mem = process.memoryUsage();
const heapMB = {
  used: Math.round(mem.heapUsed / 1e6),
  total: Math.round(mem.heapTotal / 1e6),
  external: Math.round(mem.external / 1e6),
  arrayBuffers: Math.round(mem.arrayBuffers / 1e6),
};
const events = store.log.head().seq;
t = performance.now();
await store.close(); // writes every snapshot, including the HNSW files
const closeMs = performance.now() - t;
const du = (p: string): number => {
  try {
    return Number(execFileSync('du', ['-sb', p]).toString().split(/\s/)[0]);
  } catch {
    return 0;
  }
};
const disk = { logMB: Math.round(du(join(dataDir, 'log')) / 1e5) / 10, projectionsMB: Math.round(du(join(dataDir, 'projections')) / 1e5) / 10 };

// ---- 7. start-up with snapshots ----
t = performance.now();
const reopened = await openKioku({ data: dataDir });
const startupMs = performance.now() - t;
const sources = Object.fromEntries(reopened.projections.status().map((s) => [s.name, s.source]));
await reopened.close();
clearInterval(sample);
if (!keep) rmSync(dataDir, { recursive: true, force: true });

const result = {
  bench: 'index',
  records: RECORDS,
  vectors: VECTORS,
  dim: DIM,
  events,
  writePerSec: Math.round(RECORDS / (writeMs / 1000)),
  vectorInsertPerSec: Math.round(VECTORS / (vectorMs / 1000)),
  keywordMs: { p50: median(kwLat), p99: pct(kwLat, 0.99), cjkP50: median(cjkLat), cjkP99: pct(cjkLat, 0.99) },
  vectorMs: { k: 50, p50: median(vecLat), p99: pct(vecLat, 0.99) },
  hnswRecallAt10: Math.round((hits / total) * 1000) / 1000,
  hnsw: { m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, efSearch: HNSW_EF_SEARCH },
  exactVsHnswBySize: bySize,
  model,
  rssMB: { loaded: rssLoaded, peak: peakRss },
  heapMB,
  disk,
  closeWithSnapshotsMs: Math.round(closeMs),
  startupWithSnapshotsMs: Math.round(startupMs),
  startupSources: sources,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
};
const rows: [string, string][] = [
  ['records / vectors / dim', `${RECORDS} / ${VECTORS} / ${DIM}`],
  ['memory writes/s (batches of 500, all projections)', String(result.writePerSec)],
  ['vector inserts/s (embedding events → HNSW)', String(result.vectorInsertPerSec)],
  ['keyword query ms p50 / p99 (Latin)', `${result.keywordMs.p50} / ${result.keywordMs.p99}`],
  ['keyword query ms p50 / p99 (CJK)', `${result.keywordMs.cjkP50} / ${result.keywordMs.cjkP99}`],
  ['vector query ms p50 / p99 (k=50)', `${result.vectorMs.p50} / ${result.vectorMs.p99}`],
  ['HNSW recall@10 vs exact', String(result.hnswRecallAt10)],
  ...bySize.map((b): [string, string] => [`exact scan vs HNSW ms at ${b.n}`, `${b.exactMs} vs ${b.hnswMs}`]),
  ['model docs/s, query ms, load ms', model ? `${model.docsPerSec}, ${model.queryMs}, ${model.loadMs}` : 'skipped'],
  ['RSS MB loaded / peak', `${rssLoaded} / ${peakRss}`],
  ['JS heap used / total, external, array buffers (MB)', `${heapMB.used} / ${heapMB.total}, ${heapMB.external}, ${heapMB.arrayBuffers}`],
  ['disk MB log / projections', `${disk.logMB} / ${disk.projectionsMB}`],
  ['close (snapshots) ms / start-up ms', `${result.closeWithSnapshotsMs} / ${result.startupWithSnapshotsMs}`],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(52)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
