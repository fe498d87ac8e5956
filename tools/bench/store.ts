// npm run bench:store -- [--url postgres://…] [--events 20000] [--catchup 100000] [--json]
// The PostgreSQL event store: durable appends/s with 64 concurrent writers on one node and
// spread over 3 nodes; tail latency from a commit on node A to node B hearing of it and to
// B's projections having applied it (p50/p99, under load); start-up of a fresh node over a
// table of --catchup events (catch-up events/s). Without --url it starts a throwaway cluster
// (tools/pg/cluster.sh). Nodes here are PostgresEventLog instances with their own pools in
// one process; tests/multi-node.test.ts runs real `kioku serve` processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PostgresEventLog } from '../../src/log/postgres.js';
import { openStore } from '../../src/store.js';
import { benchEvent } from './event-mix.js';
import { scratchPostgres } from './pg-scratch.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    events: { type: 'string', default: '20000' },
    writers: { type: 'string', default: '64' },
    catchup: { type: 'string', default: '100000' },
    probes: { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
  },
});
const events = Number(values.events);
const writers = Number(values.writers);
const catchupEvents = Number(values.catchup);
const probes = Number(values.probes);
if (![events, writers, catchupEvents, probes].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:store -- [--url postgres://…] [--events N] [--writers N] [--catchup N] [--probes N] [--json]\n');
  process.exit(2);
}

const scratch = await scratchPostgres(values.url);
const freshDatabase = (): Promise<string> => scratch.freshDatabase();

const rate = (n: number, ms: number): number => Math.round((n / ms) * 1000);
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number) * 10) / 10;
};

/** `events` appends from `writers` concurrent writers spread over `nodes`; appends/s. */
async function appendRate(nodes: number): Promise<{ per_sec: number; commits: number }> {
  const url = await freshDatabase();
  const logs = await Promise.all(Array.from({ length: nodes }, () => PostgresEventLog.open({ url })));
  let next = 0;
  let commits = 0;
  const off = logs.map((l) => l.onCommit(() => commits++));
  const t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const log = logs[w % nodes] as PostgresEventLog;
      while (next < events) await log.append(benchEvent(next++));
    }),
  );
  const ms = performance.now() - t;
  const report = await (logs[0] as PostgresEventLog).verify();
  if (!report.ok || report.checked !== events) throw new Error(`chain after the append run: ${JSON.stringify(report)}`);
  off.forEach((f) => f());
  await Promise.all(logs.map((l) => l.close()));
  return { per_sec: rate(events, ms), commits };
}

/** Commit on A → B's log hears of it, and → B's projections applied it; while 32 writers load a third node. */
async function visibility(): Promise<{ tail_p50_ms: number; tail_p99_ms: number; applied_p50_ms: number; applied_p99_ms: number; under_load_appends: number }> {
  const url = await freshDatabase();
  const a = await PostgresEventLog.open({ url });
  const loader = await PostgresEventLog.open({ url });
  const dataB = mkdtempSync(join(tmpdir(), 'kioku-bench-node-'));
  const b = await openStore({ data: dataB, store: url });
  let loading = true;
  let loaded = 0;
  const load = Array.from({ length: 32 }, async () => {
    while (loading) {
      await loader.append(benchEvent(1000 + loaded));
      loaded += 1;
    }
  });
  const tail: number[] = [];
  const applied: number[] = [];
  for (let i = 0; i < probes; i++) {
    const { seq } = await a.append(benchEvent(i * 6 + 5));
    const committed = performance.now();
    await new Promise<void>((done) => {
      if (b.log.head().seq >= seq) return done();
      const off = b.log.onCommit((range) => {
        if (range.to >= seq) {
          off();
          done();
        }
      });
    });
    tail.push(performance.now() - committed);
    await b.projections.waitFor(seq);
    applied.push(performance.now() - committed);
    await new Promise((r) => setTimeout(r, 5));
  }
  loading = false;
  await Promise.all(load);
  await b.close();
  await a.close();
  await loader.close();
  rmSync(dataB, { recursive: true, force: true });
  return {
    tail_p50_ms: pct(tail, 50),
    tail_p99_ms: pct(tail, 99),
    applied_p50_ms: pct(applied, 50),
    applied_p99_ms: pct(applied, 99),
    under_load_appends: loaded,
  };
}

/** A table of `catchupEvents`, then a fresh node (no snapshots) opening its store on it. */
async function catchUp(): Promise<{ events: number; read_per_sec: number; startup_s: number; per_sec: number }> {
  const url = await freshDatabase();
  const writer = await PostgresEventLog.open({ url });
  for (let i = 0; i < catchupEvents; i += 1000) await writer.appendAll(Array.from({ length: Math.min(1000, catchupEvents - i) }, (_, j) => benchEvent(i + j)));
  await writer.close();
  // the log alone: decode every record
  const reader = await PostgresEventLog.open({ url });
  let t = performance.now();
  let n = 0;
  for await (const _ of reader.read()) n += 1;
  const readMs = performance.now() - t;
  await reader.close();
  const data = mkdtempSync(join(tmpdir(), 'kioku-bench-node-'));
  t = performance.now();
  const store = await openStore({ data, store: url });
  const ms = performance.now() - t;
  const head = store.log.head().seq;
  await store.close();
  rmSync(data, { recursive: true, force: true });
  if (head !== catchupEvents || n !== catchupEvents) throw new Error(`caught up to ${head}, read ${n}, expected ${catchupEvents}`);
  return { events: catchupEvents, read_per_sec: rate(n, readMs), startup_s: Math.round(ms) / 1000, per_sec: rate(catchupEvents, ms) };
}

try {
  const one = await appendRate(1);
  const three = await appendRate(3);
  const vis = await visibility();
  const start = await catchUp();
  const result = {
    bench: 'store',
    store: 'postgres',
    events,
    writers,
    appends_per_sec_one_node: one.per_sec,
    commits_one_node: one.commits,
    appends_per_sec_three_nodes: three.per_sec,
    visibility_ms: vis,
    catch_up: start,
    targets: { appends_per_sec: 5000, visibility_p99_ms: 250, catch_up_per_sec: 20000 },
  };
  if (!values.json) {
    process.stdout.write(
      [
        `appends/s, ${writers} writers: one node ${one.per_sec} (${one.commits} commits), three nodes ${three.per_sec}`,
        `commit on A → B hears of it: p50 ${vis.tail_p50_ms} ms, p99 ${vis.tail_p99_ms} ms; → B's projections applied it: p50 ${vis.applied_p50_ms} ms, p99 ${vis.applied_p99_ms} ms`,
        `fresh node over ${start.events} events: ${start.startup_s} s (${start.per_sec} events/s; the log alone reads ${start.read_per_sec}/s)`,
      ].join('\n') + '\n',
    );
  }
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  scratch.stop();
}
