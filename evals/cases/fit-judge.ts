// npm run eval:fit-judge [-- --json]
// Fit the local judge's calibration on the offline dev cases: for every case, the
// candidates the judge would see (top of the fused list), labelled positive when the
// case allows them (expected, any-of, allowed) and negative otherwise — quiet cases give
// negatives only, which LoCoMo (always answerable) cannot. Features are exactly the
// judge's: cosine of the utterance-with-dialogue to the item's stored vector, and the
// share of utterance terms the item holds. Prints the fitted coefficients and the
// in-sample pass/quiet figures at the 0.5 floor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { VectorProjection } from '../../projections/index.js';
import { createEmbedder } from '../../src/embed/index.js';
import { loadCases, loadLibrary } from '../../src/eval/index.js';
import { openKioku } from '../../src/kioku.js';
import { DisabledJudge, cosine, createRecallCore, denseQueryText, recall, termCoverage } from '../../src/recall/index.js';
import { tokenize } from '../../src/text/index.js';
import { fitLogistic } from '../logistic.js';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
const root = resolve(import.meta.dirname, '../..');
const cases = loadCases([join(root, 'evals/cases/recall.json'), join(root, 'evals/cases/conversation.json')]);
const dir = mkdtempSync(join(tmpdir(), 'kioku-fit-'));
await loadLibrary(dir, join(root, 'evals/library'), undefined);
const store = await openKioku({ data: dir });
const embedder = createEmbedder();
const core = createRecallCore(store, { embedder, judge: new DisabledJudge() });
const rows: { cos: number | undefined; cov: number; y: number; quiet: boolean }[] = [];
for (const c of cases) {
  if (c.expected_mode === 'skipped') continue;
  const packet = await recall(
    core,
    { query: c.query, ...(c.conversation ? { conversation: c.conversation } : {}), namespace: c.namespace ?? 'private', limit: 20 },
    { readOnly: true },
  );
  const dialogue = (c.conversation ?? []).slice(-2).map((m) => m.content);
  const judgeText = denseQueryText(dialogue.length ? [...dialogue, c.query].join('\n') : c.query);
  const [qv] = await embedder.embed([judgeText]);
  const lane = store.projections.get<VectorProjection>('vector').lane('text', embedder.id);
  const terms = new Set(tokenize(c.query));
  const allowed = new Set([...c.expected_ids, ...c.expected_any_ids.flat(), ...c.allowed_ids]);
  for (const r of packet.records) {
    const v = lane?.vectorOf(r.evidence_key);
    rows.push({
      cos: v ? cosine(qv as Float32Array, v) : undefined,
      cov: termCoverage(terms, `${r.title}\n${r.excerpt}`),
      y: allowed.has(r.id) ? 1 : 0,
      quiet: c.expected_delivery === 'quiet',
    });
  }
}
await core.close();
await store.close();
rmSync(dir, { recursive: true, force: true });

const withVector = rows.filter((r) => r.cos !== undefined);
const wv = fitLogistic(
  withVector.map((r) => [r.cos as number, r.cov]),
  withVector.map((r) => r.y),
  true,
);
const nv = fitLogistic(
  rows.map((r) => [r.cov]),
  rows.map((r) => r.y),
  true,
);
const p = (r: (typeof rows)[number]): number => 1 / (1 + Math.exp(-(r.cos !== undefined ? wv[0]! * r.cos + wv[1]! * r.cov + wv[2]! : nv[0]! * r.cov + nv[1]!)));
const pos = rows.filter((r) => r.y === 1);
const neg = rows.filter((r) => r.y === 0);
const report = {
  rows: rows.length,
  positives: pos.length,
  withVector: { cos: r4(wv[0]!), cov: r4(wv[1]!), bias: r4(wv[2]!) },
  withoutVector: { cov: r4(nv[0]!), bias: r4(nv[1]!) },
  at_floor: {
    positives_passing: r4(pos.filter((r) => p(r) >= 0.5).length / pos.length),
    negatives_passing: r4(neg.filter((r) => p(r) >= 0.5).length / neg.length),
    quiet_case_candidates_passing: rows.filter((r) => r.quiet && p(r) >= 0.5).length,
  },
};
process.stdout.write(
  `fitted on ${report.rows} candidates of the offline dev cases (${report.positives} allowed):\n  with a vector: sigmoid(${report.withVector.cos}·cos + ${report.withVector.cov}·coverage + ${report.withVector.bias})\n  without: sigmoid(${report.withoutVector.cov}·coverage + ${report.withoutVector.bias})\n  at 0.5: ${report.at_floor.positives_passing} of allowed pass, ${report.at_floor.negatives_passing} of others pass, ${report.at_floor.quiet_case_candidates_passing} candidates of quiet cases pass\n`,
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);

function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
