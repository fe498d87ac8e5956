// Real `kioku serve` processes for the chaos scenarios: started as a user starts them (the
// installed entry bin/kioku.js over the built dist/, or the TypeScript source through tsx with
// --source), on a loopback port kept across restarts so writers find the same URL, the hashed
// embedder, no auth; ready when the service says so. Also `kioku verify --json` as a child.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { Check, Ledger } from './ledger.js';

export const REPO = resolve(import.meta.dirname, '../..');

/** How the CLI is started: the built package (fast start) or the source tree (no build needed). */
export type Entry = 'dist' | 'source';

export function cliArgs(entry: Entry, args: string[]): string[] {
  return entry === 'dist' ? [join(REPO, 'bin/kioku.js'), ...args] : ['--import', 'tsx', join(REPO, 'tools/kioku.ts'), ...args];
}

export const distBuilt = (): boolean => existsSync(join(REPO, 'dist/tools/kioku.js'));

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => done(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** The environment every chaos process gets: hashed embedder, no auth file, HOME in the data dir. */
export const chaosEnv = (home: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: home,
  KIOKU_EMBEDDER: 'hash',
  KIOKU_AUTH_FILE: join(home, 'no-auth.json'),
  ...extra,
});

export interface Service {
  url: string;
  child: ChildProcess;
  /** resolves with the exit code (null when killed by a signal) once the process is gone */
  exited: Promise<number | null>;
  stderr: () => string;
}

export interface ServeSpec {
  data: string;
  port: number;
  entry: Entry;
  /** more `kioku serve` flags (--store …) */
  args?: string[];
  readyTimeoutMs?: number;
}

/** Start `kioku serve` and resolve once it prints `kioku: ready`; `readyMs` from spawn to ready. */
export function serve(spec: ServeSpec): Promise<{ service: Service; readyMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, cliArgs(spec.entry, ['serve', '--quiet', '--data', spec.data, '--port', String(spec.port), ...(spec.args ?? [])]), {
    cwd: REPO,
    env: chaosEnv(spec.data),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const service: Service = { url: `http://127.0.0.1:${spec.port}`, child, exited, stderr: () => err };
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`kioku serve not ready within ${spec.readyTimeoutMs ?? 120_000} ms: ${err.slice(-2000)}`));
    }, spec.readyTimeoutMs ?? 120_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('kioku: ready')) {
        clearTimeout(timer);
        done({ service, readyMs: Math.round(performance.now() - started) });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`kioku serve exited (${code}) before it was ready: ${err.slice(-2000)}`));
    });
  });
}

/** SIGKILL, and wait until the process is gone (its lock on the data dir released). */
export async function kill(service: Service): Promise<void> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
  await service.exited;
}

/** SIGTERM: the exit code and how long the stop took, or `exit: 'hung'` past `limitMs` (then SIGKILLed). */
export async function terminate(service: Service, limitMs = 30_000): Promise<{ exit: number | null | 'hung'; ms: number }> {
  const started = performance.now();
  if (service.child.exitCode !== null || service.child.signalCode !== null) return { exit: service.child.exitCode, ms: 0 };
  service.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([service.exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), limitMs)))]);
  clearTimeout(timer);
  if (code === 'hung') await kill(service);
  return { exit: code, ms: Math.round(performance.now() - started) };
}

export interface VerifyResult {
  ok: boolean;
  exit: number;
  /** the JSON verify printed (its last stdout line), or the error text */
  report: Record<string, unknown>;
}

/** A `kioku` command with --json as a child process: its exit code and the JSON it printed last (or the error text). */
export function cli(entry: Entry, home: string, args: string[]): Promise<{ exit: number; report: Record<string, unknown> }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, cliArgs(entry, [...args, '--json']), { cwd: REPO, env: chaosEnv(home) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      let report: Record<string, unknown>;
      try {
        report = JSON.parse(out.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
      } catch {
        report = { error: (err || out).slice(-1000) };
      }
      done({ exit: code ?? -1, report });
    });
  });
}

/** `kioku verify --json` on a data dir (and `--store` for PostgreSQL). */
export async function verify(entry: Entry, data: string, args: string[] = []): Promise<VerifyResult> {
  const { exit, report } = await cli(entry, data, ['verify', '--data', data, ...args]);
  return { ok: exit === 0 && report['ok'] === true, exit, report };
}

/** The verify answer's essentials for the report. */
export const verifySummary = (v: VerifyResult): Record<string, unknown> => ({
  ok: v.ok,
  exit: v.exit,
  head: (v.report['head'] as { seq?: number } | undefined)?.seq,
  ...(v.ok ? {} : { report: v.report }),
});

export const progress = (msg: string): void => {
  process.stderr.write(`chaos: ${msg}\n`);
};

/**
 * A scenario's figures from its check, ledger and verify, and whether they are clean (nothing
 * lost, changed or duplicated, verify ok); the tally goes to stderr too.
 */
export function figures(name: string, result: Check, ledger: Ledger, verified: VerifyResult, started: number): { clean: boolean; figures: Record<string, unknown> } {
  progress(`${name}: acknowledged ${result.acknowledged}, lost ${result.lost}, changed ${result.changed}, duplicates ${result.duplicates}, verify ${verified.ok}`);
  return {
    clean: result.lost + result.changed + result.duplicates === 0 && verified.ok,
    figures: {
      ...result,
      attempts: ledger.attempts,
      refusals: ledger.refusals,
      verify: verifySummary(verified),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
  };
}

/** A copy of a failed scenario's data dir, kept for a look (the scenario's own dir is removed): its path. */
export function keep(data: string): string {
  const to = mkdtempSync(join(tmpdir(), 'kioku-chaos-kept-'));
  cpSync(data, to, { recursive: true });
  progress(`kept a copy of ${data} in ${to}`);
  return to;
}
