// The run file: a running `kioku serve` writes <data>/kioku.run.json (URL, pid, start
// time) so that any client (CLI, MCP, hook) finds the service that owns the library. A
// clean stop removes it; a file whose process is gone is stale and ignored.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const RUN_FILE = 'kioku.run.json';

export interface RunInfo {
  url: string;
  pid: number;
  started_at: string;
}

// checked by hand, not with zod: clients (the hook) read this on every call and load fast
function asRunInfo(v: unknown): RunInfo | undefined {
  const r = v as Partial<RunInfo> | null;
  if (!r || typeof r !== 'object' || typeof r.url !== 'string' || !/^https?:\/\/\S+$/.test(r.url)) return undefined;
  if (typeof r.pid !== 'number' || !Number.isSafeInteger(r.pid) || r.pid <= 0 || typeof r.started_at !== 'string') return undefined;
  return { url: r.url, pid: r.pid, started_at: r.started_at };
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
