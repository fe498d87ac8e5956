// npm run eval:fit-judge [-- --json] [--write]
// Fit the local judge's calibration on the offline dev cases. Every case is recalled
// through the real pipeline with a recording judge, which keeps the exact requests the
// judge would see; each candidate is labelled positive when the case allows it
// (expected, any-of, allowed) and negative otherwise — quiet and unanswerable cases give
// negatives only, which LoCoMo (always answerable) cannot. Features are computed by the
// judge's own judgeFeatures(), so fit and inference cannot drift apart. Prints the
// coefficients, the share of allowed/other candidates over the 0.5 floor, and a simulated
// pass count (delivery floors, knowledge first, one history slot, metadata and quoted
// sections held) in-sample and leave-one-case-out.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, embedderConfigFromEnv } from '../../src/embed/index.js';
import { loadCases, loadLibrary, type EvalCase } from '../../src/eval/index.js';
import { normaliseBody } from '../../src/knowledge/evidence.js';
import { openKioku } from '../../src/kioku.js';
import {
  DEFAULT_DELIVERY_RULES,
  deliver,
  utteranceTerms,
  matchText,
  type DeliveryCandidate,
  type DeliveryRules,
  type DeliveryState,
  PLAIN_FEATURES as ALL_PLAIN,
  VECTOR_FEATURES as ALL_VECTOR,
  createRecallCore,
  measurementConfig,
  isQuoted,
  judgeFeatures,
  recall,
  type FeatureName,
  type JudgeFeatures,
} from '../../src/recall/index.js';
import { fitLogistic } from '../logistic.js';
import { RecordingJudge } from './recording-judge.js';
import { DOC_ROW_FEATURES, deliverDocCase, docRowFeatures, loadDocRows, type DocCase } from './judge-doc-rows.js';

/** What this fit's choices were, beside the earlier sessions' (written into calibration.json's selected_on_leave_one_out). */
const SELECTED_NOW = [
  "issue 30: CJK coverage by character (not straddling bigrams), lgap (coverage minus the best), rank (1/(1+fused rank)), title coverage over title and heading path (kept: offline leave-one-case-out 36 -> 38, docs dev leave-one-question-out answer 0.70 -> 0.81); 'miss' (heaviest unmatched term) and title-only coverage (dropped)",
  'issue 30: documentation dev rows weighted 0.05 per row (1 and 0.3 dropped: the judge then delivered almost nothing on docs and lost offline cases)',
  'issue 30: delivery partial_of higher_ranked_match and history_may_lead (replay: evals/replay/delivery-rules.ts)',
  "issue 30: the unanswerable doc questions' rows weighted x5 / x20 for quiet (dropped: offline leave-one-case-out 38 -> 36 / 34; at x20 Vue's answer 0.89 -> 0.61)",
  'issue 30 (G): the judge reads the passage delivery would hand over (passageFor), not the first excerpt of a long section (164 of 2,016 doc rows changed; offline 38/38 and docs dev 76/76 in-sample and leave-one-out, unchanged)',
  'issue 30 (G): delivery behind_best 0.3 (replay; 0.2 loses a Vitest dev answer, 0.25-0.4 none; Vitest dev items 2.13 -> 1.93 on the cached rows)',
  'issue 30 (R): the heading cue (cue_weights.heading 0.4) changed the Vitest pools and fused ranks (49 of 51 Vitest dev questions and 1 Vue question have other rows; regenerated) with delivery partial_of complete_match and behind_best 0.2: simulated offline judged 37/35 -> 38/36 (in-sample / leave-one-case-out), docs dev 79/79 -> 82/82',
  'issue 30 (D): delivery unsure_best (best knowledge verdict below 0.6: the first two fused ranks at a floor of 0.3; weights unchanged): simulated offline judged 38/36 unchanged, docs dev 82/82 -> 84/84 (Vue vz-010, vz-062)',
  'issue 30 (V): the link cue (cue_weights.link 0.4: sections the ten best-ranked link to) changed the doc pools and fused ranks (rows regenerated): simulated offline judged 38/36 unchanged, docs dev 84/84 -> 85/85 (Vitest vt-050)',
];

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    features: { type: 'string' },
    show: { type: 'string' },
    'with-locomo': { type: 'string' },
    'locomo-weight': { type: 'string', default: '1' },
    'tune-offset': { type: 'boolean', default: false },
    l2: { type: 'string', default: '0' },
    'keep-partial-matches': { type: 'boolean', default: false },
    // the real-documentation dev questions' rows (evals/cases/judge-doc-rows.json) join the fit unless --without-docs
    'without-docs': { type: 'boolean', default: false },
    // what one doc row weighs against one offline row: 0.05 chosen on leave-one-out (1 and 0.3 made the judge
    // deliver almost nothing — the docs' rows label only the section holding the exact answer string as right)
    'docs-weight': { type: 'string', default: '0.05' },
    // write the fitted weights, the fit's figures and today's date to src/recall/judge/calibration.json
    write: { type: 'boolean', default: false },
  },
});
const rules: DeliveryRules = { ...DEFAULT_DELIVERY_RULES, hold_partial_matches: !values['keep-partial-matches'] };
const root = resolve(import.meta.dirname, '../..');
const calibrationFile = join(root, 'src/recall/judge/calibration.json');
const cases = loadCases([join(root, 'evals/cases/recall.json'), join(root, 'evals/cases/conversation.json')]);
const dir = mkdtempSync(join(tmpdir(), 'kioku-fit-'));
await loadLibrary(dir, join(root, 'evals/library'), undefined);
const store = await openKioku({ data: dir });
const records = store.projections.views.records;

