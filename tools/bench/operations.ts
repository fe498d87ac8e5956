// npm run bench:operations -- [--records 100000] [--writers 8] [--json]
// Operations on a live library, through the front door: a library of N memories served by
// `kioku serve` in its own process; W writers write one memory a request over loopback HTTP
// while this process runs, one after the other, POST /v1/log/verify, the pages of
// GET /v1/log/frames a `kioku log export` reads, and GET /v1/log/backup-point. Reports each
// operation's time and the writers' latency (p50/p99/max) with nothing else running and during
// each operation: what a verify or a backup costs the writers. Prints a table, then one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { requestKioku } from '../../src/client.js';
import type { AppendInput } from '../../src/events/index.js';
import { openStore } from '../../src/store.js';
import { serveChild } from './serve-child.js';
import { Synthetic, percentile } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    writers: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const WRITERS = Number(values.writers);
if (!Number.isSafeInteger(RECORDS) || RECORDS < 1 || !Number.isSafeInteger(WRITERS) || WRITERS < 1) {
  process.stderr.write('usage: bench:operations -- [--records N] [--writers W] [--json]\n');
  process.exit(2);
}
const dataDir = mkdtempSync(join(tmpdir(), 'kioku-bench-ops-'));
const log = (msg: string): void => void process.stderr.write(`${msg}\n`);

const syn = new Synthetic();
{
  const store = await openStore({ data: dataDir });
  for (let i = 0; i < RECORDS; i += 1000) {
    const events: AppendInput[] = [];
    for (let j = i; j < Math.min(RECORDS, i + 1000); j++)
      events.push({ type: 'memory.written', ns: 'private', actor: 'bench', data: { id: `r${j}`, kind: 'fact', text: syn.text(j), tags: [`t${j % 10}`] } });
    const appended = await store.log.appendAll(events);
    await store.projections.waitFor(appended.at(-1)?.seq ?? 0);
    if ((i / 1000) % 20 === 0) log(`  wrote ${Math.min(RECORDS, i + 1000)}/${RECORDS}`);
  }
  await store.close();
}

const service = await serveChild(dataDir);
const base = service.url;
const ask = <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => requestKioku<T>(base, path, { method, ...(body ? { body } : {}), timeoutMs: 600_000 });

/** Writers writing until `until` resolves; each write's latency. */
async function writing(until: Promise<unknown>): Promise<{ latencies: number[]; refused: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  let refused = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      while (!done) {
        const s = performance.now();
        try {
          await ask('POST', '/v1/memories', { memories: [{ id: `w${w}-${n++}`, kind: 'fact', text: `writer ${w} fact ${n}` }] });
          latencies.push(performance.now() - s);
        } catch {
          refused += 1;
        }
      }
    }),
  );
  return { latencies, refused };
}

interface Row {
  operation: string;
  ms: number;
  writes: number;
  refused: number;
  write_p50_ms: number;
  write_p99_ms: number;
  write_max_ms: number;
}
const rows: Row[] = [];
async function measure(operation: string, run: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  let ms = 0;
  const op = run().then(() => (ms = performance.now() - started));
  const w = await writing(op);
  await op;
  rows.push({
    operation,
    ms: Math.round(ms),
    writes: w.latencies.length,
    refused: w.refused,
    write_p50_ms: percentile(w.latencies, 0.5),
    write_p99_ms: percentile(w.latencies, 0.99),
    write_max_ms: Math.round(Math.max(0, ...w.latencies) * 10) / 10,
  });
}

try {
  // warm-up: the first writes after start-up build the records' lookups and the keyword index's caches
  await writing(new Promise((r) => setTimeout(r, 5000)));
  await measure('none (writers alone, 3 s)', () => new Promise((r) => setTimeout(r, 3000)));
  await measure('POST /v1/log/verify', async () => {
    const report = await ask<{ ok: boolean; checked: number }>('POST', '/v1/log/verify', {});
    if (!report.ok) throw new Error('verify failed');
  });
  await measure('GET /v1/log/frames (export)', async () => {
    const first = await ask<{ head: { seq: number } }>('GET', '/v1/log/frames?from=1&limit=1');
    for (let from = 1; from <= first.head.seq; from += 2000) await ask('GET', `/v1/log/frames?from=${from}&to=${first.head.seq}&limit=2000`);
  });
  await measure('GET /v1/log/backup-point', () => ask('GET', '/v1/log/backup-point'));
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(
  [
    `library: ${RECORDS} memories; ${WRITERS} writers, one memory a request, over loopback HTTP to kioku serve in its own process`,
    `${'operation'.padEnd(30)} ${'ms'.padStart(7)} ${'writes'.padStart(7)} ${'refused'.padStart(8)} ${'w p50'.padStart(7)} ${'w p99'.padStart(7)} ${'w max'.padStart(7)}`,
    ...rows.map(
      (r) =>
        `${r.operation.padEnd(30)} ${String(r.ms).padStart(7)} ${String(r.writes).padStart(7)} ${String(r.refused).padStart(8)} ${r.write_p50_ms.toFixed(1).padStart(7)} ${r.write_p99_ms.toFixed(1).padStart(7)} ${r.write_max_ms.toFixed(1).padStart(7)}`,
    ),
    '',
  ].join('\n'),
);
process.stdout.write(`${JSON.stringify({ bench: 'operations', transport: 'http', records: RECORDS, writers: WRITERS, operations: rows })}\n`);
