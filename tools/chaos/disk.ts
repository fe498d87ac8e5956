// Scenario disk: a `kioku serve` whose data dir is on a small tmpfs (as
// tests/full-disk-refuses-writes-serves-reads does; mounting needs root). Writers run, a filler
// file takes all but a little of the space, and the writers go on until every one of them is
// refused with 507 KIOKU_STORAGE_FULL; reads (the list, recall) must still answer. SIGTERM must
// stop it cleanly; then space is freed, the service restarted, every acknowledged write read
// back, and `kioku verify` must pass.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, readBack, writeMemory } from './http.js';
import { check, newLedger, sleep, startWriters, type Ledger } from './ledger.js';
import { figures, freePort, keep, kill, progress, serve, terminate, verify, verifySummary, type Entry, type Service } from './service.js';

export interface DiskOptions {
  writers: number;
  entry: Entry;
  /** the tmpfs size, MiB */
  sizeMb?: number;
  /** writing before the disk fills, ms */
  holdMs: number;
}

/** Mount a tmpfs of `mb` MiB at `at`: why not, or undefined once mounted. */
function mountSmallDisk(at: string, mb: number): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', at], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `mount -t tmpfs failed: ${(r.stderr || r.error?.message || '').trim()}`;
}

/** Fill the file system with `file` until ENOSPC, then give back about `leaveBytes`. */
export function fillDisk(file: string, leaveBytes = 0): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(1 << 16, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  if (leaveBytes > 0) spawnSync('truncate', ['-s', String(Math.max(0, written - leaveBytes)), file]);
}

/** Reads while the disk is full: the list and a recall, five times each. */
async function readsWhileFull(url: string): Promise<{ ok: number; failed: string[] }> {
  const out = { ok: 0, failed: [] as string[] };
  for (let i = 0; i < 5; i++) {
    const list = await getJson(url, '/v1/items?layer=memory&limit=20');
    const recall = await getJson(url, '/v1/recall', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'did the nightly deploy pass its checks?' }),
    });
    for (const [what, r] of [['list', list], ['recall', recall]] as const)
      if (r.status === 200) out.ok += 1;
      else out.failed.push(`${what} ${r.status}`);
  }
  return out;
}

/** Wait until the writers were refused with 507 at least `times` times each (bounded). */
async function untilRefused(ledger: Ledger, writers: number, times: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if ((ledger.refusals['507 KIOKU_STORAGE_FULL'] ?? 0) >= writers * times) return true;
    await sleep(100);
  }
  return false;
}

export async function diskScenario(options: DiskOptions): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), 'kioku-chaos-disk-'));
  const why = mountSmallDisk(root, options.sizeMb ?? 32);
  if (why) {
    rmSync(root, { recursive: true, force: true });
    return { scenario: 'disk', skipped: why };
  }
  const data = join(root, 'data');
  mkdirSync(data);
  const started = performance.now();
  let service: Service | undefined;
  let ok = false;
  try {
    const result = await fullDisk(root, data, options, started, (s) => (service = s));
    ok = result['ok'] === true;
    return result;
  } finally {
    if (service) await kill(service);
    if (!ok) keep(data);
    spawnSync('umount', [root]);
    rmSync(root, { recursive: true, force: true });
  }
}

async function fullDisk(root: string, data: string, options: DiskOptions, started: number, current: (s: Service) => void): Promise<Record<string, unknown>> {
  const port = await freePort();
  let service = (await serve({ data, port, entry: options.entry })).service;
  current(service);
  const ledger = newLedger();
  const url = service.url;
  const writers = startWriters(options.writers, ledger, (_w, id, text) => writeMemory(url, id, text), { pauseMs: 100 });
  await sleep(options.holdMs);
  const beforeFull = ledger.acked.size;
  fillDisk(join(root, 'filler'), 256 << 10);
  progress(`disk: ${beforeFull} acknowledged; the disk is full but for 256 KiB`);
  const refused = await untilRefused(ledger, options.writers, 3, 120_000);
  const reads = await readsWhileFull(url);
  await writers.stop();
  const health = await getJson(url, '/v1/health');
  const stop = await terminate(service);
  progress(`disk: writes refused ${ledger.refusals['507 KIOKU_STORAGE_FULL'] ?? 0} times, reads ok ${reads.ok}, SIGTERM → exit ${stop.exit} in ${stop.ms} ms`);
  const verifyFull = await verify(options.entry, data);
  rmSync(join(root, 'filler'));
  service = (await serve({ data, port, entry: options.entry })).service;
  current(service);
  const result = check(ledger, await readBack(service.url));
  const stopAfter = await terminate(service);
  const f = figures('disk', result, ledger, await verify(options.entry, data), started);
  return {
    scenario: 'disk',
    ok: f.clean && refused && reads.failed.length === 0 && health.status === 200 && stop.exit === 0 && stopAfter.exit === 0 && verifyFull.ok,
    writers: options.writers,
    disk_mb: options.sizeMb ?? 32,
    ...f.figures,
    acknowledged_before_full: beforeFull,
    writes_refused_507: ledger.refusals['507 KIOKU_STORAGE_FULL'] ?? 0,
    every_writer_refused: refused,
    reads_while_full: reads,
    health_while_full: health.status,
    sigterm_while_full: stop,
    verify_while_full: verifySummary(verifyFull),
    final_stop: stopAfter,
  };
}