const recorder = new RecordingJudge();
const core = createRecallCore(store, { embedder: createEmbedder(embedderConfigFromEnv()), judge: recorder });
const embedderId = core.embedder?.id ?? 'none';
// no latency deadlines while measuring: the fit must not depend on machine load
core.config = measurementConfig();

interface Row extends JudgeFeatures {
  case: string;
  text: string;
  id: string;
  history: boolean;
  held: boolean;
  y: number;
  /** what delivery reads of it */
  candidate: Omit<DeliveryCandidate, 'verdict' | 'rank'>;
}
/** per case: what delivery reads of the turn */
const turnState = new Map<string, DeliveryState>();
const rows: Row[] = [];
for (const c of cases) {
  if (c.expected_mode === 'skipped') continue;
  const ns = c.namespace ?? 'private';
  recorder.take();
  // the case's reference instant: time phrases resolve the same on any day
  core.now = c.now ? () => new Date(c.now as string) : undefined;
  await recall(core, { query: c.query, ...(c.conversation ? { conversation: c.conversation } : {}), namespace: ns }, { readOnly: true, namespaces: [ns] });
  const request = recorder.take();
  if (!request) continue;
  const allowed = new Set([...c.expected_ids, ...c.expected_any_ids.flat(), ...c.allowed_ids]);
  const assistant = (c.conversation ?? []).filter((m) => m.role === 'assistant').map((m) => normaliseBody(m.content));
  turnState.set(c.id, {
    delivered: new Map(),
    assistant_texts: (c.conversation ?? []).filter((m) => m.role === 'assistant').map((m) => m.content),
    query_terms: utteranceTerms(request.utterance, request.timePhrase),
  });
  for (const [key, f] of judgeFeatures(request)) {
    const e = records.get(key);
    if (!e) continue;
    const candidate = request.candidates.find((x) => x.key === key);
    rows.push({
      ...f,
      case: c.id,
      text: `${candidate?.title ?? ''} / ${candidate?.text ?? ''}`.replace(/\s+/g, ' ').slice(0, 70),
      id: e.id,
      history: ['note', 'trace', 'episode'].includes(e.layer),
      held: Boolean(e.meta) || isQuoted(candidate?.text ?? '', assistant),
      y: allowed.has(e.id) ? 1 : 0,
      candidate: {
        key,
        kind: ['note', 'trace', 'episode'].includes(e.layer) ? 'history' : 'knowledge',
        layer: e.layer,
        title: e.title,
        text: e.text,
        match_text: matchText(e),
        meta: e.meta,
        occurred_at: e.occurred_at,
      },
    });
  }
}
await core.close();
await store.close();
rmSync(dir, { recursive: true, force: true });

// --features narrows the signals (exploration); the default is every signal the judge computes
const chosen = values.features?.split(',') as FeatureName[] | undefined;
const VECTOR_FEATURES = ALL_VECTOR.filter((f) => !chosen || chosen.includes(f));
const PLAIN_FEATURES = ALL_PLAIN.filter((f) => !chosen || chosen.includes(f));
// offset: added to both biases after the fit, chosen to maximise whole-case passes (the
// likelihood fit calibrates single candidates; a case needs the right one in and the rest out)
type Model = { withVector: number[]; withoutVector: number[]; offset: number };
// --with-locomo rows.json (from eval:locomo --judge-check --judge-rows): LoCoMo's judged candidates
// join the fit (never the case simulation), together weighing --locomo-weight × the offline rows
type Labelled = JudgeFeatures & { y: number };
const l2 = Number(values.l2);
const locomo: Labelled[] = values['with-locomo'] ? (JSON.parse(readFileSync(values['with-locomo'], 'utf8')) as Labelled[]) : [];
const docFile = values['without-docs'] ? undefined : loadDocRows();
if (docFile && docFile.features.join() !== DOC_ROW_FEATURES.join())
  throw new Error('evals/cases/judge-doc-rows.json was built for other signals: rebuild it (node --import tsx evals/cases/judge-doc-rows.ts --write)');
