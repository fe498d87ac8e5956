// The public-benchmark scripts (`npm run eval:cmrc`, `npm run eval:locomo`) run end to end on
// tiny made-up files in the benchmarks' formats — through a real `kioku serve` process with
// state — skip cleanly when the data is absent on a developer's machine, and fail (exit 2) in CI.
// The real development splits are read from ../shared/evals at run time, never copied here.
// The footprint benches run at a small size and print what their issue asks of them.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const fixture = (name: string): string => join(REPO, 'tests/fixtures', name);

function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ code: number; stdout: string; json: Record<string, unknown> | undefined }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO, script), ...args], {
      cwd: REPO,
      // the scripts start the CLI as installed (bin/kioku.js → dist/, kept fresh by tests/global-setup.ts), not through tsx
      env: { ...process.env, CI: '', KIOKU_EMBEDDER: 'hash', KIOKU_EVAL_ENTRY: 'installed', ...env },
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
      done({ code: code ?? -1, stdout, json });
    });
  });
}

describe('eval:cmrc', () => {
  it('imports the articles, asks every question through a real server in file and reverse order, with read-only and keyword figures beside', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('cmrc-tiny.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      eval: 'cmrc',
      questions: 3,
      articles: 1,
      recall_at_10: 1,
      pass: true,
      orders: { file: { recall_at_10: 1 }, reverse: { recall_at_10: 1 } },
      read_only_in_process: { recall_at_10: 1 },
      keyword_lane: { recall_at_10: 1 },
      import: { files: 1, added: 1 },
    });
    const delivery = (r.json?.['orders'] as Record<string, { delivery: { source_delivered: number; precision: number } }>)['file']?.delivery;
    expect(delivery?.source_delivered).toBeGreaterThan(0);
    expect(delivery?.precision).toBeGreaterThan(0);
  }, 90_000);

  it('is a usage error (exit 2) for an unknown order', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('cmrc-tiny.json'), '--orders', 'sideways']);
    expect(r.code).toBe(2);
  });

  it('fails with exit 2 in CI when the data is absent', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('absent.json'), '--json'], { CI: 'true' });
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ eval: 'cmrc', ok: false, skipped: false });
  });

  it('skips with a clear message when the data is absent', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('absent.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/not found .*skipped/);
    expect(r.json).toMatchObject({ eval: 'cmrc', skipped: true });
  });
});

describe('eval:locomo', () => {
  it('writes the turns through POST /v1/memories with their own ids and scores recall through a real server, BM25 beside, category 5 apart', async () => {
    const r = await runScript('evals/locomo/run.ts', ['--data', fixture('locomo-tiny.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ eval: 'locomo', conversations: 1, turns: 5, questions: 4, embedder: 'hash', malformed_evidence_ids: 0 });
    const orders = r.json?.['orders'] as Record<string, { overall: { n: number; r10: number }; by_category_r10: Record<string, number> }>;
    for (const o of ['file', 'reverse']) {
      expect(orders[o]?.overall.n).toBe(3); // categories 1–4 only
      expect(orders[o]?.by_category_r10['5']).toBeDefined();
      // five turns and limit 10: every gold turn is among the results
      expect(orders[o]?.overall.r10).toBe(1);
    }
    expect(r.json).toMatchObject({ bm25: { overall: { n: 3 } }, read_only_in_process: { overall: { n: 3, r10: 1 } } });
  }, 90_000);

  it('keeps the in-process ablations as eval:locomo:internal', async () => {
    const r = await runScript('evals/locomo/internal.ts', ['--data', fixture('locomo-tiny.json'), '--embedder', 'hash', '--json']);
    expect(r.code).toBe(0);
    const variants = r.json?.['variants'] as { name: string; overall: { n: number; r10: number } }[];
    expect(variants.map((v) => v.name)).toEqual(['bm25 baseline', 'kioku default']);
    expect(variants[1]?.overall.r10).toBe(1);
  }, 60_000);

  it('skips with a clear message when the data is absent', async () => {
    const r = await runScript('evals/locomo/run.ts', ['--data', fixture('absent.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ eval: 'locomo', skipped: true });
  });
});

describe('footprint benches', () => {
  it('bench:index reports the library as a fresh service process holds it', async () => {
    const r = await runScript('tools/bench/index.ts', ['--records', '1500', '--queries', '20', '--no-model', '--json'], {}, ['--expose-gc']);
    expect(r.code).toBe(0);
    const service = r.json?.['service'] as Record<string, unknown>;
    expect(service).toMatchObject({ modelReadyMs: null, dominant: expect.any(String) });
    expect(service['openMsRuns']).toHaveLength(3);
    expect(service['rssMB']).toBeGreaterThan(0);
    expect(service['hnswRecallAt10']).toBeGreaterThanOrEqual(0.9);
    expect((service['parts'] as Record<string, number>)['hnsw_mb']).toBeGreaterThan(0);
    expect((service['keywordMs'] as { p50: number }).p50).toBeGreaterThan(0);
  }, 120_000);

  it('bench:recall measures turns, then the library as a fresh service process holds it', async () => {
    const r = await runScript('tools/bench/recall.ts', ['--records', '1000', '--turns', '10', '--no-model', '--json'], {}, ['--expose-gc']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ bench: 'recall', records: 1000, turns: 10 });
    expect((r.json?.['disk'] as { logMB: number }).logMB).toBeGreaterThan(0);
    const service = r.json?.['service'] as Record<string, unknown>;
    expect(service).toMatchObject({ modelReadyMs: null, dominant: expect.any(String), replayed: 0 });
    expect(service['openMsRuns']).toHaveLength(3);
    expect(service['heapUsedMB']).toBeGreaterThan(0);
  }, 120_000);

  it('bench:import runs kioku import with the bundled model over two copies and embeds every section', async () => {
    const r = await runScript('tools/bench/import.ts', ['--sections', '40', '--per-file', '10', '--workers', '2', '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ bench: 'import', sections: 40, files: 4, workers: 2, ok: true, embedded: 40 });
  }, 120_000);
});
