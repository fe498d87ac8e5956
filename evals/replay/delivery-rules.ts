// node --import tsx evals/replay/delivery-rules.ts [--json] [--library-cache DIR] [--without-docs]
// Delivery rules measured with replay, not assumed (issue 30). Records real turns through the
// real core (bundled USE-lite, the shipped local judge): every offline case (evals/cases, its own
// session, its pinned clock) and every dev-split question of the real-documentation eval
// (evals/docs, its own session; the corpora read from ../shared/evals, skipped when absent).
// Then replays the recorded turns — recorded candidates and verdicts, no judge or model call —
// under each rule variant, and scores every replayed turn against its labels: an offline case
// passes as `kioku eval` scores delivery (the right ids delivered, nothing forbidden, quiet
// when it should be); a documentation question passes when a delivered section holds the
// answer string (answerable) or nothing is delivered (unanswerable).
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, embedderConfigFromEnv } from '../../src/embed/index.js';
import { loadCases, loadLibrary, type EvalCase } from '../../src/eval/index.js';
import { openKioku, type LocalKioku } from '../../src/kioku.js';
import { LocalJudge, createRecallCore, openSession, replay, rulesWith, startTurn, type DeliveryRules } from '../../src/recall/index.js';
import { containsAnswer } from '../docs/baseline.js';
import { CORPORA, corpusPresent, loadLabels } from '../docs/labels.js';
import { openCorpus } from '../cases/judge-doc-rows.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    'library-cache': { type: 'string' },
    'without-docs': { type: 'boolean', default: false },
  },
});
const root = resolve(import.meta.dirname, '../..');

/** The variants replayed; `today` is the shipped rules. */
export const VARIANTS: Record<string, Partial<DeliveryRules>> = {
  before_issue_30: { partial_of: 'any_better_match', history_may_lead: false },
  only_partial_of_higher_ranked_match: { partial_of: 'higher_ranked_match', history_may_lead: false },
  only_history_may_lead: { partial_of: 'any_better_match', history_may_lead: true },
  today: {},
  keep_partial_matches: { hold_partial_matches: false },
  partial_of_complete_match: { partial_of: 'complete_match' },
  // the rules before complete_match and behind_best 0.2 (issue 30, R)
  before_complete_match: { partial_of: 'higher_ranked_match', behind_best: 0.3 },
  partial_of_higher_ranked_match: { partial_of: 'higher_ranked_match' },
  history_may_lead_by_0_05: { history_lead: 0.05 },
  behind_best_off: { behind_best: undefined },
  behind_best_0_4: { behind_best: 0.4 },
  behind_best_0_3: { behind_best: 0.3 },
  behind_best_0_25: { behind_best: 0.25 },
  behind_best_0_2: { behind_best: 0.2 },
  unknown_names_off: { hold_unknown_names: false },
  unsure_best_0_6_f0_3_r2: { unsure_best: { below: 0.6, floor: 0.3, ranks: 2 } },
  unsure_best_0_6_f0_3_r3: { unsure_best: { below: 0.6, floor: 0.3, ranks: 3 } },
  unsure_best_0_65_f0_3_r2: { unsure_best: { below: 0.65, floor: 0.3, ranks: 2 } },
  unsure_best_0_7_f0_3_r2: { unsure_best: { below: 0.7, floor: 0.3, ranks: 2 } },
  unsure_best_0_6_f0_15_r3: { unsure_best: { below: 0.6, floor: 0.15, ranks: 3 } },
  unsure_best_0_6_f0_25_r2: { unsure_best: { below: 0.6, floor: 0.25, ranks: 2 } },
};

type Scorer = (delivered: readonly string[]) => boolean;
interface Recorded {
  label: string;
  group: string;
  score: Scorer;
  answerable?: boolean;
}

async function recordTurns(store: LocalKioku, asks: { id: string; query: string; conversation?: EvalCase['conversation']; ns: string; now?: string }[]) {
  const core = createRecallCore(store, { embedder: createEmbedder(embedderConfigFromEnv()), judge: new LocalJudge() });
  const turns = new Map<string, string>();
  try {
    for (const a of asks) {
      core.now = a.now ? () => new Date(a.now as string) : undefined;
      const { session_id } = await openSession(core, { agent: `replay-${a.id}`, namespace: a.ns });
      const t = await startTurn(core, { session_id, query: a.query, namespace: a.ns, ...(a.conversation ? { conversation: a.conversation } : {}) });
      turns.set(t.turn_id, a.id);
    }
  } finally {
    await core.close();
  }
  return turns;
}