const docCases: DocCase[] = docFile?.cases ?? [];
type DocLabelled = Labelled & { case: string };
const docRows: DocLabelled[] = docCases.flatMap((c) => c.rows.map((r) => ({ ...docRowFeatures(r), y: r.y, case: c.id })));
const docsWeight = Number(values['docs-weight']);
const fit = (train: Row[], trainDocs: readonly DocLabelled[] = docRows): Model => {
  const perLocomoRow = locomo.length ? (Number(values['locomo-weight']) * train.length) / locomo.length : 0;
  const all: { r: Labelled; w: number }[] = [
    ...train.map((r) => ({ r, w: 1 })),
    ...trainDocs.map((r) => ({ r, w: docsWeight })),
    ...locomo.map((r) => ({ r, w: perLocomoRow })),
  ];
  const wv = all.filter((x) => x.r.cos !== undefined);
  return {
    offset: 0,
    withVector: fitLogistic(
      wv.map((x) => VECTOR_FEATURES.map((k) => x.r[k] as number)),
      wv.map((x) => x.r.y),
      false,
      wv.map((x) => x.w),
      l2,
    ),
    withoutVector: fitLogistic(
      all.map((x) => PLAIN_FEATURES.map((k) => x.r[k])),
      all.map((x) => x.r.y),
      false,
      all.map((x) => x.w),
      l2,
    ),
  };
};
const score = (m: Model, r: JudgeFeatures): number => {
  const [w, ks] = r.cos !== undefined ? [m.withVector, VECTOR_FEATURES] : [m.withoutVector, PLAIN_FEATURES];
  return 1 / (1 + Math.exp(-(ks.reduce((s, k, i) => s + (r[k] as number) * w[i]!, 0) + w[ks.length]! + m.offset)));
};

/** The real delivery rules over the case's candidates with this model's verdicts, then the case's labels. */
function passes(c: EvalCase, list: Row[], m: Model): boolean {
  const ranked = [...list].sort((a, b) => score(m, b) - score(m, a));
  const result = deliver(
    ranked.map((r, rank) => ({ ...r.candidate, verdict: score(m, r), rank })),
    turnState.get(c.id) ?? { delivered: new Map(), assistant_texts: [] },
    rules,
  );
  const ids = new Map(list.map((r) => [r.candidate.key, r.id]));
  const delivered = [...new Set(result.items.map((i) => ids.get(i.key) as string))];
  const allowed = new Set([...c.expected_ids, ...c.expected_any_ids.flat(), ...c.allowed_ids]);
  // retrieval: every expected id (one of each any-of group) among what the judge saw
  const seen = new Set(list.map((r) => r.id));
  if (!c.expected_ids.every((id) => seen.has(id)) || !c.expected_any_ids.every((g) => g.some((id) => seen.has(id)))) return false;
  const clean = delivered.every((d) => allowed.has(d) && !c.forbidden_ids.includes(d));
  return c.expected_delivery === 'deliver' ? delivered.length > 0 && clean : c.expected_delivery === 'quiet' ? delivered.length === 0 : clean;
}

const byCase = new Map<string, Row[]>();
for (const r of rows) byCase.set(r.case, [...(byCase.get(r.case) ?? []), r]);
const rowsOf = (id: string): Row[] => byCase.get(id) ?? [];
const judged = cases.filter((c) => byCase.has(c.id));
const passCount = (m: Model, among: EvalCase[]): number => among.filter((c) => passes(c, rowsOf(c.id), m)).length;
/** The offset (−2 … 2, step 0.1) that passes the most of these cases; the smallest shift wins ties. */
const tuneOffset = (m: Model, among: EvalCase[]): Model => {
  if (!values['tune-offset']) return m;
  let best = m;
  let bestPass = passCount(m, among);
  for (let i = -20; i <= 20; i++) {
    const trial = { ...m, offset: i / 10 };
    const n = passCount(trial, among);
    if (n > bestPass || (n === bestPass && Math.abs(trial.offset) < Math.abs(best.offset))) [best, bestPass] = [trial, n];
  }
  return best;
};
const model = tuneOffset(fit(rows), judged);
const inSample = passCount(model, judged);
const looFailing = judged.filter(
  (c) =>
    !passes(
      c,
      rowsOf(c.id),
      tuneOffset(
        fit(rows.filter((r) => r.case !== c.id)),
        judged.filter((x) => x.id !== c.id),
      ),
    ),
);
const notJudged = cases.length - judged.length; // acknowledgements and greetings: skipped before any judge

