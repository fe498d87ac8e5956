// The run file: a running `kioku serve` writes <data>/kioku.run.json (URL, pid, start
// time, store, who started it) so that any client (CLI, MCP, hook) finds the service that
// owns the library. A clean stop removes it; a file whose process is gone is stale and ignored.
// The stop marker <data>/kioku.stopped says the user stopped the service (kioku stop, or
// Ctrl-C on a `kioku serve` they started): nothing starts it again behind their back until
// they run `kioku serve` (issue 31).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

export const RUN_FILE = 'kioku.run.json';

/** Who started a service: a person (`kioku serve`, `npm start`), or a client that found none running. */
export type StartedBy = 'user' | 'hook' | 'mcp';

export interface RunInfo {
  url: string;
  pid: number;
  started_at: string;
  /** the data dir it serves (absent in files written before issue 31) */
  data_dir?: string;
  /** the event store, password masked */
  store?: string;
  started_by?: StartedBy;
  /** minutes without a request after which it stops itself (auto-started services with KIOKU_IDLE_SHUTDOWN) */
  idle_shutdown_min?: number;
}

// checked by hand, not with zod: clients (the hook) read this on every call and load fast
function asRunInfo(v: unknown): RunInfo | undefined {
  const r = v as Partial<RunInfo> | null;
  if (!r || typeof r !== 'object' || typeof r.url !== 'string' || !/^https?:\/\/\S+$/.test(r.url)) return undefined;
  if (typeof r.pid !== 'number' || !Number.isSafeInteger(r.pid) || r.pid <= 0 || typeof r.started_at !== 'string') return undefined;
  const info: RunInfo = { url: r.url, pid: r.pid, started_at: r.started_at };
  if (typeof r.data_dir === 'string') info.data_dir = r.data_dir;
  if (typeof r.store === 'string') info.store = r.store;
  if (r.started_by === 'user' || r.started_by === 'hook' || r.started_by === 'mcp') info.started_by = r.started_by;
  if (typeof r.idle_shutdown_min === 'number' && r.idle_shutdown_min > 0) info.idle_shutdown_min = r.idle_shutdown_min;
  return info;
}

export function runFilePath(dataDir: string): string {
  return join(dataDir, RUN_FILE);
}

export function writeRunFile(dataDir: string, info: RunInfo): void {
  const file = runFilePath(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // a node of a shared store has no local log to create it
  writeFileSync(`${file}.tmp`, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Remove the run file if it is ours (a newer server may have replaced it). */
export function removeRunFile(dataDir: string, pid = process.pid): void {
  const info = readRunFile(dataDir, { includeStale: true });
  if (info && info.pid === pid) rmSync(runFilePath(dataDir), { force: true });
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running server of this data dir, or undefined (no file, an unreadable one, or a stale one whose process is gone). */
export function readRunFile(dataDir: string, options: { includeStale?: boolean } = {}): RunInfo | undefined {
  const file = runFilePath(dataDir);
  if (!existsSync(file)) return undefined;
  let parsed: RunInfo | undefined;
  try {
    parsed = asRunInfo(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
  if (!parsed) return undefined;
  if (!options.includeStale && !processAlive(parsed.pid)) return undefined;
  return parsed;
}

export const STOP_MARKER = 'kioku.stopped';

export interface StopMarker {
  at: string;
  /** `kioku stop`, or the signal a user-started `kioku serve` got (SIGINT: Ctrl-C) */
  by: string;
  url?: string;
}

/** The user stopped this library's service: hook and MCP do not start it again until `kioku serve` runs. */
export function writeStopMarker(dataDir: string, marker: StopMarker): void {
  try {
    writeFileSync(join(dataDir, STOP_MARKER), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  } catch {
    // a data dir that cannot take the marker: the service is stopped all the same
  }
}

export function readStopMarker(dataDir: string): StopMarker | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dataDir, STOP_MARKER), 'utf8')) as Partial<StopMarker> | null;
    if (!m || typeof m.at !== 'string' || typeof m.by !== 'string') return { at: '?', by: 'unknown' };
    return { at: m.at, by: m.by, ...(typeof m.url === 'string' ? { url: m.url } : {}) };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { at: '?', by: 'unknown' };
  }
}

export function clearStopMarker(dataDir: string): void {
  rmSync(join(dataDir, STOP_MARKER), { force: true });
}

/** Whether something accepts connections at `url` (a refusal means no service listens there). */
export function serviceListening(url: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(true)); // slow, not gone: do not start a second service beside it
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
