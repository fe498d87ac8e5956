// How every client reaches Kioku — the CLI, `kioku mcp` and the hook — one path (issue 32; it
// replaces src/mcp/connect.ts and tools/server-client.ts's connectKioku). The library comes from
// src/library.ts, decided once; then these steps, in this order, each a named function below:
//   remote   KIOKU_URL names the service: that one only, never local data, never a run file.
//   local    open the store itself, when no live service owns it (the run file names none that
//            answers). The opener is given by the client (`openLocal`): this module stays free of
//            the core and of zod, because the hook loads it on every prompt.
//   service  the running service this data dir's run file names.
//   start    start `kioku serve` for the data dir in the background and wait for its run file —
//            never when the user stopped it (the stop marker), and one of several clients at once.
// Which steps a client may take (stepsFor): the CLI local then service (a store locked by a
// service that is starting: wait briefly for its run file); kioku mcp service then start
// (KIOKU_AUTOSTART=0 forbids the start); the hook service, and start only with KIOKU_AUTOSTART=1
// (a prompt must not wait ~2 s for a start-up). A local service that goes away (SIGKILLed,
// restarted on another port) is found again on the next failed call of a long-lived client —
// the run file read again, or a service started the same way — and the call sent once more
// where that cannot write twice (src/remote.ts `relocate`).
import { spawn } from 'node:child_process';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PathOverrides } from './config.js';
import { isKiokuError, KiokuError } from './errors.js';
import type { Kioku } from './kioku.js';
import { describeService, resolveLibrary, serveHint, type Library } from './library.js';
import { RemoteKioku } from './remote.js';
import { processAlive, readRunFile, readStopMarker, serviceListening, type RunInfo } from './run-file.js';

/** Who asks: it decides which steps may be taken (stepsFor) and what the run file says started a service. */
export type Client = 'cli' | 'mcp' | 'hook';
export type Step = 'local' | 'service' | 'start';

/**
 * Whether `client` may start the service of a library none serves: KIOKU_AUTOSTART=1 always,
 * =0 never; unset, `kioku mcp` does (it lives as long as its host, and a tool call may wait for a
 * start-up) and the hook does not (a prompt must not wait ~2 s for one: it goes on without Kioku).
 * The CLI never does: a command opens the store itself.
 */
export function autostartAllowed(client: Client, env: NodeJS.ProcessEnv): boolean {
  if (client === 'cli') return false;
  const v = env['KIOKU_AUTOSTART']?.trim();
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  return client === 'mcp';
}

/** The steps after `remote` a client may take, in order. */
export function stepsFor(client: Client, env: NodeJS.ProcessEnv): Step[] {
  if (client === 'cli') return ['local', 'service'];
  return autostartAllowed(client, env) ? ['service', 'start'] : ['service'];
}

export interface ConnectOptions extends PathOverrides {
  client: Client;
  env?: NodeJS.ProcessEnv;
  /** the `local` step's opener (the CLI: openKioku on the library's store, never creating it) */
  openLocal?: (library: Library) => Promise<Kioku>;
  /** how to run `kioku serve` (default: this process's own CLI entry and node flags) */
  serveCommand?: { command: string; args: string[] };
  /** how long to wait for a started service (default 60 s: it may load snapshots first) */
  startTimeoutMs?: number;
  log?: (line: string) => void;
  /** keep HTTP connections to the service open (kioku mcp lives as long as its host; the hook does not) */
  keepAlive?: boolean;
}

export interface Connection {
  kioku: Kioku;
  /** the step that answered */
  step: 'remote' | Step;
  library: Library;
  /** where the answers come from, for a command's output: 'the store' or the service */
  via: string;
  /** the service's URL (none for the local step) */
  url?: string;
  /** this process started the service */
  started: boolean;
}

export async function connect(options: ConnectOptions): Promise<Connection> {
  const env = options.env ?? process.env;
  // a client other than the CLI takes KIOKU_URL even beside --data (src/library.ts, clientMode)
  const library = resolveLibrary(options, env, { clientMode: options.client !== 'cli' });
  if (library.remote) return remoteService(library, options);
  const steps = stepsFor(options.client, env);
  if (steps.includes('local')) {
    const local = await openLocal(library, options);
    if ('kioku' in local) return local;
    if ('locked' in local) return serviceOfLockedStore(library, options, local.locked);
    return runningService(local.live, options);
  }
  return new LocalService(library, options, steps).connect();
}

/** Step `remote`: KIOKU_URL, that service only (no relocation: it never wanders to another server). */
export function remoteService(library: Library, options: ConnectOptions): Connection {
  const url = library.url as string;
  return { kioku: new RemoteKioku(url, remoteOptions(options)), step: 'remote', library, via: describeService(library), url, started: false };
}

/**
 * Step `local`: the store itself, unless a live service owns it (`live`: go to that service) or
 * the store is locked (`locked`: by a service starting or a command running). A run file whose
 * pid lives on but whose port is dead (a killed service, its pid reused) names no service.
 */
