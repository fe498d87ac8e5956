import { spawn } from 'node:child_process';
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
  /** the last stdout line parsed as JSON (DESIGN.md §7), when there is one */
  json: Record<string, unknown> | undefined;
}

/** Run the real CLI from source in a child process with a clean environment. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'tools/kioku.ts'), ...args], {
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
