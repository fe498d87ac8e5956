// The public-benchmark scripts (`npm run eval:cmrc`, `npm run eval:locomo`) run end to end on
// tiny made-up files in the benchmarks' formats, and skip cleanly when the data is absent.
// The real development splits are read from ../shared/evals at run time, never copied here.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const fixture = (name: string): string => join(REPO, 'tests/fixtures', name);

function runScript(script: string, args: string[]): Promise<{ code: number; stdout: string; json: Record<string, unknown> | undefined }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, script), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
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
  it('recalls every question through the recall core and reports recall, the keyword-lane baseline and delivery', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('cmrc-tiny.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ eval: 'cmrc', questions: 3, paragraphs: 3, recall_at_10: 1, pass: true, keyword_lane: { recall_at_10: 1 } });
    const delivery = r.json?.['delivery'] as { source_paragraph_delivered: number; precision: number };
    expect(delivery.source_paragraph_delivered).toBeGreaterThan(0);
    expect(delivery.precision).toBeGreaterThan(0);
  }, 60_000);

  it('skips with a clear message when the data is absent', async () => {
    const r = await runScript('evals/cmrc/run.ts', ['--data', fixture('absent.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/not found .*skipped/);
    expect(r.json).toMatchObject({ eval: 'cmrc', skipped: true });
  });
});

describe('eval:locomo', () => {
  it('scores the recall core beside a BM25 baseline, per category, with category 5 apart', async () => {
    const r = await runScript('evals/locomo/run.ts', ['--data', fixture('locomo-tiny.json'), '--embedder', 'hash', '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ eval: 'locomo', conversations: 1, turns: 5 });
    const variants = r.json?.['variants'] as { name: string; overall: { n: number; r10: number }; byCategory: Record<string, { n: number }> }[];
    expect(variants.map((v) => v.name)).toEqual(['bm25 baseline', 'kioku default']);
    for (const v of variants) {
      expect(v.overall.n).toBe(3); // categories 1–4 only
      expect(v.byCategory['5']?.n).toBe(1);
    }
    // five turns and limit 10: every gold turn is among the results
    expect(variants[1]?.overall.r10).toBe(1);
  }, 60_000);

  it('skips with a clear message when the data is absent', async () => {
    const r = await runScript('evals/locomo/run.ts', ['--data', fixture('absent.json'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ eval: 'locomo', skipped: true });
  });
});