export async function openLocal(library: Library, options: ConnectOptions): Promise<Connection | { live: Library } | { locked: unknown }> {
  if (library.source === 'run file' && library.url && (await serviceListening(library.url))) return { live: library };
  if (!options.openLocal) throw new KiokuError('KIOKU_INTERNAL', `the ${options.client} client has no local opener`);
  const { url: _url, source: _source, running: _running, ...alone } = library;
  try {
    return { kioku: await options.openLocal(alone), step: 'local', library: alone, via: 'the store', started: false };
  } catch (err) {
    if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
    return { locked: err };
  }
}

/** Step `service`, for a library whose run file names a live service. */
export function runningService(library: Library, options: ConnectOptions): Connection {
  const url = library.url as string;
  return { kioku: new RemoteKioku(url, remoteOptions(options)), step: 'service', library, via: describeService(library), url, started: false };
}

/** Step `service` after the store was found locked and no run file named its owner: wait a moment for a starting service's run file. */
export async function serviceOfLockedStore(library: Library, options: ConnectOptions, lockError: unknown): Promise<Connection> {
  for (let i = 0; i < 15; i++) {
    const now = resolveLibrary(options, options.env ?? process.env);
    if (now.url) return runningService(now, options);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new KiokuError(
    'KIOKU_STORE_LOCKED',
    `the store in ${library.dataDir} is in use by another process, and no Kioku service runs for it (no run file); wait for that command to finish`,
    { cause: lockError, details: { dataDir: library.dataDir } },
  );
}

function remoteOptions(options: ConnectOptions): { token: string | undefined; keepAlive: boolean; readyWaitMs: number } {
  const env = options.env ?? process.env;
  return { token: env['KIOKU_TOKEN'] || undefined, keepAlive: options.keepAlive ?? false, readyWaitMs: readyWaitMs(options.client, env) };
}

/** kioku mcp waits this long by default for a service that is opening or restarting: a restart over a large library's snapshots. */
export const MCP_READY_WAIT_MS = 30_000;

/**
 * How long a call waits for a service that is not serving yet (RemoteOptions.readyWaitMs):
 * KIOKU_READY_WAIT_MS when set; unset, kioku mcp waits MCP_READY_WAIT_MS (an agent should see a
 * short wait, not an error, while its service restarts), the hook and the CLI answer at once.
 */
export function readyWaitMs(client: Client, env: NodeJS.ProcessEnv): number {
  const v = env['KIOKU_READY_WAIT_MS']?.trim();
  if (v) {
    const ms = Number(v);
    if (!Number.isInteger(ms) || ms < 0 || ms > 600_000)
      throw new KiokuError('KIOKU_USAGE', `KIOKU_READY_WAIT_MS must be a whole number of milliseconds, 0–600000 (got "${v.slice(0, 40)}")`, {
        details: { field: 'KIOKU_READY_WAIT_MS' },
      });
    return ms;
  }
  return client === 'mcp' ? MCP_READY_WAIT_MS : 0;
}

const same = (a: RunInfo, b: RunInfo): boolean => a.url === b.url && a.pid === b.pid && a.started_at === b.started_at;

/**
 * Steps `service` and `start` for a long-lived client (kioku mcp, the hook): the service of one
 * data dir, found through its run file, started when none answers and the client may start one,
 * and found again (relocate) when a call loses it.
 */
class LocalService {
  private current: RunInfo | undefined;
  private relocating: Promise<string> | undefined;
  private readonly dataDir: string;

  constructor(
    private readonly library: Library,
    private readonly options: ConnectOptions,
    private readonly steps: Step[],
  ) {
    this.dataDir = library.dataDir;
  }

  async connect(): Promise<Connection> {
    const running = readRunFile(this.dataDir);
    const { info, started } = running ? { info: (this.current = running), started: false } : await this.start();
    const kioku = new RemoteKioku(info.url, { ...remoteOptions(this.options), relocate: (failed) => this.relocate(failed) });
    const step = running ? 'service' : 'start';
    return { kioku, step, library: this.library, via: describeService({ ...this.library, url: info.url, running: info }), url: info.url, started };
  }

  /**
   * After a call to `failedUrl` lost its connection: the URL to use now. The run file names
   * another service (restarted elsewhere) → that one; the same one still accepts connections →
   * it (a dropped connection, not a dead service); else start one (the store lock lets one
   * `serve` of several clients through) and wait for it. Concurrent failures share one search.
   */
  relocate(failedUrl: string): Promise<string> {
    const current = this.current;
    if (current && current.url !== failedUrl) return Promise.resolve(current.url); // an older call: already found again
    this.relocating ??= this.search(current).finally(() => (this.relocating = undefined));
    return this.relocating;
  }

  private async search(lost: RunInfo | undefined): Promise<string> {
    const now = readRunFile(this.dataDir);
    if (now && (!lost || !same(now, lost))) return (this.current = now).url;
    if (now && (await serviceListening(now.url))) return now.url;
    return (await this.start(lost)).info.url;
  }

  /** Step `start`, refused when the user stopped the service or the client may not start one. */
  private async start(lost?: RunInfo): Promise<{ info: RunInfo; started: boolean }> {
    refuseStart(this.dataDir, this.options.client, this.steps);
    const info = await startService(this.dataDir, this.options, lost);
    this.current = info.info;
    return info;
  }
}

/**
 * A data dir no service could ever start in (not "stopped", not "not running"): a file, a path
 * through a file (ENOTDIR), a symlink to nothing (mkdir would fail with ENOENT), one the user may
 * not read (EACCES). A missing one is fine: the service creates it.
 */
function unusableDataDir(dataDir: string): void {
  const refuse = (why: string, cause?: string): never => {
    throw new KiokuError('KIOKU_STORE_UNREADABLE', `the data dir ${dataDir} ${why}; point --data (or KIOKU_DATA) at a directory`, {
      details: { dataDir, ...(cause ? { cause } : {}) },
    });
  };
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dataDir, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unknown';
    return refuse(code === 'ENOTDIR' ? 'lies under a file, not a directory' : `cannot be read (${code})`, code);
  }
  if (stat === undefined) {
    if (lstatSync(dataDir, { throwIfNoEntry: false })?.isSymbolicLink()) refuse(`is a symlink to ${readlinkSync(dataDir)}, which does not exist`, 'ENOENT');
    return;
  }
  if (!stat.isDirectory()) refuse('is a file, not a directory');
}

