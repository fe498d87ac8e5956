// The run file: a running `kioku serve` writes <data>/kioku.run.json (URL, pid, start
// time) so that any client (CLI, MCP, hook) finds the service that owns the library. A
// clean stop removes it; a file whose process is gone is stale and ignored.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const RUN_FILE = 'kioku.run.json';

const runFileSchema = z.object({ url: z.string().url(), pid: z.number().int().positive(), started_at: z.string() });
export type RunInfo = z.infer<typeof runFileSchema>;

export function runFilePath(dataDir: string): string {
  return join(dataDir, RUN_FILE);
}

export function writeRunFile(dataDir: string, info: RunInfo): void {
  const file = runFilePath(dataDir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Remove the run file if it is ours (a newer server may have replaced it). */
export function removeRunFile(dataDir: string, pid = process.pid): void {
  const info = readRunFile(dataDir, { includeStale: true });
  if (info && info.pid === pid) rmSync(runFilePath(dataDir), { force: true });
}

function alive(pid: number): boolean {
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
  let parsed: RunInfo;
  try {
    parsed = runFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
  if (!options.includeStale && !alive(parsed.pid)) return undefined;
  return parsed;
}
