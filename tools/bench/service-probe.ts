// The library as a service holds it: a fresh process opens a data dir from its snapshots (the
// way `kioku serve` starts), loads the bundled model beside it, answers the given keyword and
// vector queries, and reports start-up, latency and memory: RSS, JS heap, external memory, and
// which part dominates (the model, the HNSW graphs, the JS heap, the rest). The benches that
// build a library in-process (bench:index, bench:recall) call probeService on it after closing
// it, so their memory figures are not inflated by the writes that built it.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UseLiteEmbedder } from '../../src/embed/index.js';
import { openKioku } from '../../src/kioku.js';
import { percentile } from './synthetic.js';

export interface ProbeSpec {
  data: string;
  model: boolean;
  keywordQueries?: string[];
  /** a file of little-endian float32 query vectors, `dim` each */
  vectorFile?: string;
  vectorLane?: { lane: string; model: string; dim: number; k: number };
}

export interface ProbeResult {
  /** process start → Kioku's modules loaded (compiled on the fly by tsx here; the bundled entries load faster) */
  importMs: number;
  /** process start → projections loaded and caught up (reads can be answered) */
  readyMs: number;
  /** events past the oldest snapshot that the open replayed */
  replayed: number;
  /** the store's open alone: snapshots loaded, the log's tail replayed (reads answered; the HNSW graphs may still be reading) */
  openMs: number;
  /** the store's open until the HNSW graphs are read and caught up too (what a turn's dense search waits for) */
  vectorsReadyMs: number;
  /** process start → the model (loaded once the store is ready, as the first turn does) answered its first query */
  modelReadyMs: number | null;
  rssMB: number;
  heapUsedMB: number;
  heapTotalMB: number;
  externalMB: number;
  arrayBuffersMB: number;
  /** estimated resident parts; `dominant` is the largest */
  parts: { model_mb: number; hnsw_mb: number; js_heap_mb: number; other_mb: number };
  dominant: string;
  keywordMs?: { p50: number; p99: number };
  vectorMs?: { p50: number; p99: number };
  /** top-10 keys per vector query, for recall against exact search */
  vectorTop10?: string[][];
}

const mb = (n: number): number => Math.round(n / 1e5) / 10;

/** Size of the HNSW files of the current vector snapshot (hnswlib holds them in native memory much as stored). */
export function hnswBytes(data: string): number {
  const dir = join(data, 'projections', 'vector');
  let total = 0;
  try {
    for (const entry of readdirSync(dir)) {
      if (!entry.startsWith('files-')) continue;
      for (const f of readdirSync(join(dir, entry))) total += statSync(join(dir, entry, f)).size;
    }
  } catch {
    return 0;
  }
  return total;
}

/** The table rows both footprint benches print for a probed service. */
export function serviceRows(service: Omit<ProbeResult, 'vectorTop10'> & { openMsRuns: number[] }): [string, string][] {
  const p = service.parts;
  return [
    ['service: open ms (3 runs) / ready from process start', `${service.openMsRuns.join(', ')} / ${service.readyMs}`],
    ['service: open until the HNSW graphs are read too, ms', String(service.vectorsReadyMs)],
    ['service: model ready ms from process start', String(service.modelReadyMs ?? 'no model')],
    ['service: RSS MB / JS heap used, total / external', `${service.rssMB} / ${service.heapUsedMB}, ${service.heapTotalMB} / ${service.externalMB}`],
    ['service: parts MB (model, hnsw, js heap, other)', `${p.model_mb}, ${p.hnsw_mb}, ${p.js_heap_mb}, ${p.other_mb} → ${service.dominant}`],
  ];
}

/** On-disk size of a data dir's log and snapshots, in MB (`du -sb`). */
export function diskUsage(data: string): { logMB: number; projectionsMB: number } {
  const du = (p: string): number => {
    try {
      return Number(execFileSync('du', ['-sb', p]).toString().split(/\s/)[0]);
    } catch {
      return 0;
    }
  };
  return { logMB: mb(du(join(data, 'log'))), projectionsMB: mb(du(join(data, 'projections'))) };
}

