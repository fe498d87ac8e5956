// node --import tsx evals/locomo/delivery-replay.ts --dir DIR [--data FILE] [--json]
// Delivery rules for LoCoMo measured with replay (issue 35): DIR is a delivery run kept by
// `npm run eval:locomo -- --delivery --keep-delivery DIR` (every question asked through
// POST /v1/turns/start, its candidates and the judge's verdicts recorded in the log). Each
// variant of the delivery rules is replayed over those recorded turns — no judge or model call —
// and scored as the eval scores delivery (a gold turn delivered, items per question; categories
// 1–4), per conversation; then leave-one-conversation-out: the variant chosen on four conversations
// (most gold delivered at ≤ 2.0 items per question) is scored on the fifth.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseEvidenceKey } from '../../src/knowledge/evidence.js';
import { openKioku } from '../../src/kioku.js';
import { replay, rulesWith, type DeliveryRules } from '../../src/recall/index.js';
import { questionsOf, type Sample } from './data.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    // a JSON object of variants (name → changed rules) replacing the built-in list
    variants: { type: 'string' },
  },
});
if (!values.dir) {
  process.stderr.write('usage: delivery-replay.ts --dir DIR (a run kept by eval:locomo --keep-delivery DIR)\n');
  process.exit(2);
}
const ITEMS_GOAL = 2.0;

/** The variants replayed; `today` is the shipped rules. */
const VARIANTS: Record<string, Partial<DeliveryRules>> = values.variants
  ? (JSON.parse(values.variants) as Record<string, Partial<DeliveryRules>>)
  : {
      today: {},
      behind_best_off: { behind_best: undefined },
      behind_best_0_4: { behind_best: 0.4 },
      behind_best_0_2: { behind_best: 0.2 },
      keep_partial_matches: { hold_partial_matches: false },
      partial_of_complete_match: { partial_of: 'complete_match' },
      unknown_names_off: { hold_unknown_names: false },
      floor_0_4: { floor: 0.4 },
      floor_0_6: { floor: 0.6 },
      max_items_2: { max_items: 2 },
      keep_partial_behind_best_off: { hold_partial_matches: false, behind_best: undefined },
    };

const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/locomo/locomo-dev.json'));
const samples = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
const questions = questionsOf(samples);
/** questions by namespace and text, in file order (a text asked twice in a conversation is matched in turn) */
const byAsk = new Map<string, (typeof questions)[number][]>();
for (const q of questions) {
  const k = `${q.ns}\u0000${q.question}`;
  byAsk.set(k, [...(byAsk.get(k) ?? []), q]);
}

interface Tally {
  n: number;
  gold: number;
  items: number;
}
const zero = (): Tally => ({ n: 0, gold: 0, items: 0 });
const add = (t: Tally, gold: boolean, items: number): void => {
  t.n += 1;
  t.gold += gold ? 1 : 0;
  t.items += items;
};
const rate = (t: Tally) => ({ n: t.n, gold_delivered: round(t.gold / t.n), items_per_question: round(t.items / t.n) });
const round = (x: number): number => Math.round(x * 10_000) / 10_000;

const store = await openKioku({ data: values.dir });
const results: Record<string, { overall: Tally; byCategory: Record<string, Tally>; byConversation: Record<string, Tally> }> = {};
try {
  for (const [name, change] of Object.entries(VARIANTS)) {
    const report = await replay(store, undefined, { from: new Date(0), to: new Date(Date.now() + 86_400_000), rules: rulesWith(change) });
    const seen = new Map<string, number>();
    const r: (typeof results)[string] = (results[name] = { overall: zero(), byCategory: {}, byConversation: {} });
    for (const t of report.turns) {
      const k = `${t.ns}\u0000${t.query}`;
      const i = seen.get(k) ?? 0;
      seen.set(k, i + 1);
      const q = byAsk.get(k)?.[i];
      if (!q || q.category === 5) continue;
      const gold = new Set(q.gold);
      const hit = t.after.some((key) => gold.has(parseEvidenceKey(key)?.id ?? key));
      add(r.overall, hit, t.after.length);
      add((r.byCategory[String(q.category)] ??= zero()), hit, t.after.length);
      add((r.byConversation[q.ns] ??= zero()), hit, t.after.length);
    }
  }
} finally {
  await store.close();
}

// leave one conversation out: choose on the other four (most gold delivered within the items goal), score the fifth
const conversations = Object.keys(Object.values(results)[0]?.byConversation ?? {}).sort();
const loo = zero();
const chosen: Record<string, string> = {};
for (const held of conversations) {
  const train = (name: string): Tally => {
    const t = zero();
    for (const [c, x] of Object.entries((results[name] as (typeof results)[string]).byConversation))
      if (c !== held) {
        t.n += x.n;
        t.gold += x.gold;
        t.items += x.items;
      }
    return t;
  };
  const names = Object.keys(results).filter((n) => train(n).items / train(n).n <= ITEMS_GOAL);
  const best = (names.length ? names : Object.keys(results)).reduce((a, b) => (train(b).gold > train(a).gold ? b : a));
  chosen[held] = best;
  const x = (results[best] as (typeof results)[string]).byConversation[held] as Tally;
  loo.n += x.n;
  loo.gold += x.gold;
  loo.items += x.items;
}

const out = {
  dir: values.dir,
  variants: VARIANTS,
  results: Object.fromEntries(
    Object.entries(results).map(([name, r]) => [
      name,
      {
        overall: rate(r.overall),
        by_category: Object.fromEntries(Object.entries(r.byCategory).sort().map(([c, t]) => [c, rate(t)])),
        by_conversation: Object.fromEntries(Object.entries(r.byConversation).sort().map(([c, t]) => [c, rate(t)])),
      },
    ]),
  ),
  leave_one_conversation_out: { ...rate(loo), chosen },
};
for (const [name, r] of Object.entries(out.results))
  process.stdout.write(
    `${name.padEnd(36)} gold delivered ${String(r.overall.gold_delivered).padEnd(6)} items/q ${String(r.overall.items_per_question).padEnd(6)} by category ${Object.entries(r.by_category)
      .map(([c, t]) => `${c}: ${t.gold_delivered}/${t.items_per_question}`)
      .join('  ')}\n`,
  );
process.stdout.write(`leave one conversation out: gold delivered ${out.leave_one_conversation_out.gold_delivered} at ${out.leave_one_conversation_out.items_per_question} items (${JSON.stringify(chosen)})\n`);
if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
