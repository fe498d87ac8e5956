// npm run bench:log -- --sealing [--events N] [--rounds 3] [--postgres [--url ADMIN_URL]] [--json]
// The cost of sealing (issue 33) on the write path, in one run: the log bench's event mix appended
// through the store assembly (redaction, then sealing, as every door appends) with sealing on and
// off, alternating, on fresh data dirs; the median appends/s of each (serial: one awaited at a
// time; concurrent: 64 writers), and the ratio. A new session's key costs one fsync of the key
// file (50 sessions in the mix); every other sealed string is an AES-256-GCM encryption.
// --postgres: the same on the PostgreSQL store (a fresh database per run, on a throwaway cluster
// unless --url names one), where a new key is a row inserted in the transaction of its events.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store.js';
import { benchEvent } from './event-mix.js';
import { scratchPostgres, type ScratchPostgres } from './pg-scratch.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const rate = (n: number, ms: number): number => Math.round((n / ms) * 1000);

async function appendRun(
  enabled: boolean,
  events: number,
  serial: number,
  writers: number,
  postgres: ScratchPostgres | undefined,
): Promise<{ serial: number; concurrent: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kioku-bench-seal-'));
  try {
    const store = await openStore({ data: dataDir, seal: { enabled }, ...(postgres ? { store: await postgres.freshDatabase() } : {}) });
    let t = performance.now();
    for (let i = 0; i < serial; i++) await store.log.append(benchEvent(i));
    const serialPerSec = rate(serial, performance.now() - t);
    let next = serial;
    const end = serial + events;
    t = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (next < end) await store.log.append(benchEvent(next++));
      }),
    );
    const concurrentPerSec = rate(events, performance.now() - t);
    await store.close();
    return { serial: serialPerSec, concurrent: concurrentPerSec };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function sealingBench(options: {
  events: number;
  serial: number;
  writers: number;
  rounds: number;
  json: boolean;
  postgres?: { url: string | undefined };
}): Promise<void> {
  const on: { serial: number; concurrent: number }[] = [];
  const off: { serial: number; concurrent: number }[] = [];
  const postgres = options.postgres ? await scratchPostgres(options.postgres.url) : undefined;
  try {
    for (let r = 0; r < options.rounds; r++) {
      // alternating, so a machine's load drifting over the run falls on both
      off.push(await appendRun(false, options.events, options.serial, options.writers, postgres));
      on.push(await appendRun(true, options.events, options.serial, options.writers, postgres));
    }
  } finally {
    postgres?.stop();
  }
  const pick = (runs: typeof on, k: 'serial' | 'concurrent'): number => median(runs.map((x) => x[k]));
  const result = {
    bench: 'log-sealing',
    store: postgres ? 'postgres' : 'leveldb',
    events: options.events,
    serialEvents: options.serial,
    writers: options.writers,
    rounds: options.rounds,
    appendPerSec: {
      sealed: { serial: pick(on, 'serial'), concurrent: pick(on, 'concurrent') },
      plain: { serial: pick(off, 'serial'), concurrent: pick(off, 'concurrent') },
    },
    ratio: {
      serial: Math.round((pick(on, 'serial') / pick(off, 'serial')) * 100) / 100,
      concurrent: Math.round((pick(on, 'concurrent') / pick(off, 'concurrent')) * 100) / 100,
    },
    runs: { sealed: on, plain: off },
    node: process.version,
    cores: cpus().length,
  };
  const rows: [string, string][] = [
    [`append/s serial, sealed / plain (median of ${options.rounds})`, `${result.appendPerSec.sealed.serial} / ${result.appendPerSec.plain.serial} (×${result.ratio.serial})`],
    [`append/s ${options.writers} writers, sealed / plain`, `${result.appendPerSec.sealed.concurrent} / ${result.appendPerSec.plain.concurrent} (×${result.ratio.concurrent})`],
  ];
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(52)} ${v}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}
