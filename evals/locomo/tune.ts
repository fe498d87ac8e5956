// npm run eval:locomo:tune -- --library DIR [--family graph|gap|entity|turn|plain|feedback|feedback_terms|lanes|budget|all] [--depth N] [--json]
// Tuning on the LoCoMo development split with leave-one-conversation-out (issue 35): a library
// written and embedded by `npm run eval:locomo -- --reuse-library [--plain]` (the front-door
// write shape, kept under the OS temp dir) is asked every question read-only in process, once per
// configuration of a family (the default first). For each family: recall@10 per configuration,
// by category and conversation, and the leave-one-conversation-out figure — for each
// conversation, the configuration best on the other conversations, scored on it. A default
// changes only on a gain through the front door (run.ts); this ranks the candidates cheaply.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openKioku } from '../../src/kioku.js';
import { createRecallCore, DEFAULT_RECALL_CONFIG, measurementConfig, recall, type RecallConfig } from '../../src/recall/index.js';
import { dataMissing } from '../data.js';
import { questionsOf, score, type Question, type Sample } from './data.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    library: { type: 'string' },
    family: { type: 'string', default: 'graph' },
    data: { type: 'string' },
    // print the default's missed gold turns of these categories (their rank within 50, or absent): what the misses share with the question
    misses: { type: 'string' },
    // score recall within this many records instead of R@10 (what a re-rank could reach: --depth 50)
    depth: { type: 'string', default: '10' },
  },
});
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/locomo/locomo-dev.json'));
if (!existsSync(file)) dataMissing('locomo', file, values.json);
if (!values.library || !existsSync(resolve(values.library, 'log'))) {
  process.stderr.write('usage: --library DIR (a library kept by npm run eval:locomo -- --reuse-library)\n');
  process.exit(2);
}

const depth = Number(values.depth);
const base = measurementConfig(DEFAULT_RECALL_CONFIG);
const withWeight = (lane: string, w: number): RecallConfig => ({ ...base, channel_weights: { ...base.channel_weights, [lane]: w } });
/** The candidate configurations of each family, the default first. */
const FAMILIES: Record<string, Record<string, RecallConfig>> = {
  graph: Object.fromEntries([0, 0.1, 0.2, 0.3, 0.5].map((w) => [`graph ${w}`, withWeight('graph', w)])),
  gap: Object.fromEntries([0, 1, 5, 30].map((m) => [`plain gap ${m} min`, { ...base, plain_session_gap_min: m }])),
  entity: Object.fromEntries([0.4, 0.6, 0.8, 1.0].map((w) => [`entity cue ${w}`, { ...base, cue_weights: { ...base.cue_weights, entity: w } }])),
  // the turn prior (src/recall/turn-prior.ts): short turns lose ln(chars / length_chars) × weight, the named speaker's turns gain after the neighbour lifts
  turn: Object.fromEntries(
    [[base.turn_prior.length_weight, base.turn_prior.length_chars, base.turn_prior.speaker_weight], ...[0, 0.2, 0.4, 0.6].flatMap((l) => [160, 240, 320].flatMap((c) => [0, 0.3, 0.5, 0.8].map((sp) => [l, c, sp])))]
      .filter(([l, c], i) => i === 0 || l !== 0 || c === 240)
      .map(([l, c, sp]) => [`turn len ${l}/${c} spk ${sp}`, { ...base, turn_prior: { length_weight: l as number, length_chars: c as number, speaker_weight: sp as number } }]),
  ),
  // the same prior for plain memories that open with a speaker (a library written with --plain)
  plain: Object.fromEntries(
    [[base.turn_prior.plain_lines ?? false, base.turn_prior.length_weight, base.turn_prior.speaker_weight], ...[false, true].flatMap((on) => [0.2, 0.4].flatMap((l) => [0, 0.3, 0.5].map((sp) => [on, l, sp])))]
      .map(([on, l, sp]) => [`plain lines ${on ? 'on' : 'off'} len ${l} spk ${sp}`, { ...base, turn_prior: { ...base.turn_prior, plain_lines: on as boolean, length_weight: l as number, speaker_weight: sp as number } }]),
  ),
  // pseudo-relevance feedback (src/recall/feedback.ts): a second dense query, the query with the mean of the first pass's best candidates
  feedback: Object.fromEntries(
    [[0, 0, base.feedback.docs, base.feedback.query_share], ...[0.2, 0.4].flatMap((w) => [0, 0.3].flatMap((ww) => [3, 5, 10].flatMap((d) => [0.3, 0.6].map((sh) => [w, ww, d, sh]))))]
      .map(([w, ww, d, sh]) => [
        `feedback ${w}/${ww} docs ${d} share ${sh}`,
        { ...base, channel_weights: { ...base.channel_weights, feedback: w as number, feedback_window: ww as number }, feedback: { ...base.feedback, docs: d as number, query_share: sh as number } },
      ]),
  ),
  // the keyword side of the feedback: the best candidates' telling words added to the question
  feedback_terms: Object.fromEntries(
    [[0, base.feedback.docs, base.feedback.terms], ...[0.2, 0.4, 0.6].flatMap((w) => [3, 5, 10].flatMap((d) => [5, 10, 20].map((m) => [w, d, m])))].map(([w, d, m]) => [
      `feedback terms ${w} docs ${d} terms ${m}`,
      { ...base, channel_weights: { ...base.channel_weights, feedback_terms: w as number }, feedback: { ...base.feedback, docs: d as number, terms: m as number } },
    ]),
  ),
  // the lane weights again, with the turn prior in place
  lanes: Object.fromEntries(
    [[1, 0.4, 0.6], ...[0.7, 1].flatMap((k) => [0.4, 0.6, 0.8].flatMap((v) => [0.4, 0.6, 0.8].map((w) => [k, v, w])))].map(([k, v, w]) => [
      `lanes kw ${k} vec ${v} win ${w}`,
      { ...base, channel_weights: { ...base.channel_weights, keyword: k as number, vector: v as number, window: w as number } },
    ]),
  ),
  // candidates each lane returns (min-max fusion normalises over them: more candidates also change every lane's scale)
  budget: Object.fromEntries([50, 100, 200].map((k) => [`lane budget ${k}`, { ...base, lane_budget: k }])),
};
const family = values.family === 'all' ? Object.assign({}, ...Object.values(FAMILIES)) : FAMILIES[values.family];
if (!family) {
  process.stderr.write(`--family takes ${Object.keys(FAMILIES).join(', ')} or all\n`);
  process.exit(2);
}

