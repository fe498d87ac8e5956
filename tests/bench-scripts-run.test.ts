// The footprint benches run end to end at a small size and print what the issue asks of them:
// bench:index measures the library in a fresh process (start-up, RSS, heap, external, the
// dominant part, query latency, recall against exact search); bench:import runs `kioku import`
// with the bundled model spread over two copies and embeds every section.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');

function run(script: string, args: string[], nodeArgs: string[] = []): Promise<{ code: number; json: Record<string, unknown> | undefined }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO, script), ...args, '--json'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      done({ code: code ?? -1, json });
    });
  });
}

it('bench:index reports the library as a fresh service process holds it', async () => {
  const r = await run('tools/bench/index.ts', ['--records', '3000', '--queries', '20', '--no-model'], ['--expose-gc']);
  expect(r.code).toBe(0);
  const service = r.json?.['service'] as Record<string, unknown>;
  expect(service).toMatchObject({ modelReadyMs: null, dominant: expect.any(String) });
  expect(service['openMsRuns']).toHaveLength(3);
  expect(service['rssMB']).toBeGreaterThan(0);
  expect(service['hnswRecallAt10']).toBeGreaterThanOrEqual(0.9);
  expect((service['parts'] as Record<string, number>)['hnsw_mb']).toBeGreaterThan(0);
  expect((service['keywordMs'] as { p50: number }).p50).toBeGreaterThan(0);
}, 120_000);

it('bench:import imports and embeds every section with two model copies', async () => {
  const r = await run('tools/bench/import.ts', ['--sections', '40', '--per-file', '10', '--workers', '2']);
  expect(r.code).toBe(0);
  expect(r.json).toMatchObject({ bench: 'import', sections: 40, files: 4, workers: 2, ok: true, embedded: 40 });
}, 120_000);
