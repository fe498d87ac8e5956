// SIGKILL a process in the middle of appending: every seq it was acknowledged
// must be there on reopen, and the chain must verify.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openLog, verifyChain } from '../src/log/index.js';
import { REPO, tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

function appendUntilKilled(dataDir: string, killAfterAcks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'tests/fixtures/crash-appender.ts'), dataDir], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: number[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (/^\d+$/.test(line)) acked.push(Number(line));
      if (!killed && acked.length >= killAfterAcks) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`appender exited without being killed: ${stderr}`));
      else resolve(acked);
    });
  });
}

it('loses no acknowledged append when the writer is killed with SIGKILL', async () => {
  for (const round of [1, 2]) {
    const acked = await appendUntilKilled(dir.path, 1500 * round);
    expect(acked.length).toBeGreaterThanOrEqual(1500 * round);
    const log = await openLog(dir.path);
    try {
      const present = new Set<number>();
      for await (const r of log.read()) present.add(r.seq);
      const lost = acked.filter((s) => !present.has(s));
      expect(lost).toEqual([]);
      expect(log.head().seq).toBeGreaterThanOrEqual(Math.max(...acked));
      const report = await verifyChain(log.db);
      expect(report.ok).toBe(true);
      expect(report.checked).toBe(log.head().seq);
    } finally {
      await log.close();
    }
  }
});