async function replayAll(store: LocalKioku, turns: Map<string, string>, recorded: Map<string, Recorded>) {
  const out: Record<string, { passed: number; of: number; items: number; changed: string[] }> = {};
  for (const [name, change] of Object.entries(VARIANTS)) {
    const report = await replay(store, undefined, { from: new Date(0), to: new Date(Date.now() + 86_400_000), rules: rulesWith(change) });
    let passed = 0;
    let items = 0;
    const changed: string[] = [];
    for (const t of report.turns) {
      const id = turns.get(t.turn_id);
      const r = id ? recorded.get(id) : undefined;
      if (!r) continue;
      if (r.score(t.after)) passed += 1;
      items += t.after.length;
      if (t.before.join() !== t.after.join()) changed.push(id as string);
    }
    out[name] = { passed, of: turns.size, items, changed };
  }
  return out;
}

const figures: Record<string, unknown> = {};
// offline cases: one library, every case a session of its own
{
  const cases = loadCases([join(root, 'evals/cases/recall.json'), join(root, 'evals/cases/conversation.json')]);
  const dir = mkdtempSync(join(tmpdir(), 'kioku-replay-rules-'));
  await loadLibrary(dir, join(root, 'evals/library'), undefined);
  const store = await openKioku({ data: dir });
  try {
    const records = store.projections.views.records;
    const idOf = (c: EvalCase, key: string): string => (c.label_unit === 'evidence' ? key : (records.get(key)?.id ?? key));
    const recorded = new Map<string, Recorded>(
      cases.map((c) => {
        const allowed = new Set([...c.expected_ids, ...c.expected_any_ids.flat(), ...c.allowed_ids]);
        const score: Scorer = (keys) => {
          // delivery as `kioku eval` scores it (retrieval is the recorded one: replay does not change it)
          const ids = [...new Set(keys.map((k) => idOf(c, k)))];
          const clean = ids.every((d) => allowed.has(d) && !c.forbidden_ids.includes(d));
          return c.expected_delivery === 'quiet' ? ids.length === 0 : c.expected_delivery === 'deliver' ? ids.length > 0 && clean : clean;
        };
        return [c.id, { label: c.id, group: 'offline', score }];
      }),
    );
    const turns = await recordTurns(
      store,
      cases.map((c) => ({ id: c.id, query: c.query, ns: c.namespace ?? 'private', ...(c.conversation ? { conversation: c.conversation } : {}), ...(c.now ? { now: c.now } : {}) })),
    );
    figures['offline'] = await replayAll(store, turns, recorded);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
// the documentation dev questions, per corpus
for (const corpus of values['without-docs'] ? [] : CORPORA) {
  if (!corpusPresent(corpus)) {
    process.stderr.write(`delivery-rules: ../shared/evals/realdocs-${corpus} is absent; skipped\n`);
    continue;
  }
  const dir = mkdtempSync(join(tmpdir(), `kioku-replay-docs-${corpus}-`));
  const cached = values['library-cache'] ? join(values['library-cache'], corpus) : undefined;
  if (cached && existsSync(cached)) cpSync(cached, dir, { recursive: true });
  const store = await openCorpus(corpus, dir, true);
  try {
    const records = store.projections.views.records;
    const questions = loadLabels(corpus).questions.filter((q) => q.split === 'dev');
    const recorded = new Map<string, Recorded>(
      questions.map((q) => [
        q.id,
        {
          label: q.id,
          group: corpus,
          answerable: q.answerable,
          score: (keys) => (q.answerable ? keys.some((k) => containsAnswer(records.get(k)?.text ?? '', q.answer)) : keys.length === 0),
        },
      ]),
    );
    const turns = await recordTurns(
      store,
      questions.map((q) => ({ id: q.id, query: q.question, ns: 'private' })),
    );
    figures[corpus] = await replayAll(store, turns, recorded);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
for (const [group, byVariant] of Object.entries(figures)) {
  process.stdout.write(`## ${group}\n`);
  for (const [name, f] of Object.entries(byVariant as Record<string, { passed: number; of: number; items: number; changed: string[] }>))
    process.stdout.write(`  ${name.padEnd(32)} passed ${f.passed}/${f.of}  items ${f.items}  turns changed ${f.changed.length}${f.changed.length ? ` (${f.changed.slice(0, 8).join(', ')})` : ''}\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify({ variants: VARIANTS, figures })}\n`);
