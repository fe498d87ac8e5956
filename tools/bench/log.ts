// npm run bench:log -- --events 100000 [--json] [--data DIR] [--serial N] [--writers 64]
// npm run bench:log -- --data DIR --rebuild-only [--json]: the rebuild figures alone, on the log a run with --data DIR kept (no appends, no verify)
// npm run bench:log -- --sealing [--events N] [--rounds 3] [--postgres [--url ADMIN_URL]] [--json]: sealing on and off (log-sealing.ts)
// Durable append throughput (serial and concurrent), verify and rebuild speed, bytes per event.
// Prints a human table, then (with --json) one JSON object as the last line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchEvent } from './event-mix.js';
import { openKioku } from '../../src/kioku.js';
import { openLevelStore, openLog, verifyChain } from '../../src/log/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    serial: { type: 'string' },
    writers: { type: 'string', default: '64' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    sealing: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    postgres: { type: 'boolean', default: false },
    url: { type: 'string' },
    'rebuild-only': { type: 'boolean', default: false },
  },
});
const events = Number(values.events);
const serial = Number(values.serial ?? Math.min(events, 5000));
const writers = Number(values.writers);
if (![events, serial, writers].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:log -- --events N [--serial N] [--writers N] [--data DIR] [--json]\n');
  process.exit(2);
}
if (values.sealing) {
  const { sealingBench } = await import('./log-sealing.js');
  await sealingBench({ events, serial, writers, rounds: Number(values.rounds), json: values.json, ...(values.postgres ? { postgres: { url: values.url } } : {}) });
  process.exit(0);
}
const keep = values.data !== undefined;
// --rebuild-only: the kept log is folded again, nothing appended (alternating trees on one log is how
// a rebuild change is measured on a loaded machine: the appends take most of a run)
const rebuildOnly = values['rebuild-only'];
if (rebuildOnly && !keep) {
  process.stderr.write('bench:log: --rebuild-only folds the log a run with --data DIR kept: name that DIR\n');
  process.exit(2);
}
const dataDir = keep ? resolve(values.data as string) : mkdtempSync(join(tmpdir(), 'kioku-bench-'));
if (keep && !rebuildOnly) for (const d of ['log', 'log.acked']) rmSync(join(dataDir, d), { recursive: true, force: true });
rmSync(join(dataDir, 'projections'), { recursive: true, force: true });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const rate = (n: number, ms: number): number => Math.round((n / ms) * 1000);

const log = await openLog(dataDir);
let t = performance.now();
let serialPerSec: number | null = null;
let concurrentPerSec: number | null = null;
let batches = 0;
if (!rebuildOnly) {
  for (let i = 0; i < serial; i++) await log.append(benchEvent(i));
  serialPerSec = rate(serial, performance.now() - t);

  let next = serial;
  const end = serial + events;
  log.onCommit(() => batches++);
  t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < end) await log.append(benchEvent(next++));
    }),
  );
  concurrentPerSec = rate(events, performance.now() - t);
}
const total = log.head().seq;
await log.close();

// Verify five runs and rebuild three, median (2-core machines are noisy).
const db = await openLevelStore(dataDir, { createIfMissing: false });
const verifyRuns: { perSec: number; mbPerSec: number; bytes: number; ok: boolean }[] = [];
for (let r = 0; r < (rebuildOnly ? 0 : 5); r++) {
  t = performance.now();
  const report = await verifyChain(db);
  const ms = performance.now() - t;
  verifyRuns.push({ perSec: rate(report.checked, ms), mbPerSec: report.bytes / 1e6 / (ms / 1000), bytes: report.bytes, ok: report.ok });
}
await db.close();

