// Which Kioku an MCP process (or the hook) talks to. Remote mode: KIOKU_URL (+ KIOKU_TOKEN),
// that service only, never local data. Local mode: the service that owns the data dir, found
// through its run file; when none runs, start `kioku serve` for that dir in the background
// and wait for its run file. Two clients starting at once resolve to one service: the
// second `serve` finds the store locked and exits, and both use the one that listens.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { resolvePaths, type PathOverrides } from '../config.js';
import { KiokuError } from '../errors.js';
import type { Kioku } from '../kioku.js';
import { RemoteKioku } from '../remote.js';
import { readRunFile } from '../run-file.js';

export interface Connection {
  kioku: Kioku;
  mode: 'remote' | 'local';
  url: string;
  /** this process started the service */
  started: boolean;
}

export interface ConnectOptions extends PathOverrides {
  env?: NodeJS.ProcessEnv;
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
  if (env['KIOKU_URL']) {
    const url = env['KIOKU_URL'].replace(/\/+$/, '');
    return { kioku: new RemoteKioku(url, { token, keepAlive: options.keepAlive ?? false }), mode: 'remote', url, started: false };
  }
  const dataDir = resolvePaths(options).dataDir;
  const running = readRunFile(dataDir);
  if (running)
    return { kioku: new RemoteKioku(running.url, { token, keepAlive: options.keepAlive ?? false }), mode: 'local', url: running.url, started: false };

  mkdirSync(dataDir, { recursive: true });
  const serve = options.serveCommand ?? { command: process.execPath, args: [...process.execArgv, process.argv[1] as string] };
  const logFile = join(dataDir, 'kioku-serve.log');
  const out = openSync(logFile, 'a');
  const child = spawn(serve.command, [...serve.args, 'serve', '--data', dataDir, '--port', env['KIOKU_PORT'] ?? '0'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...env, KIOKU_DATA_DIR: dataDir },
  });
  child.unref();
  options.log?.(`kioku: no service owned ${dataDir}; started one (pid ${child.pid}, log ${logFile})`);
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    const info = readRunFile(dataDir);
    if (info) {
      const kioku = new RemoteKioku(info.url, { token, keepAlive: options.keepAlive ?? false });
      return { kioku, mode: 'local', url: info.url, started: info.pid === child.pid };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new KiokuError(
    'KIOKU_SERVICE_UNAVAILABLE',
    `the Kioku service for ${dataDir} did not start within ${options.startTimeoutMs ?? 60_000} ms; see ${logFile}`,
    {
      details: { dataDir, log: logFile },
    },
  );
}