/** A documentation question passes when what is delivered holds its answer (answerable) or nothing is delivered (unanswerable). */
const docVerdicts = (c: DocCase, m: Model): number[] => c.rows.map((r) => score(m, docRowFeatures(r)));
const docDelivered = (c: DocCase, m: Model): number[] => deliverDocCase(c, docVerdicts(c, m), rules);
const docPasses = (c: DocCase, m: Model): boolean => {
  const got = docDelivered(c, m);
  return c.answerable ? got.some((i) => c.rows[i]?.y === 1) : got.length === 0;
};
type DocFigures = { passed: number; answer_delivered: number; quiet_unanswerable: number; items_per_question: number; by_corpus?: Record<string, DocFigures> };
const docFigures = (modelOf: (c: DocCase) => Model, among: DocCase[] = docCases): DocFigures => {
  const answerable = among.filter((c) => c.answerable);
  const unanswerable = among.filter((c) => !c.answerable);
  const r4 = (x: number): number => Math.round(x * 10000) / 10000;
  const items = among.map((c) => docDelivered(c, modelOf(c)).length);
  const corpora = [...new Set(among.map((c) => c.corpus))];
  return {
    ...(corpora.length > 1 ? { by_corpus: Object.fromEntries(corpora.map((k) => [k, docFigures(modelOf, among.filter((c) => c.corpus === k))])) } : {}),
    passed: among.filter((c) => docPasses(c, modelOf(c))).length,
    answer_delivered: r4(answerable.filter((c) => docPasses(c, modelOf(c))).length / Math.max(1, answerable.length)),
    quiet_unanswerable: r4(unanswerable.filter((c) => docPasses(c, modelOf(c))).length / Math.max(1, unanswerable.length)),
    items_per_question: r4(items.reduce((a, b) => a + b, 0) / Math.max(1, items.length)),
  };
};
const docsInSample = docFigures(() => model);
// one fit per held-out question: docFigures asks for a question's model once per figure and again per corpus
const heldOut = new Map<DocCase, Model>();
const withoutQuestion = (c: DocCase): Model => {
  let m = heldOut.get(c);
  if (!m) heldOut.set(c, (m = fit(rows, docRows.filter((r) => r.case !== c.id))));
  return m;
};
const docsLeaveOneOut = docFigures(withoutQuestion);
const pos = rows.filter((r) => r.y === 1);
const neg = rows.filter((r) => r.y === 0);
const r4 = (x: number): number => Math.round(x * 10000) / 10000;
const named = (w: number[], ks: readonly string[]): Record<string, number> =>
  Object.fromEntries([...ks.map((k, i) => [k, r4(w[i]!)]), ['bias', r4(w[ks.length]! + model.offset)]]);
