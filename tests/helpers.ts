import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AppendInput } from '../src/events/index.js';

export const REPO = resolve(import.meta.dirname, '..');

export function tempDir(prefix = 'kioku-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A small valid event; `i` makes each one distinct. */
export function jobEvent(i: number, ns = 'private'): AppendInput {
  return { type: 'job.event', ns, actor: 'test', data: { job_id: `job-${i}`, stage: 'embed', status: 'running', detail: `step ${i}` } };
}

export function memoryEvent(id: string, text: string, ns = 'private'): AppendInput {
  return { type: 'memory.written', ns, actor: 'test', data: { id, kind: 'fact', text } };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** the last stdout line parsed as JSON (architecture.md §cli), when there is one */
  json: Record<string, unknown> | undefined;
}

/**
 * How a test starts the CLI: as installed (bin/kioku.js → dist/, which tests/global-setup.ts
 * rebuilds when a source is newer; the default), or from the sources through tsx — the same code
 * with tsx's start-up, about 1.5 s of CPU more per process (the suite starts a few hundred).
 */
export const CLI_ENTRY = {
  sources: ['--import', 'tsx', join(REPO, 'tools/kioku.ts')],
  installed: [join(REPO, 'bin/kioku.js')],
} as const;
export type CliEntry = keyof typeof CLI_ENTRY;

/** Run the real CLI in a child process with a clean environment. */
export function runCli(args: string[], env: Record<string, string> = {}, entry: CliEntry = 'installed'): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY[entry], ...args], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(last) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      resolvePromise({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

import { MemoryLevel } from 'memory-level';
import { defaultProjections, ProjectionRunner } from '../projections/index.js';
import { Knowledge } from '../src/knowledge/index.js';
import { EventLog, type LevelStore } from '../src/log/index.js';

/** A whole store in memory: the log, every default projection, and the knowledge commands. */
export async function memoryStore(): Promise<{ log: EventLog; projections: ProjectionRunner; knowledge: Knowledge; close: () => Promise<void> }> {
  const log = await EventLog.open(new MemoryLevel<string, string>() as unknown as LevelStore);
  const projections = new ProjectionRunner(log, defaultProjections());
  await projections.open();
  const knowledge = new Knowledge({ log, projections }, 'test');
  return {
    log,
    projections,
    knowledge,
    close: async () => {
      await projections.close();
      await log.close();
    },
  };
}

/** Every record of the given type, in order. */
export async function recordsOfType(log: EventLog, type: string): Promise<{ seq: number; data: unknown }[]> {
  const out: { seq: number; data: unknown }[] = [];
  for await (const r of log.read({ types: [type] })) out.push({ seq: r.seq, data: r.data });
  return out;
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** `kioku serve` as its own process (hashed embedder unless `env` names another, no auth), resolved once it says it is ready. */
export function serveProcess(
  dataDir: string,
  port: number,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  entry: CliEntry = 'installed',
): Promise<ChildProcess> {
  return new Promise((resolveChild, reject) => {
    const child = spawn(
      process.execPath,
      [...CLI_ENTRY[entry], 'serve', '--quiet', '--data', dataDir, '--port', String(port), ...extraArgs],
      {
        cwd: REPO,
        env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_EMBEDDER: 'hash', KIOKU_AUTH_FILE: join(dataDir, 'none.json'), ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('kioku: ready')) resolveChild(child);
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}
