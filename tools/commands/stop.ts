// kioku stop [--data DIR] [--timeout S] [--json]   — stop the library's service gracefully (SIGTERM:
// in-flight requests finish, projections are snapshotted, the store is closed), wait for it to
// exit, and leave the stop marker so that neither the hook nor `kioku mcp` starts it again behind
// the user's back; `kioku serve` clears it. Exit 0 stopped (or was not running), 1 still running.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { resolveLibrary, serveHint } from '../../src/library.js';
import { processAlive, readRunFile, removeRunFile, writeStopMarker } from '../../src/run-file.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface StopFlags extends OutputOptions, PathOverrides {
  timeout?: string;
}

export async function stopCommand(flags: StopFlags): Promise<number> {
  const timeoutS = flags.timeout === undefined ? 30 : Number(flags.timeout);
  if (!/^\d+$/.test(flags.timeout ?? '30') || timeoutS < 1)
    throw new KiokuError('KIOKU_USAGE', `--timeout must be a whole number of seconds (1 or more), got '${flags.timeout}'`);
  const library = resolveLibrary(flags);
  const { dataDir } = library;
  const info = readRunFile(dataDir);
  const marker = { at: new Date().toISOString(), by: 'kioku stop', ...(info ? { url: info.url } : {}) };
  if (!info) {
    writeStopMarker(dataDir, marker);
    emit(flags, () => `Kioku was not running for ${dataDir}; the hook and MCP will not start it until \`${serveHint(library)}\``, {
      ok: true,
      was_running: false,
      data_dir: dataDir,
    });
    return EXIT.ok;
  }
  const argv = commandLine(info.pid);
  // a pid the run file names may by now belong to another program: signal only a `kioku … serve`
  // (`jekyll serve`, `php artisan serve` or `npx serve` holding a reused pid are not ours)
  if (argv !== undefined && !isKiokuServe(argv))
    throw new KiokuError(
      'KIOKU_USAGE',
      `the run file ${library.runFile} names pid ${info.pid}, which is not a Kioku service (${argv.join(' ').slice(0, 80)}); remove the file if no Kioku runs`,
    );
  writeStopMarker(dataDir, marker);
  const started = Date.now();
  process.kill(info.pid, 'SIGTERM');
  while (processAlive(info.pid) && Date.now() - started < timeoutS * 1_000) await new Promise((r) => setTimeout(r, 50));
  if (processAlive(info.pid)) {
    emit(flags, () => `Kioku (pid ${info.pid}) did not stop within ${timeoutS} s; it may still be snapshotting. Wait, or end it with: kill -9 ${info.pid}`, {
      ok: false,
      was_running: true,
      pid: info.pid,
      url: info.url,
      data_dir: dataDir,
      seconds: timeoutS,
    });
    return EXIT.problem;
  }
  removeRunFile(dataDir, info.pid); // a service that could not remove its own (killed meanwhile)
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  emit(flags, () => `stopped Kioku for ${dataDir} (pid ${info.pid}, ${info.url}) in ${seconds} s; start it again with \`${serveHint(library)}\``, {
    ok: true,
    was_running: true,
    pid: info.pid,
    url: info.url,
    data_dir: dataDir,
    seconds,
  });
  return EXIT.ok;
}

/** The process's arguments where the system shows them (Linux /proc), else undefined. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** `serve` run by Kioku's CLI (bin/kioku.js, tools/kioku.ts, a `kioku` bin before it), or a service a client started (--started-by). */
export function isKiokuServe(argv: readonly string[]): boolean {
  const at = argv.indexOf('serve');
  return at > 0 && (argv.includes('--started-by') || argv.slice(0, at).some((a) => /^kioku\b/i.test(basename(a))));
}