const report = {
  rows: rows.length,
  positives: pos.length,
  withVector: named(model.withVector, VECTOR_FEATURES),
  withoutVector: named(model.withoutVector, PLAIN_FEATURES),
  at_floor: {
    positives_passing: r4(pos.filter((r) => score(model, r) >= 0.5).length / pos.length),
    negatives_passing: r4(neg.filter((r) => score(model, r) >= 0.5).length / neg.length),
  },
  ...(locomo.length
    ? {
        locomo_at_history_floor: (() => {
          const passed = locomo.filter((r) => score(model, r as Row) >= DEFAULT_DELIVERY_RULES.history_floor);
          const gold = locomo.filter((r) => r.y === 1).length;
          const tp = passed.filter((r) => r.y === 1).length;
          return { passed: passed.length, of: locomo.length, precision: r4(tp / Math.max(1, passed.length)), recall: r4(tp / Math.max(1, gold)) };
        })(),
      }
    : {}),
  // judged cases apart: the acknowledgement cases are skipped before any judge and pass whatever the weights
  simulated_pass: {
    judged_cases: judged.length,
    judged_in_sample: inSample,
    judged_leave_one_case_out: judged.length - looFailing.length,
    acknowledgement_cases: notJudged,
    cases: cases.length,
  },
  leave_one_case_out_failing: looFailing.map((c) => c.id),
  // the real-documentation dev questions (their rows join the fit): a simulation on cached judge rows, the answer string
  // in a delivered section; the lead's eval:docs measures the same through a real server
  docs: {
    questions: docCases.length,
    by_corpus: Object.fromEntries([...new Set(docCases.map((c) => c.corpus))].map((k) => [k, docCases.filter((c) => c.corpus === k).length])),
    rows: docRows.length,
    positives: docRows.filter((r) => r.y === 1).length,
    weight: docsWeight,
    in_sample: docsInSample,
    leave_one_question_out: docsLeaveOneOut,
  },
  selected_on_leave_one_out: (JSON.parse(readFileSync(calibrationFile, 'utf8')) as { selected_on_leave_one_out: string[] }).selected_on_leave_one_out,
  options: {
    l2,
    tune_offset: values['tune-offset'],
    with_locomo: locomo.length > 0,
    hold_partial_matches: rules.hold_partial_matches,
    features: chosen ?? 'all',
  },
};
if (values.write) {
  if (chosen || locomo.length || values['tune-offset'] || l2 !== 0 || !rules.hold_partial_matches)
    process.stderr.write('fit-judge: --write records the options used; the shipped calibration is normally fitted with none\n');
  const previous = JSON.parse(readFileSync(calibrationFile, 'utf8')) as Record<string, unknown>;
  const written = {
    description: previous['description'],
    fitted_at: new Date().toISOString().slice(0, 10),
    fit: {
      command: 'npm run eval:fit-judge -- --write',
      cases: ['evals/cases/recall.json', 'evals/cases/conversation.json'],
      library: 'evals/library',
      embedder: embedderId,
      clock: "the case files' now",
      options: { l2, tune_offset: values['tune-offset'], with_locomo: locomo.length > 0, hold_partial_matches: rules.hold_partial_matches },
      rows: report.rows,
      positives: report.positives,
      judged_cases: judged.length,
      acknowledgement_cases: notJudged,
      simulated_judged_pass: { in_sample: inSample, leave_one_case_out: judged.length - looFailing.length },
      doc_rows: docFile
        ? {
            file: 'evals/cases/judge-doc-rows.json',
            built_by: docFile.command,
            split: 'dev',
            questions: report.docs.by_corpus,
            rows: report.docs.rows,
            positives: report.docs.positives,
            weight: docsWeight,
            simulated_pass: { in_sample: docsInSample.passed, leave_one_question_out: docsLeaveOneOut.passed },
          }
        : null,
    },
    selected_on_leave_one_out: [...new Set([...((previous['selected_on_leave_one_out'] as string[] | undefined) ?? []), ...SELECTED_NOW])],
    withVector: report.withVector,
    withoutVector: report.withoutVector,
  };
  writeFileSync(calibrationFile, `${JSON.stringify(written, null, 2)}\n`);
}
const show = (o: Record<string, number>): string =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
process.stdout.write(
  `fitted on ${report.rows} judged candidates of the offline dev cases (${report.positives} allowed)\n  with a vector: ${show(report.withVector)}\n  without: ${show(report.withoutVector)}\n  at 0.5: ${report.at_floor.positives_passing} of allowed pass, ${report.at_floor.negatives_passing} of others pass\n  ${report.locomo_at_history_floor ? `LoCoMo rows at 0.75: ${JSON.stringify(report.locomo_at_history_floor)}\n  ` : ''}simulated pass of the ${judged.length} judged cases: ${inSample} in-sample, ${judged.length - looFailing.length} leave-one-case-out (failing: ${report.leave_one_case_out_failing.join(', ')}); the ${notJudged} acknowledgement cases are skipped before any judge\n  documentation dev questions (${docCases.length}, ${docRows.length} rows): in-sample ${JSON.stringify(docsInSample)}; leave-one-question-out ${JSON.stringify(docsLeaveOneOut)}\n  chosen on the leave-one-case-out figure (so it is not a clean hold-out): ${report.selected_on_leave_one_out.join('; ')}\n${values.write ? `  written to ${calibrationFile}\n` : ''}`,
);
for (const id of values.show?.split(',') ?? []) {
  process.stdout.write(`## ${id}\n`);
  for (const r of rows
    .filter((x) => x.case === id)
    .sort((a, b) => score(model, b) - score(model, a))
    .slice(0, 8))
    process.stdout.write(
      `  ${r.y ? '+' : ' '} ${r.id.padEnd(20)} ${score(model, r).toFixed(2)} ${[...VECTOR_FEATURES].map((f) => `${f} ${(r[f] ?? NaN).toFixed(2)}`).join(' ')} ${r.held ? 'HELD' : ''} | ${r.text}\n`,
    );
}
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