const store = await openKioku({ data: dataDir });
// the log's own projection (stats) three times, then every default projection once
const rebuildRates: number[] = [];
for (let r = 0; r < 3; r++) {
  t = performance.now();
  await store.projections.rebuild(['stats']);
  rebuildRates.push(rate(total, performance.now() - t));
}
t = performance.now();
await store.projections.rebuild();
const rebuildAllPerSec = rate(total, performance.now() - t);
// What the entity graph costs a rebuild (issue 35): every projection and every one but the graph, in
// turn three times, medians. Both after the first rebuild above, which paid the fold worker's start
// and this thread's cold code (measured after it, the graph alone seemed to cost a third).
const warm: { all: number[]; withoutGraph: number[] } = { all: [], withoutGraph: [] };
for (let r = 0; r < 3; r++) {
  t = performance.now();
  await store.projections.rebuild(store.projections.names().filter((n) => n !== 'graph'));
  warm.withoutGraph.push(rate(total, performance.now() - t));
  t = performance.now();
  await store.projections.rebuild();
  warm.all.push(rate(total, performance.now() - t));
}
const rebuildAllWarmPerSec = median(warm.all);
const rebuildWithoutGraphPerSec = median(warm.withoutGraph);
await store.close();
// the same on one thread (no fold worker), beside it: what the worker adds on this machine
const oneThread = await openKioku({ data: dataDir, foldOnWorkerFrom: Infinity });
t = performance.now();
await oneThread.projections.rebuild();
const rebuildAllOneThreadPerSec = rate(total, performance.now() - t);
await oneThread.close();

let diskBytes = 0;
try {
  diskBytes = Number(
    execFileSync('du', ['-sb', join(dataDir, 'log')])
      .toString()
      .split(/\s/)[0],
  );
} catch {
  diskBytes = 0;
}
if (!keep) rmSync(dataDir, { recursive: true, force: true });

const result = {
  bench: 'log',
  events: total,
  writers,
  appendPerSec: { serial: serialPerSec, concurrent: concurrentPerSec },
  serialEvents: serial,
  eventsPerBatch: rebuildOnly ? null : Math.round((events / Math.max(batches, 1)) * 10) / 10,
  verifyPerSec: rebuildOnly ? null : median(verifyRuns.map((v) => v.perSec)),
  verifyMBPerSec: rebuildOnly ? null : Math.round(median(verifyRuns.map((v) => v.mbPerSec)) * 10) / 10,
  verifyOk: rebuildOnly ? null : verifyRuns.every((v) => v.ok),
  /** the warm figures' ratio: what the entity graph costs a rebuild (issue 35's goal: at least 0.9) */
  graphRatio: Math.round((rebuildAllWarmPerSec / rebuildWithoutGraphPerSec) * 1000) / 1000,
  rebuildOnly,
  rebuildPerSec: median(rebuildRates),
  rebuildAllPerSec,
  rebuildAllOneThreadPerSec,
  rebuildAllWarmPerSec,
  rebuildWithoutGraphPerSec,
  projections: store.projections.names(),
  bytesPerEvent: rebuildOnly ? null : Math.round((verifyRuns[0]?.bytes ?? 0) / total),
  diskBytesPerEvent: diskBytes ? Math.round(diskBytes / total) : null,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  data: keep ? dataDir : null,
};

const rows: [string, string][] = [
  ['events', String(result.events)],
  [`append/s serial (1 awaited, ${serial} events)`, String(result.appendPerSec.serial)],
  [`append/s ${writers} concurrent writers`, String(result.appendPerSec.concurrent)],
  ['events per synced batch', String(result.eventsPerBatch)],
  ['verify events/s (median of 5)', String(result.verifyPerSec)],
  ['verify MB/s', String(result.verifyMBPerSec)],
  ['rebuild events/s, stats projection (median of 3)', String(result.rebuildPerSec)],
  [`rebuild events/s, all ${result.projections.length} projections`, String(result.rebuildAllPerSec)],
  ['  the same on one thread (no fold worker)', String(result.rebuildAllOneThreadPerSec)],
  ['  all again, warm (median of 3)', String(result.rebuildAllWarmPerSec)],
  ['  every projection but the entity graph, warm (median of 3, in turn with the line above)', String(result.rebuildWithoutGraphPerSec)],
  ['  the two warm lines\' ratio (the graph\'s cost; goal ≥ 0.9)', String(result.graphRatio)],
  ['stored bytes/event (record value)', String(result.bytesPerEvent)],
  ['disk bytes/event (LevelDB dir)', String(result.diskBytesPerEvent)],
  ['node / cpu', `${result.node} / ${result.cores}× ${result.cpu}`],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(44)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