/** Run the probe in a fresh process (`runs` times) and keep the run with the median open time. */
export function probeService(spec: ProbeSpec, runs = 3): { median: ProbeResult; openMs: number[] } {
  const specFile = join(spec.data, 'probe-spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const results: ProbeResult[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--spec', specFile], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    results.push(JSON.parse(out.trim().split('\n').at(-1) as string) as ProbeResult);
  }
  const sorted = [...results].sort((a, b) => a.openMs - b.openMs);
  return { median: sorted[Math.floor(sorted.length / 2)] as ProbeResult, openMs: results.map((r) => r.openMs) };
}

async function probe(spec: ProbeSpec): Promise<ProbeResult> {
  // performance.now() counts from the process's start: module loading (under tsx here) is in it
  const sinceStart = (): number => Math.round(performance.now());
  const importMs = sinceStart();
  const t = performance.now();
  // as `kioku serve` opens it: ready for reads while the HNSW graphs finish reading (restoreFilesInBackground)
  const store = await openKioku({ data: spec.data, restoreFilesInBackground: true });
  const openMs = Math.round(performance.now() - t);
  const readyMs = sinceStart();
  await store.projections.restored();
  const vectorsReadyMs = Math.round(performance.now() - t);
  const head = store.log.head().seq;
  const replayed = Math.max(0, ...store.projections.status().map((p) => head - p.snapshot_seq));
  // then the model, as the first turn that needs a query vector loads it: its own resident size is the difference
  let modelDelta = 0;
  let modelReadyMs: number | null = null;
  let embedder: UseLiteEmbedder | undefined;
  if (spec.model) {
    const before = process.memoryUsage().rss;
    embedder = new UseLiteEmbedder();
    await embedder.init();
    await embedder.embed(['how do we roll back a release?']);
    modelReadyMs = sinceStart();
    modelDelta = process.memoryUsage().rss - before;
  }

  const result: Partial<ProbeResult> = {};
  if (spec.keywordQueries?.length) {
    const lat: number[] = [];
    for (const q of spec.keywordQueries) {
      const s = performance.now();
      store.projections.views.keyword.search(q, { namespaces: ['private'], limit: 50 });
      lat.push(performance.now() - s);
    }
    result.keywordMs = { p50: percentile(lat, 0.5), p99: percentile(lat, 0.99) };
  }
  if (spec.vectorFile && spec.vectorLane) {
    const { lane, model, dim, k } = spec.vectorLane;
    const bytes = readFileSync(spec.vectorFile);
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const lat: number[] = [];
    const top: string[][] = [];
    for (let i = 0; i + dim <= all.length; i += dim) {
      const q = all.subarray(i, i + dim);
      const s = performance.now();
      const hits = store.projections.views.vector.search(q, { lane, model, k, namespaces: ['private'] });
      lat.push(performance.now() - s);
      top.push(hits.slice(0, 10).map((h) => h.key));
    }
    result.vectorMs = { p50: percentile(lat, 0.5), p99: percentile(lat, 0.99) };
    result.vectorTop10 = top;
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  const hnsw = hnswBytes(spec.data);
  const parts = {
    model_mb: mb(modelDelta),
    hnsw_mb: mb(hnsw),
    js_heap_mb: mb(m.heapUsed),
    other_mb: mb(Math.max(0, m.rss - modelDelta - hnsw - m.heapUsed)),
  };
  const dominant = (Object.entries(parts).sort((a, b) => b[1] - a[1])[0] as [string, number])[0].replace(/_mb$/, '');
  await store.close();
  await embedder?.close();
  return {
    importMs,
    replayed,
    readyMs,
    openMs,
    vectorsReadyMs,
    modelReadyMs,
    rssMB: mb(m.rss),
    heapUsedMB: mb(m.heapUsed),
    heapTotalMB: mb(m.heapTotal),
    externalMB: mb(m.external),
    arrayBuffersMB: mb(m.arrayBuffers),
    parts,
    dominant,
    ...result,
  };
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { spec: { type: 'string' } } });
  const spec = JSON.parse(readFileSync(values.spec as string, 'utf8')) as ProbeSpec;
  process.stdout.write(`${JSON.stringify(await probe(spec))}\n`);
  process.exit(0);
}
