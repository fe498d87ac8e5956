// Which Kioku an MCP process (or the hook) talks to, chosen by src/library.ts like every command.
// Remote mode: KIOKU_URL (+ KIOKU_TOKEN), that service only, never local data and never another
// server. Local mode: the service that owns the data dir, found through its run file; when none
// runs, start `kioku serve` for that dir in the background and wait for its run file — when this
// client may (autostartAllowed: kioku mcp by default, the hook only with KIOKU_AUTOSTART=1) and
// the user did not stop the service (the stop marker); otherwise a KIOKU_SERVICE_NOT_RUNNING that
// says how to start it. The started service prefers the configured port (KIOKU_PORT, else
// 18972) and takes another only when that one is taken. Two clients starting at once resolve to one
// service: the second `serve` finds the store locked and exits, and both use the one that
// listens. A local service that goes away (issue 29 item 6: SIGKILLed, restarted on another
// port) is found again on the next failed call — the run file read again, or a service started
// the same way — and the call is sent once more where that cannot write twice (src/remote.ts).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PathOverrides } from '../config.js';
import { KiokuError } from '../errors.js';
import type { Kioku } from '../kioku.js';
import { resolveLibrary, serveHint } from '../library.js';
import { RemoteKioku } from '../remote.js';
import { processAlive, readRunFile, readStopMarker, serviceListening, type RunInfo } from '../run-file.js';

export interface Connection {
  kioku: Kioku;
  mode: 'remote' | 'local';
  url: string;
  /** this process started the service */
  started: boolean;
}

/** The client asking: it decides whether a missing service may be started (autostartAllowed). */
export type Client = 'hook' | 'mcp';

/**
 * Whether `client` may start the service of a library none serves: KIOKU_AUTOSTART=1 always,
 * =0 never; unset, `kioku mcp` does (it lives as long as its host, and a tool call may wait for a
 * start-up) and the hook does not (a prompt must not wait ~2 s for one: it goes on without Kioku).
 */
export function autostartAllowed(client: Client, env: NodeJS.ProcessEnv): boolean {
  const v = env['KIOKU_AUTOSTART']?.trim();
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  return client === 'mcp';
}

export interface ConnectOptions extends PathOverrides {
  env?: NodeJS.ProcessEnv;
  /** who asks (default mcp): whether it may start a service, and what the run file says started it */
  client?: Client;
  /** how to run `kioku serve` (default: this process's own CLI entry and node flags) */
  serveCommand?: { command: string; args: string[] };
  /** how long to wait for a started service (default 60 s: it may load snapshots first) */
  startTimeoutMs?: number;
  log?: (line: string) => void;
  /** keep HTTP connections to the service open (kioku mcp lives as long as its host; the hook does not) */
  keepAlive?: boolean;
}

export async function connectKioku(options: ConnectOptions = {}): Promise<Connection> {
  const env = options.env ?? process.env;
  const token = env['KIOKU_TOKEN'] || undefined;
  const keepAlive = options.keepAlive ?? false;
  const library = resolveLibrary(options, env, { clientMode: true });
  if (library.remote && library.url) return { kioku: new RemoteKioku(library.url, { token, keepAlive }), mode: 'remote', url: library.url, started: false };
  const service = new LocalService(library.dataDir, options);
  const { info, started } = await service.find();
  const kioku = new RemoteKioku(info.url, { token, keepAlive, relocate: (failed) => service.relocate(failed) });
  return { kioku, mode: 'local', url: info.url, started };
}

const same = (a: RunInfo, b: RunInfo): boolean => a.url === b.url && a.pid === b.pid && a.started_at === b.started_at;

/** The service of one data dir: found through its run file, started when none answers. */
class LocalService {
  private current: RunInfo | undefined;
  private relocating: Promise<string> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: ConnectOptions,
  ) {}

  /** The running service, or one started now. */
  async find(): Promise<{ info: RunInfo; started: boolean }> {
    const running = readRunFile(this.dataDir);
    if (running) return { info: (this.current = running), started: false };
    return this.start();
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

  /**
   * Start `kioku serve` for the data dir in the background — unless another client is starting
   * one (the start lock) — and wait for a run file other than `lost`'s.
   */
  private async start(lost?: RunInfo): Promise<{ info: RunInfo; started: boolean }> {
    const { dataDir, options } = this;
    const env = options.env ?? process.env;
    const client = options.client ?? 'mcp';
    const stopped = readStopMarker(dataDir);
    const hint = serveHint({ dataDir });
    if (stopped)
      throw new KiokuError(
        'KIOKU_SERVICE_NOT_RUNNING',
        `Kioku is stopped for ${dataDir} (${stopped.by}${stopped.at === '?' ? '' : ` at ${stopped.at}`}); start it with \`${hint}\``,
        { details: { dataDir, stopped, start: hint } },
      );
    if (!autostartAllowed(client, env))
      throw new KiokuError(
        'KIOKU_SERVICE_NOT_RUNNING',
        `Kioku is not running for ${dataDir}; start it with \`${hint}\`${client === 'hook' ? ' (or set KIOKU_AUTOSTART=1 to let the hook start it)' : ''}`,
        { details: { dataDir, start: hint } },
      );
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    mkdirSync(dataDir, { recursive: true });
    const logFile = join(dataDir, 'kioku-serve.log');
    const lock = join(dataDir, START_LOCK);
    const starter = claimStart(lock, timeoutMs);
    let pid: number | undefined;
    try {
      if (starter) {
        const serve = options.serveCommand ?? { command: process.execPath, args: [...process.execArgv, process.argv[1] as string] };
        const out = openSync(logFile, 'a');
        // no --port: the service takes KIOKU_PORT or 18972, and another port only when that one is taken
        const child = spawn(serve.command, [...serve.args, 'serve', '--data', dataDir, '--started-by', client], {
          detached: true,
          stdio: ['ignore', out, out],
          env: { ...env, KIOKU_DATA_DIR: dataDir },
        });
        closeSync(out);
        child.unref();
        pid = child.pid;
        options.log?.(`kioku: no service answered for ${dataDir}; started one (pid ${pid}, log ${logFile})`);
      }
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const info = readRunFile(dataDir);
        // a run file left by the lost service (its pid taken by another process) is not the new one
        if (info && (!lost || !same(info, lost))) return { info: (this.current = info), started: info.pid === pid };
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      if (starter) rmSync(lock, { force: true });
    }
    throw new KiokuError('KIOKU_SERVICE_UNAVAILABLE', `the Kioku service for ${dataDir} did not start within ${timeoutMs} ms; see ${logFile}`, {
      details: { dataDir, log: logFile },
    });
  }
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