const samples = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
const store = await openKioku({ data: values.library });
const core = createRecallCore(store, { backgroundIndexing: false });
const namespaces = new Set([...store.projections.views.records.all({})].map((r) => r.ns));
const questions: Question[] = questionsOf(samples).filter((q) => q.category !== 5 && namespaces.has(q.ns));

/** per configuration: each question's recall@10 */
const results: Record<string, number[]> = {};
for (const [name, config] of Object.entries(family as Record<string, RecallConfig>)) {
  const r: number[] = [];
  for (const q of questions) {
    const packet = await recall({ ...core, config }, { query: q.question, namespace: q.ns, limit: depth }, { readOnly: true });
    const ids = packet.records.map((x) => x.id);
    r.push(depth === 10 ? score(ids, q.gold).r10 : q.gold.filter((g) => ids.includes(g)).length / new Set(q.gold).size);
  }
  results[name] = r;
  process.stderr.write(`  ${name}: R@10 ${mean(r, () => true)}\n`);
}
if (values.misses) await printMisses(values.misses.split(',').map(Number));
await core.close();
await store.close();

async function printMisses(categories: number[]): Promise<void> {
  const records = store.projections.views.records;
  for (const q of questions.filter((x) => categories.includes(x.category))) {
    const packet = await recall({ ...core, config: base }, { query: q.question, namespace: q.ns, limit: 50 }, { readOnly: true });
    const ids = packet.records.map((x) => x.id);
    const missed = q.gold.filter((g) => !ids.slice(0, 10).includes(g));
    if (!missed.length) continue;
    process.stderr.write(`[${q.category}] ${q.ns} ${q.question}\n`);
    for (const g of q.gold) {
      const rank = ids.indexOf(g);
      const text = [...records.all({})].find((r) => r.ns === q.ns && r.id === g)?.text ?? '?';
      process.stderr.write(`   ${rank < 0 ? '  -' : String(rank + 1).padStart(3)} ${g.padEnd(7)} ${text.slice(0, 110)}\n`);
    }
  }
}

function mean(r: readonly number[], keep: (q: Question) => boolean): number {
  let sum = 0;
  let n = 0;
  questions.forEach((q, i) => {
    if (!keep(q)) return;
    sum += r[i] as number;
    n += 1;
  });
  return n ? Math.round((sum / n) * 10_000) / 10_000 : 0;
}

const conversations = [...new Set(questions.map((q) => q.ns))].sort();
const categories = [...new Set(questions.map((q) => String(q.category)))].sort();
/** For each conversation, the configuration best on the others (ties: the earlier, i.e. the default), scored on it. */
function leaveOneOut(keep: (q: Question) => boolean): { r10: number; chosen: Record<string, string> } {
  const chosen: Record<string, string> = {};
  let sum = 0;
  let n = 0;
  for (const held of conversations) {
    let best = '';
    let bestScore = -1;
    for (const [name, r] of Object.entries(results)) {
      const s = mean(r, (q) => q.ns !== held && keep(q));
      if (s > bestScore) [best, bestScore] = [name, s];
    }
    chosen[held] = best;
    questions.forEach((q, i) => {
      if (q.ns !== held || !keep(q)) return;
      sum += (results[best] as number[])[i] as number;
      n += 1;
    });
  }
  return { r10: n ? Math.round((sum / n) * 10_000) / 10_000 : 0, chosen };
}

const report = {
  eval: 'locomo-tune',
  library: values.library,
  family: values.family,
  // recall within this many records (10: R@10)
  depth,
  questions: questions.length,
  configurations: Object.fromEntries(
    Object.entries(results).map(([name, r]) => [
      name,
      {
        r10: mean(r, () => true),
        by_category_r10: Object.fromEntries(categories.map((c) => [c, mean(r, (q) => String(q.category) === c)])),
        by_conversation_r10: Object.fromEntries(conversations.map((c) => [c, mean(r, (q) => q.ns === c)])),
      },
    ]),
  ),
  leave_one_conversation_out: leaveOneOut(() => true),
  leave_one_conversation_out_by_category: Object.fromEntries(categories.map((c) => [c, leaveOneOut((q) => String(q.category) === c).r10])),
};
for (const [name, c] of Object.entries(report.configurations))
  process.stdout.write(`${name.padEnd(24)} R@10 ${String(c.r10).padEnd(6)} by category ${categories.map((k) => c.by_category_r10[k]).join('/')}\n`);
process.stdout.write(
  `leave-one-conversation-out R@10 ${report.leave_one_conversation_out.r10} (chosen: ${Object.entries(report.leave_one_conversation_out.chosen)
    .map(([k, v]) => `${k} → ${v}`)
    .join(', ')})\n`,
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
