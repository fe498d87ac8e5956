// npm run bench:footprint -- [--records 100000] [--dim 512] [--json]
// Where the memory of a library goes: a synthetic library (memories with terms, one in ten
// Chinese, and a synthetic vector each) is written to a LevelDB log once, then each default
// projection is built alone from it in a fresh runner, and the live heap (after a forced GC),
// external and array-buffer memory and RSS it adds are measured, with its rebuild rate. Then all
// of them together, as the service holds them. Says which part dominates. Needs --expose-gc
// (the npm script passes it).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultProjections, ProjectionRunner } from '../../projections/index.js';
import type { AppendInput } from '../../src/events/index.js';
import { openLog } from '../../src/log/index.js';
import { Synthetic, syntheticEmbedding } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    dim: { type: 'string', default: '512' },
    json: { type: 'boolean', default: false },
    // internal: measure one projection (or all) over an existing log, in a process of its own
    measure: { type: 'string' },
    dir: { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const DIM = Number(values.dim);
if (![RECORDS, DIM].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:footprint -- [--records N] [--dim D] [--json]\n');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write('bench:footprint needs node --expose-gc (use npm run bench:footprint)\n');
  process.exit(2);
}

interface Usage {
  heap_mb: number;
  external_mb: number;
  array_buffers_mb: number;
  rss_mb: number;
}
const mb = (n: number): number => Math.round(n / 1e5) / 10;
function usage(): Usage {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap_mb: mb(m.heapUsed), external_mb: mb(m.external), array_buffers_mb: mb(m.arrayBuffers), rss_mb: mb(m.rss) };
}
const minus = (a: Usage, b: Usage): Usage => ({
  heap_mb: Math.round((a.heap_mb - b.heap_mb) * 10) / 10,
  external_mb: Math.round((a.external_mb - b.external_mb) * 10) / 10,
  array_buffers_mb: Math.round((a.array_buffers_mb - b.array_buffers_mb) * 10) / 10,
  rss_mb: Math.round((a.rss_mb - b.rss_mb) * 10) / 10,
});

// One projection (or all) built over the log in this process: what it adds, and its rebuild rate.
if (values.measure !== undefined && values.dir !== undefined) {
  const log = await openLog(values.dir, { createIfMissing: false });
  const events = log.head().seq;
  const chosen = values.measure === 'all' ? defaultProjections() : defaultProjections().filter((p) => p.name === values.measure);
  const before = usage();
  const runner = new ProjectionRunner(log, chosen);
  const t = performance.now();
  // 'read': the log read and decoded with no projection, the baseline every other figure includes
  if (values.measure === 'read') for await (const _ of log.read());
  else await runner.open();
  const ms = performance.now() - t;
  const after = usage();
  process.stdout.write(`${JSON.stringify({ ...minus(after, before), rebuild_events_per_s: Math.round(events / (ms / 1000)), keep: runner.names().length })}\n`);
  await runner.close();
  await log.close();
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'kioku-bench-footprint-'));
const log = await openLog(dir);
const syn = new Synthetic();
const centers = syn.centers(200, DIM);
const BATCH = 1000;
for (let i = 0; i < RECORDS; i += BATCH) {
  const events: AppendInput[] = [];
  for (let j = i; j < Math.min(RECORDS, i + BATCH); j++)
    events.push({ type: 'memory.written', actor: 'bench', data: { id: `r${j}`, kind: 'fact', text: syn.text(j), terms: [syn.word(), syn.word()] } });
  for (let j = i; j < Math.min(RECORDS, i + BATCH); j++) events.push(syntheticEmbedding(j, syn.near(centers[j % centers.length] as Float32Array, 0.8)));
  await log.appendAll(events);
}
const events = log.head().seq;
await log.close();

type Measured = Usage & { rebuild_events_per_s: number };
const measure = (what: string): Measured => {
  const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1] as string, '--measure', what, '--dir', dir], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Measured;
};
const perProjection: Record<string, Measured> = {};
for (const name of defaultProjections().map((p) => p.name)) {
  perProjection[name] = measure(name);
  process.stderr.write(`  ${name}: heap +${perProjection[name]?.heap_mb} MB, rss +${perProjection[name]?.rss_mb} MB\n`);
}
const together = measure('all');
const baseline = measure('read');
rmSync(dir, { recursive: true, force: true });

// RSS counts native memory (the HNSW graphs) that the V8 heap does not
const ranked = Object.entries(perProjection).sort((a, b) => b[1].rss_mb - a[1].rss_mb);
const dominant = ranked[0]?.[0] ?? '';
const result = {
  bench: 'footprint',
  records: RECORDS,
  events,
  dim: DIM,
  per_projection: perProjection,
  all_projections: together,
  /** reading and decoding the log alone (included in every figure above: subtract it) */
  read_baseline: baseline,
  heap_bytes_per_record: Math.round((together.heap_mb * 1e6) / RECORDS),
  dominant,
  ranked: ranked.map(([name, u]) => `${name} rss +${Math.round(u.rss_mb)} MB (heap +${Math.round(u.heap_mb)} MB)`),
};
if (!values.json) {
  const lines = [`${RECORDS} records (${events} events, ${DIM}-d vectors): what each projection adds, built alone`];
  for (const [name, u] of ranked)
    lines.push(
      `  ${name.padEnd(10)} rss +${String(u.rss_mb).padStart(7)} MB  heap +${String(u.heap_mb).padStart(7)} MB  external +${String(u.external_mb).padStart(6)} MB  rebuild ${u.rebuild_events_per_s}/s`,
    );
  lines.push(
    `  reading the log alone: rss +${baseline.rss_mb} MB, heap +${baseline.heap_mb} MB, ${baseline.rebuild_events_per_s} events/s (in every figure above)`,
  );
  lines.push(
    `  all together: rss +${together.rss_mb} MB, heap +${together.heap_mb} MB, external +${together.external_mb} MB, rebuild ${together.rebuild_events_per_s}/s; dominant: ${dominant}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
