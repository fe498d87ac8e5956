// Kioku as users run it, for the public-benchmark scripts: the real CLI (`kioku import`),
// the real service (`kioku serve`) in its own process on a loopback port, and one HTTP
// client for both. A figure measured through here is a front-door figure: state kept
// across questions, usage accounting on, writes through the public API.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { requestKioku } from '../src/client.js';

const REPO = resolve(import.meta.dirname, '..');
/**
 * The CLI the scripts start: the sources through tsx (what you measure is the working tree), or
 * with KIOKU_EVAL_ENTRY=installed bin/kioku.js → dist/ (the same code without tsx's start-up; the
 * benchmark scripts' smoke tests use it, dist/ kept fresh by tests/global-setup.ts).
 */
const CLI = process.env['KIOKU_EVAL_ENTRY'] === 'installed' ? [join(REPO, 'bin/kioku.js')] : ['--import', 'tsx', join(REPO, 'tools/kioku.ts')];

export interface Service {
  url: string;
  dataDir: string;
  post<T>(path: string, body: unknown, timeoutMs?: number): Promise<T>;
  get<T>(path: string): Promise<T>;
  /** SIGTERM, then wait for the process to snapshot and exit */
  stop(): Promise<void>;
}

/** A fresh, empty data dir under the OS temp dir (removed by `removeDir`). */
export function freshDataDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `kioku-eval-${label}-`));
}

/** A copy of a stopped store, so each run (file order, reverse order) starts from the same library. */
export function copyDataDir(from: string, label: string): string {
  const to = freshDataDir(label);
  cpSync(from, to, { recursive: true });
  return to;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Run the real CLI; resolves with its last stdout line parsed as JSON (architecture.md §cli). */
export function runKioku(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args, '--json'], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
        if (code !== 0) reject(new Error(`kioku ${args.join(' ')}: exit ${code}: ${stderr.slice(-500)}`));
        else done(json);
      } catch {
        reject(new Error(`kioku ${args.join(' ')}: exit ${code}, no JSON: ${stderr.slice(-500)}`));
      }
    });
  });
}

/** `kioku serve --data DIR --port 0` in its own process; resolves once it is ready. */
export async function startService(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Service> {
  const child: ChildProcess = spawn(process.execPath, [...CLI, 'serve', '--data', dataDir, '--port', '0', '--quiet'], {
    cwd: REPO,
    env: { ...process.env, KIOKU_AUTH_FILE: join(dataDir, 'no-auth.json'), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number>((done) => child.on('exit', (code) => done(code ?? -1)));
  const url = await new Promise<string>((done, reject) => {
    let found: string | undefined;
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      found ??= /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found && /kioku: ready/.test(stderr)) done(found);
    });
    void exited.then((code) => reject(new Error(`kioku serve exited (${code}) before it was ready: ${stderr.slice(-500)}`)));
  });
  const call = <T>(path: string, method: 'GET' | 'POST', body?: unknown, timeoutMs = 120_000): Promise<T> =>
    requestKioku<T>(url, path, { method, ...(body !== undefined ? { body } : {}), timeoutMs });
  return {
    url,
    dataDir,
    post: (path, body, timeoutMs) => call(path, 'POST', body, timeoutMs),
    get: (path) => call(path, 'GET'),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Median and 95th percentile of latencies, in ms (3 decimals). */
export function percentiles(xs: readonly number[]): { p50: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number): number => Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 1000) / 1000;
  return { p50: at(0.5), p95: at(0.95) };
}

/** A seeded shuffle (mulberry32): "shuffled order" is the same order on every run. */
export function shuffled<T>(xs: readonly T[], seed = 42): T[] {
  let a = seed;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The orders the front-door evals ask their questions in. */
export const ORDERS = ['file', 'reverse', 'shuffled'] as const;
export type Order = (typeof ORDERS)[number];

/**
 * Ask every question of `list`, in `order`, of a fresh `kioku serve` over a copy of the library
 * at `base`: state (usage accounting) is kept across the questions, and each order starts from
 * the same library.
 */
/** `keep`: run in this directory (a copy of base, kept afterwards: its log holds the recorded turns, for kioku replay) */
export async function askInOrder<Q>(base: string, label: string, order: Order, list: readonly Q[], ask: (svc: Service, q: Q) => Promise<void>, keep?: string): Promise<void> {
  const ordered = order === 'file' ? list : order === 'reverse' ? [...list].reverse() : shuffled(list);
  if (keep) {
    removeDir(keep);
    cpSync(base, keep, { recursive: true });
  }
  const dir = keep ?? copyDataDir(base, `${label}-${order}`);
  const svc = await startService(dir);
  try {
    for (const q of ordered) await ask(svc, q);
  } finally {
    await svc.stop();
    if (!keep) removeDir(dir);
  }
}
