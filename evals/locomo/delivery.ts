// What a hooked agent gets (issue 35): each LoCoMo question asked through POST /v1/turns/start,
// as the Claude Code / Codex hook asks it — one session per conversation, `context_since` the
// moment of the question — and scored on the delivery, not on the ranked records: a gold turn
// delivered, items delivered per question, and the share of delivered items that are gold, by
// category. `npm run eval:locomo -- --delivery` runs it after the recall orders, on a copy of the
// same library.
import { parseEvidenceKey } from '../../src/knowledge/evidence.js';
import { DEFAULT_RECALL_CONFIG, type RecallPacket } from '../../src/recall/index.js';
import { askInOrder, type Service } from '../service.js';

export interface DeliveryQuestion {
  ns: string;
  question: string;
  category: number;
  gold: string[];
}

interface Tally {
  n: number;
  gold_delivered: number;
  items: number;
  gold_items: number;
  /** a gold turn among the judged candidates (the top judge_pool of the fused list) */
  gold_judged: number;
  /** a gold turn in a delivered item's text: its own or one of its window's turns (turn_window) */
  gold_in_window: number;
  /** characters of delivered text */
  chars: number;
  /** questions with no gold delivered, by why the most promising gold turn was not (missReason) */
  missed: Record<string, number>;
}

export interface DeliveryReport {
  path: string;
  /** categories 1–4 */
  overall: ReturnType<typeof rates>;
  by_category: Record<string, ReturnType<typeof rates>>;
}

const zero = (): Tally => ({ n: 0, gold_delivered: 0, items: 0, gold_items: 0, gold_judged: 0, gold_in_window: 0, chars: 0, missed: {} });
const round = (x: number): number => Math.round(x * 10_000) / 10_000;
const rates = (t: Tally) => ({
  n: t.n,
  gold_delivered: t.n ? round(t.gold_delivered / t.n) : 0,
  items_per_question: t.n ? round(t.items / t.n) : 0,
  gold_share: t.items ? round(t.gold_items / t.items) : 0,
  gold_judged: t.n ? round(t.gold_judged / t.n) : 0,
  gold_delivered_in_window: t.n ? round(t.gold_in_window / t.n) : 0,
  chars_per_question: t.n ? Math.round(t.chars / t.n) : 0,
  missed: Object.fromEntries(Object.entries(t.missed).sort(([, a], [, b]) => b - a)),
});

/** The packet's records for the whole judged pool: each judged candidate's verdict and hold reason. */
const POOL = DEFAULT_RECALL_CONFIG.judge_pool;

/**
 * Why no gold turn was delivered, from the most promising gold turn (highest verdict) among the
 * packet's records: `not_judged` — no gold turn in the judged pool (the top judge_pool of the
 * fused list); otherwise the hold reason of that turn (`below_floor`: its verdict under the
 * floor; `behind_best`: far under the best verdict; `no_slot`: the three slots went to others …).
 */
export function missReason(records: RecallPacket['records'], gold: ReadonlySet<string>): string {
  const judged = records.filter((r) => gold.has(r.id) && typeof r.why.verdict === 'number');
  if (judged.length === 0) return 'not_judged';
  const best = judged.reduce((a, b) => ((b.why.verdict as number) > (a.why.verdict as number) ? b : a));
  return best.why.held_back ?? 'delivered?';
}

/** The id of an evidence key (a LoCoMo id's colon is escaped in the key: parsed, never split). */
const idOf = (key: string): string => parseEvidenceKey(key)?.id ?? key;

export async function measureDelivery(base: string, questions: readonly DeliveryQuestion[], keep?: string): Promise<DeliveryReport> {
  const overall = zero();
  const byCategory: Record<string, Tally> = {};
  const sessions = new Map<string, string>();
  const ask = async (svc: Service, q: DeliveryQuestion): Promise<void> => {
    let session = sessions.get(q.ns);
    if (!session) {
      session = (await svc.post<{ session_id: string }>('/v1/sessions/open', { agent: 'locomo-eval', namespace: q.ns })).session_id;
      sessions.set(q.ns, session);
    }
    const packet = await svc.post<RecallPacket & { turn_id: string }>('/v1/turns/start', {
      session_id: session,
      namespace: q.ns,
      query: q.question,
      context_since: new Date().toISOString(),
      // the whole judged pool in the records (limit changes only what is listed, not what is judged or delivered)
      limit: POOL,
    });
    const delivered = packet.delivery.map((d) => idOf(d.evidence_key));
    const gold = new Set(q.gold);
    const hits = delivered.filter((id) => gold.has(id)).length;
    const inWindow = packet.delivery.some((d) => (d.window ?? [d.evidence_key]).some((k) => gold.has(idOf(k))));
    const buckets = [(byCategory[String(q.category)] ??= zero())];
    if (q.category !== 5) buckets.push(overall);
    const judged = packet.records.slice(0, POOL).some((r) => gold.has(r.id) && typeof r.why.verdict === 'number');
    const miss = hits > 0 ? undefined : missReason(packet.records, gold);
    for (const b of buckets) {
      b.n += 1;
      b.gold_delivered += hits > 0 ? 1 : 0;
      b.items += delivered.length;
      b.gold_items += hits;
      b.gold_judged += judged ? 1 : 0;
      b.gold_in_window += inWindow ? 1 : 0;
      b.chars += packet.delivery.reduce((n, d) => n + d.text.length, 0);
      if (miss) b.missed[miss] = (b.missed[miss] ?? 0) + 1;
    }
  };
  await askInOrder(base, 'locomo-delivery', 'file', questions, ask, keep);
  return {
    path: 'POST /v1/sessions/open once per conversation; POST /v1/turns/start per question (context_since = now), file order, state kept',
    overall: rates(overall),
    by_category: Object.fromEntries(
      Object.entries(byCategory)
        .sort()
        .map(([k, t]) => [k, rates(t)]),
    ),
  };
}
