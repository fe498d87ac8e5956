// npm run bench:index -- --records 100000 [--vectors N] [--queries N] [--json] [--data DIR] [--no-model]
// Write rate, keyword and vector query latency, HNSW recall@10 against exact search,
// exact-scan cost by size, the bundled model's embedding rate (on a sample), on-disk size,
// and the library as the service holds it: a fresh process (three runs) opens it from its
// snapshots with the bundled model loaded beside it, answers the same queries, and reports
// start-up, RSS, heap, external memory and which part dominates (tools/bench/service-probe.ts).
// Vectors are synthetic and clustered (embedding 100k texts with the bundled model takes many
// minutes; its rate is measured on a sample instead). --records 1000000 runs in well under an
// hour on these machines (HNSW inserts are most of it). Prints a table, then one JSON object.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import hnswlib from 'hnswlib-node';
import { HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M } from '../../projections/vector/lane.js';
import { UseLiteEmbedder, embedDocuments } from '../../src/embed/index.js';
import type { AppendInput } from '../../src/events/index.js';
import { openKioku } from '../../src/kioku.js';
import { Knowledge } from '../../src/knowledge/index.js';
import { diskUsage, probeService, serviceRows } from './service-probe.js';
import { Synthetic, percentile, syntheticEmbedding } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    vectors: { type: 'string' },
    dim: { type: 'string', default: '512' },
    queries: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    'no-model': { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const VECTORS = Number(values.vectors ?? RECORDS);
const DIM = Number(values.dim);
// exact search for recall@10 scans every vector per query: fewer queries at a million
const QUERIES = Number(values.queries ?? (VECTORS >= 500_000 ? 50 : 200));
if (![RECORDS, VECTORS, DIM, QUERIES].every((n) => Number.isSafeInteger(n) && n > 0) || VECTORS > RECORDS) {
  process.stderr.write('usage: bench:index -- --records N [--vectors N ≤ records] [--queries N] [--dim D] [--data DIR] [--json] [--no-model]\n');
  process.exit(2);
}
const keep = values.data !== undefined;
const dataDir = keep ? resolve(values.data as string) : mkdtempSync(join(tmpdir(), 'kioku-bench-index-'));
if (keep) for (const d of ['log', 'log.acked', 'projections']) rmSync(join(dataDir, d), { recursive: true, force: true });

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
// one block for all vectors (kept for exact search): 2 GB at a million × 512, no per-vector objects
const allVectors = new Float32Array(VECTORS * DIM);
const vectorAt = (i: number): Float32Array => allVectors.subarray(i * DIM, (i + 1) * DIM);
t = performance.now();
for (let i = 0; i < VECTORS; i += BATCH) {
  const events: AppendInput[] = [];
  for (let j = i; j < Math.min(VECTORS, i + BATCH); j++) {
    const v = noisy(centers[j % CLUSTERS] as Float32Array, 0.8);
    allVectors.set(v, j * DIM);
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
const keywordQueries = Array.from({ length: 1000 }, (_, q) => Array.from({ length: 2 + (q % 3) }, word).join(' '));
for (const query of keywordQueries) {
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
/** The k best of the first n vectors by exact cosine (unit vectors: dot), best first; a bounded insertion list, no array of n pairs. */
const exactTop = (q: Float32Array, n: number, k: number): number[] => {
  const best: { s: number; i: number }[] = [];
  for (let i = 0; i < n; i++) {
    const s = dot(q, vectorAt(i));
    if (best.length === k && s <= (best[k - 1] as { s: number }).s) continue;
    let at = best.length;
    while (at > 0 && (best[at - 1] as { s: number }).s < s) at -= 1;
    best.splice(at, 0, { s, i });
    if (best.length > k) best.pop();
  }
  return best.map((b) => b.i);
};
const vectorQueries = Array.from({ length: QUERIES }, (_, q) => noisy(centers[(q * 7) % CLUSTERS] as Float32Array, 0.9));
const exactTop10 = vectorQueries.map((qv) => exactTop(qv, VECTORS, 10));
const recordOf = (key: string): number => Number(key.slice(key.lastIndexOf(':r') + 2));
/** recall@10 of top-10 key lists against exact search */
const recallAt10 = (tops: string[][]): number => {
  let hits = 0;
  tops.forEach((keys, q) => {
    const got = new Set(keys.map(recordOf));
    for (const i of exactTop10[q] as number[]) if (got.has(i)) hits += 1;
  });
  return Math.round((hits / (tops.length * 10)) * 1000) / 1000;
};
const vecLat: number[] = [];
const inProcessTop10: string[][] = [];
for (const qv of vectorQueries) {
  const s = performance.now();
  const res = vector.search(qv, { lane: 'text', model: 'synthetic', k: 50, namespaces: ['private'] });
  vecLat.push(performance.now() - s);
  inProcessTop10.push(res.slice(0, 10).map((h) => h.key));
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
    for (let i = 0; i < n; i++) idx.addPoint(Array.from(vectorAt(i)), i);
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
const disk = diskUsage(dataDir);

// ---- 7. the library as the service holds it: a fresh process, from snapshots, the model beside it ----
const queryFile = join(dataDir, 'bench-vector-queries.f32');
writeFileSync(queryFile, new Uint8Array(Float32Array.from(vectorQueries.flatMap((v) => [...v])).buffer));
log('  measuring the service: a fresh process opens the library from its snapshots (3 runs)');
const probed = probeService({
  data: dataDir,
  model: !values['no-model'],
  keywordQueries,
  vectorFile: queryFile,
  vectorLane: { lane: 'text', model: 'synthetic', dim: DIM, k: 50 },
});
const { vectorTop10, ...serviceFigures } = probed.median;
const service = { ...serviceFigures, openMsRuns: probed.openMs, hnswRecallAt10: recallAt10(vectorTop10 ?? []) };
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
  queries: QUERIES,
  hnswRecallAt10: recallAt10(inProcessTop10),
  hnsw: { m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, efSearch: HNSW_EF_SEARCH },
  exactVsHnswBySize: bySize,
  model,
  /** the bench process itself, after writing the library (write garbage, the bench's own copy of every vector) */
  rssMB: { loaded: rssLoaded, peak: peakRss },
  heapMB,
  disk,
  closeWithSnapshotsMs: Math.round(closeMs),
  /** a fresh process opening the library (median of 3): the figures the service has */
  service,
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
  ['bench process RSS MB after writing / peak', `${rssLoaded} / ${peakRss}`],
  ['disk MB log / projections', `${disk.logMB} / ${disk.projectionsMB}`],
  ['close (snapshots) ms', String(result.closeWithSnapshotsMs)],
  ...serviceRows(service),
  ['service: keyword ms p50 / p99', `${service.keywordMs?.p50} / ${service.keywordMs?.p99}`],
  ['service: vector ms p50 / p99, recall@10', `${service.vectorMs?.p50} / ${service.vectorMs?.p99}, ${service.hnswRecallAt10}`],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(52)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