/** Why no service may be started here: the user stopped it (the stop marker), or the client may not start one. */
function refuseStart(dataDir: string, client: Client, steps: Step[]): void {
  unusableDataDir(dataDir);
  const stopped = readStopMarker(dataDir);
  const hint = serveHint({ dataDir });
  if (stopped)
    throw new KiokuError(
      'KIOKU_SERVICE_NOT_RUNNING',
      `Kioku is stopped for ${dataDir} (${stopped.by}${stopped.at === '?' ? '' : ` at ${stopped.at}`}); start it with \`${hint}\``,
      { details: { dataDir, stopped, start: hint } },
    );
  if (!steps.includes('start'))
    throw new KiokuError(
      'KIOKU_SERVICE_NOT_RUNNING',
      `Kioku is not running for ${dataDir}; start it with \`${hint}\`${client === 'hook' ? ' (or set KIOKU_AUTOSTART=1 to let the hook start it)' : ''}`,
      { details: { dataDir, start: hint } },
    );
}

/**
 * Step `start`: `kioku serve` for the data dir in the background — unless another client is
 * starting one (the start lock) — then wait for a run file other than `lost`'s. No --port: the
 * service takes KIOKU_PORT or 18972, and another port only when that one is taken. Two clients
 * starting at once resolve to one service: the second `serve` finds the store locked and exits.
 */
export async function startService(dataDir: string, options: ConnectOptions, lost?: RunInfo): Promise<{ info: RunInfo; started: boolean }> {
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  mkdirSync(dataDir, { recursive: true });
  const logFile = join(dataDir, 'kioku-serve.log');
  const lock = join(dataDir, START_LOCK);
  const starter = claimStart(lock, timeoutMs);
  let pid: number | undefined;
  try {
    if (starter) {
      pid = spawnServe(dataDir, options, logFile);
      options.log?.(`kioku: no service answered for ${dataDir}; started one (pid ${pid}, log ${logFile})`);
    }
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const info = readRunFile(dataDir);
      // a run file left by the lost service (its pid taken by another process) is not the new one
      if (info && (!lost || !same(info, lost))) return { info, started: info.pid === pid };
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    if (starter) rmSync(lock, { force: true });
  }
  throw new KiokuError('KIOKU_SERVICE_UNAVAILABLE', `the Kioku service for ${dataDir} did not start within ${timeoutMs} ms; see ${logFile}`, {
    details: { dataDir, log: logFile },
  });
}

function spawnServe(dataDir: string, options: ConnectOptions, logFile: string): number | undefined {
  const serve = options.serveCommand ?? { command: process.execPath, args: [...process.execArgv, process.argv[1] as string] };
  const out = openSync(logFile, 'a');
  const child = spawn(serve.command, [...serve.args, 'serve', '--data', dataDir, '--started-by', options.client], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...(options.env ?? process.env), KIOKU_DATA_DIR: dataDir },
  });
  closeSync(out);
  child.unref();
  return child.pid;
}

/** While one client starts the service, the others wait for it instead of starting more. */
const START_LOCK = 'kioku.starting';

/** Take the start lock (true), or leave it to a live client that took it within `timeoutMs` (false). */
function claimStart(lock: string, timeoutMs: number): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no lock to be had: start anyway (the store lock still lets one through)
      let holder = 0;
      let age = Infinity;
      try {
        holder = Number(readFileSync(lock, 'utf8'));
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        // removed meanwhile: try again
      }
      // a holder that has not written its pid yet is one that just took the lock
      if ((holder > 0 ? processAlive(holder) : age < 2_000) && age < timeoutMs) return false;
      rmSync(lock, { force: true }); // its client is gone, or gave up
    }
  }
  return false;
}
