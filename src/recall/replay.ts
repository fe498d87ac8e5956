// Replay: re-run recorded turns through the *current* delivery rules from what the
// log holds — each turn's recorded candidates and verdicts, with the delivered-keys
// state rebuilt by replaying the range in order (a plain recall in a session is not replayed:
// what it recorded handing over counts, as it does live). No judge or model is called, and
// nothing is appended. With `retrieve`, retrieval is re-run against today's
// projections (read-only) and the report says so.
import { z } from 'zod';
import { namespaceSchema, recallCandidates, recordedVerdicts, type EventData, type LogRecord, type RecallCandidate } from '../events/index.js';
import { evidenceKey, KNOWLEDGE_LAYERS, parseEvidenceKey, type Layer } from '../knowledge/evidence.js';
import { RELEVANT_AT, seriousCandidates } from '../../projections/usage.js';
import type { EventStore } from '../log/index.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { DEFAULT_DELIVERY_RULES, deliver, PARTIAL_OF, type DeliveryCandidate, type DeliveryRules } from './delivery.js';
import { DisabledJudge } from './judge/index.js';
import { DEFAULT_RECALL_CONFIG } from './config.js';
import { withWindows } from './stages/deliver.js';
import { recall, type RecallCore } from './pipeline.js';
import { matchText, turnQueryNames, turnQueryTerms } from './terms.js';
import { PURGED_TEXT } from '../privacy/index.js';
import { headOf } from '../text/well-formed.js';
import { NOTICE_EVENT_TYPES, noticeLines, turnNotices, type NoticeVisible, type ReplayedNotice, type SentNotice } from './replay-notices.js';

export type { ReplayedNotice };

const isoTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'an ISO 8601 date or time');

/** A replay request (POST /v1/replay, kioku replay): a time range, a namespace, changed delivery rules. */
export const replayRequestSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  /** also re-run retrieval against today's projections (recorded verdicts reused, new candidates unjudged) */
  retrieve: z.boolean().optional(),
  rules: z
    .strictObject({
      floor: z.number().min(0).max(1).optional(),
      history_floor: z.number().min(0).max(1).optional(),
      max_items: z.number().int().min(0).max(3).optional(),
      max_history: z.number().int().min(0).max(3).optional(),
      hold_partial_matches: z.boolean().optional(),
      partial_of: z.enum(PARTIAL_OF).optional(),
      history_may_lead: z.boolean().optional(),
      /** 1 = off (no verdict is more than 1 behind another) */
      behind_best: z.number().min(0).max(1).optional(),
      hold_unknown_names: z.boolean().optional(),
      /** turns handed over each side of a delivered conversation turn (0 = off) */
      turn_window: z.number().int().min(0).max(5).optional(),
      /** sections handed over each side of a delivered documentation section (0 = off) */
      section_window: z.number().int().min(0).max(5).optional(),
      /** retrieval's first `ranks` get `floor` when the best knowledge verdict is below `below` (below 0 = off) */
      unsure_best: z.strictObject({ below: z.number().min(0).max(1), floor: z.number().min(0).max(1), ranks: z.number().int().min(0).max(10) }).optional(),
    })
    .optional(),
});

export interface ReplayOptions {
  from: Date;
  to: Date;
  ns?: string;
  rules?: DeliveryRules;
  /** also re-run retrieval against today's projections (read-only) */
  retrieve?: boolean;
  /** the caller's audience (issue 34): another member's turns are not replayed */
  visible?: (r: LogRecord) => boolean;
  /** the caller's share of the span's notices (issue 34): absent = every one */
  noticeVisible?: NoticeVisible;
  /** recall's plain_session_gap_min, for the turn windows of plain memories (default: recall's default) */
  plainGapMin?: number;
}

export interface ReplayedTurn {
  turn_id: string;
  session_id: string;
  ns: string;
  at: string;
  query: string;
  before: string[];
  after: string[];
  /** candidates that had no recorded verdict (unknown: never delivered) */
  unjudged: number;
  retrieval: 'recorded' | 'rerun';
  /** the turn's text was purged (issue 33): its query reads as ⟦purged⟧, the delivery is replayed without it */
  text_purged?: true;
  /** the turn was forgotten (issue 33): its text is not shown (query empty), its delivery replayed without it */
  text_forgotten?: true;
  /** notices (ids, as in the report's notices) about items this turn delivered, before or after */
  notices?: string[];
  /**
   * Usage accounting as recorded for this turn: candidates that were demoted (with their rank
   * in the fused list, after the bounded demotion), and which negative verdicts counted toward
   * demotion (serious candidates) or were ignored (weak neighbours).
   */
  accounting: { demoted: { key: string; rank: number }[]; negatives_counted: string[]; negatives_ignored: number };
}

export interface ReplayReport {
  from: string;
  to: string;
  /** the delivery rules the turns were re-run under */
  rules: DeliveryRules;
  turns: ReplayedTurn[];
  /** the notice events of the span (issue 34): sent, arrived, acked — those the caller is party to */
  notices: ReplayedNotice[];
  totals: {
    turns: number;
    before: { items: number; knowledge: number; history: number; per_turn: number };
    after: { items: number; knowledge: number; history: number; per_turn: number };
    changed_turns: number;
    accounting: { demoted_candidates: number; demoted_in_top10: number; negatives_counted: number; negatives_ignored: number };
  };
  retrieval: 'recorded candidates and verdicts' | "retrieval re-run against today's projections (recorded verdicts reused; new candidates unjudged)";
  /** replay never appends: the log head before and after (absent for a caller confined to one namespace) */
  log_head?: { before: number; after: number };
}

interface TurnRecord {
  turn_id: string;
  /** its turn.started's log position: what was written before it is what its recall could see */
  seq: number;
  session_id: string;
  ns: string;
  ts: number;
  query: string;
  context_since?: string;
  conversation: { role: string; text: string }[];
  /** the recorded candidates in fused order (none before its recall.performed) */
  candidates: RecallCandidate[];
  verdicts: Map<string, number | null>;
  delivered: string[];
}

/** First seq whose timestamp is ≥ t (binary search; timestamps never decrease along the log). */
export async function seqAtTime(log: EventStore, t: number): Promise<number> {
  let lo = 1;
  let hi = log.head().seq + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const r = await log.get(mid);
    if (r && r.ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per namespace and session (`ns\u0000session_id`): each delivered item's key → when it was delivered and with which fingerprint (a replay's own deliveries, turn by turn). */
type Delivered = Map<string, Map<string, { ts: number; fp: string | null }[]>>;

interface ReplayContext {
  records: ProjectionRunner['views']['records'];
  graph: ProjectionRunner['views']['graph'];
  plainGapMin: number;
  core: RecallCore | undefined;
  rules: DeliveryRules;
  retrieve: boolean;
}

export async function replay(
  store: { log: EventStore; projections: ProjectionRunner },
  core: RecallCore | undefined,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const rules = options.rules ?? DEFAULT_DELIVERY_RULES;
  const headBefore = store.log.head().seq;
  const from = await seqAtTime(store.log, options.from.getTime());
  const to = (await seqAtTime(store.log, options.to.getTime())) - 1;
  const turns = new Map<string, TurnRecord>();
  const order: string[] = [];
  const notices: ReplayedNotice[] = [];
  const sent = new Map<string, SentNotice>();
  const reader = {
    known: (ns: string) => store.projections.views.notices.of(ns),
    forgotten: (key: string) => store.projections.views.records.get(key)?.status === 'forgotten',
    visible: options.noticeVisible,
  };
  const types = ['turn.started', 'recall.performed', 'verdict.recorded', 'delivery.made', ...NOTICE_EVENT_TYPES];
  // what plain recalls in a session handed over (no turn: not replayed, but held back live after them)
  const outside: LogRecord[] = [];
  for await (const r of store.log.read({ from, to, types })) {
    if (options.ns !== undefined && r.ns !== options.ns) continue;
    if (r.type.startsWith('notice.')) notices.push(...noticeLines(r, reader, sent));
    else if (options.visible === undefined || options.visible(r)) collect(r, turns, order, outside);
  }
  const { records, graph } = store.projections.views;
  const plainGapMin = options.plainGapMin ?? DEFAULT_RECALL_CONFIG.plain_session_gap_min;
  const context: ReplayContext = { records, graph, plainGapMin, core, rules, retrieve: options.retrieve ?? false };
  const delivered: Delivered = new Map();
  const out: ReplayedTurn[] = [];
  let next = 0;
  for (const id of order) {
    const t = turns.get(id) as TurnRecord;
    for (; next < outside.length && (outside[next] as LogRecord).ts <= t.ts; next++) handedOver(delivered, outside[next] as LogRecord);
    // forgotten is gone from every view (issue 33): the turn is replayed without its text, and says so
    // (a purged one reads as ⟦purged⟧ already: text_purged)
    const trace = context.records.get(evidenceKey({ ns: t.ns, layer: 'trace', id }));
    const forgotten = trace?.status === 'forgotten' && trace.tombstone?.purged !== true && t.query !== PURGED_TEXT;
    const turn = await replayTurn(forgotten ? { ...t, query: '', conversation: [] } : t, context, delivered);
    const about = turnNotices([...turn.before, ...turn.after], notices);
    out.push({ ...turn, ...(forgotten ? { text_forgotten: true as const } : {}), ...(about.length ? { notices: about } : {}) });
  }
  return {
    from: options.from.toISOString(),
    to: options.to.toISOString(),
    rules,
    turns: out,
    notices,
    totals: totalsOf(out),
    retrieval: options.retrieve
      ? "retrieval re-run against today's projections (recorded verdicts reused; new candidates unjudged)"
      : 'recorded candidates and verdicts',
    log_head: { before: headBefore, after: store.log.head().seq },
  };
}

/** The turn's candidates: those recorded with a verdict, or (retrieve) today's retrieval for its query, read-only and unjudged. */
async function turnCandidates(t: TurnRecord, context: ReplayContext): Promise<{ key: string; layer: string; fingerprint?: string; meta: boolean }[]> {
  const { core, records } = context;
  if (!context.retrieve || !core)
    return t.candidates
      .filter((c) => c.flags.judged || t.verdicts.has(c.evidence_key))
      .map((c) => ({
        key: c.evidence_key,
        layer: c.layer,
        ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
        meta: c.flags.meta,
      }));
  const packet = await recall(
    { ...core, judge: new DisabledJudge() },
    { query: t.query, namespace: t.ns, session_id: t.session_id, ...(t.context_since ? { context_since: t.context_since } : {}) },
    { readOnly: true, namespaces: [t.ns] },
  );
  return packet.records.map((r) => ({
    key: r.evidence_key,
    layer: r.layer,
    meta: records.get(r.evidence_key)?.meta ?? false,
    ...(records.get(r.evidence_key)?.fingerprint ? { fingerprint: records.get(r.evidence_key)?.fingerprint as string } : {}),
  }));
}

/** One recorded turn through the rules, against what this replay delivered earlier in its session (since its context start). */
async function replayTurn(t: TurnRecord, context: ReplayContext, delivered: Delivered): Promise<ReplayedTurn> {
  const { records } = context;
  const candidates = await turnCandidates(t, context);
  const since = t.context_since ? Date.parse(t.context_since) : -Infinity;
  const sessionDelivered = new Map<string, (string | null)[]>();
  // a session id is its namespace's own (the delivered projection keys it so too)
  const session = `${t.ns}\u0000${t.session_id}`;
  for (const [key, list] of delivered.get(session) ?? []) {
    const fps = list.filter((d) => d.ts >= since).map((d) => d.fp);
    if (fps.length) sessionDelivered.set(key, fps);
  }
  const deliveryCandidates: DeliveryCandidate[] = candidates.map((c, rank) => {
    const e = records.get(c.key);
    return {
      key: c.key,
      kind: KNOWLEDGE_LAYERS.has(c.layer as Layer) ? 'knowledge' : 'history',
      layer: c.layer,
      verdict: t.verdicts.get(c.key) ?? null,
      fingerprint: c.fingerprint,
      title: e?.title ?? c.key,
      text: e?.text ?? '',
      ...(e ? { match_text: matchText(e) } : {}),
      meta: c.meta,
      session_id: e?.session_id,
      occurred_at: e?.occurred_at ?? new Date(t.ts).toISOString(),
      rank,
    };
  });
  const queryTerms = turnQueryTerms(t.query, new Date(t.ts));
  const result = deliver(
    deliveryCandidates,
    {
      session_id: t.session_id,
      context_since: t.context_since,
      delivered: sessionDelivered,
      assistant_texts: t.conversation.filter((m) => m.role === 'assistant').map((m) => m.text),
      query_terms: queryTerms,
      query_names: turnQueryNames(t.query, new Date(t.ts)),
    },
    context.rules,
  );
  // a window's turns count as handed over, as the delivered projection counts them live
  const items = withWindows(context, t.ns, context.plainGapMin, result.items, t.session_id, sessionDelivered, queryTerms, context.rules, t.seq);
  handOver(delivered, session, t.ts, items.map((i) => ({ key: i.key, fp: i.fingerprint ?? null, window: i.window, windowFps: i.window_fingerprints })));
  return {
    turn_id: t.turn_id,
    session_id: t.session_id,
    ns: t.ns,
    at: new Date(t.ts).toISOString(),
    query: headOf(t.query, 200),
    before: t.delivered,
    after: result.items.map((i) => i.key),
    unjudged: deliveryCandidates.filter((c) => c.verdict === null).length,
    retrieval: context.retrieve ? 'rerun' : 'recorded',
    ...(t.query === PURGED_TEXT ? { text_purged: true as const } : {}),
    accounting: accountingOf(t),
  };
}

/** A delivered item as handOver reads it: its key and version, its window's keys and their versions (absent in older logs: unknown). */
interface HandedItem {
  key: string;
  fp: string | null;
  window?: readonly string[] | undefined;
  windowFps?: readonly (string | null)[] | undefined;
}

/** Items (and their windows' turns or sections: each handed over too) delivered in `session` at `ts`, as the delivered projection counts them. */
function handOver(delivered: Delivered, session: string, ts: number, items: readonly HandedItem[]): void {
  const mine = delivered.get(session) ?? new Map<string, { ts: number; fp: string | null }[]>();
  const handed = (key: string, fp: string | null): void => void mine.set(key, [...(mine.get(key) ?? []), { ts, fp }]);
  for (const item of items) {
    handed(item.key, item.fp);
    (item.window ?? []).forEach((key, i) => {
      if (key !== item.key) handed(key, item.windowFps?.[i] ?? null);
    });
  }
  delivered.set(session, mine);
}

/** A plain recall's recorded delivery in a session: what it handed over stays handed over for the turns after it. */
function handedOver(delivered: Delivered, r: LogRecord): void {
  const d = r.data as EventData<'delivery.made'>;
  if (d.session_id) handOver(delivered, `${r.ns}\u0000${d.session_id}`, r.ts, d.items.map((i) => ({ key: i.evidence_key, fp: i.fingerprint ?? null, window: i.window, windowFps: i.window_fingerprints })));
}

/** Items delivered before and after, per layer kind and per turn; changed turns; usage accounting summed. */
function totalsOf(out: ReplayedTurn[]): ReplayReport['totals'] {
  const tally = (pick: (t: ReplayedTurn) => string[]): ReplayReport['totals']['before'] => {
    const keys = out.flatMap(pick);
    const knowledge = keys.filter((k) => KNOWLEDGE_LAYERS.has(parseEvidenceKey(k)?.layer as Layer)).length;
    return { items: keys.length, knowledge, history: keys.length - knowledge, per_turn: out.length ? Math.round((keys.length / out.length) * 100) / 100 : 0 };
  };
  return {
    turns: out.length,
    before: tally((t) => t.before),
    after: tally((t) => t.after),
    changed_turns: out.filter((t) => t.before.join() !== t.after.join()).length,
    accounting: {
      demoted_candidates: out.reduce((n, t) => n + t.accounting.demoted.length, 0),
      demoted_in_top10: out.reduce((n, t) => n + t.accounting.demoted.filter((d) => d.rank <= 10).length, 0),
      negatives_counted: out.reduce((n, t) => n + t.accounting.negatives_counted.length, 0),
      negatives_ignored: out.reduce((n, t) => n + t.accounting.negatives_ignored, 0),
    },
  };
}

/** What usage accounting made of a recorded turn: demoted candidates, and which negatives counted. */
function accountingOf(t: TurnRecord): ReplayedTurn['accounting'] {
  const candidates = t.candidates;
  const serious = new Set(seriousCandidates(candidates));
  const negatives = [...t.verdicts].filter(([, v]) => v !== null && v < RELEVANT_AT).map(([k]) => k);
  return {
    demoted: candidates.flatMap((c, i) => (c.flags.demoted ? [{ key: c.evidence_key, rank: i + 1 }] : [])),
    negatives_counted: negatives.filter((k) => serious.has(k)),
    negatives_ignored: negatives.filter((k) => !serious.has(k)).length,
  };
}

function collect(r: LogRecord, turns: Map<string, TurnRecord>, order: string[], outside: LogRecord[]): void {
  if (r.type === 'turn.started') {
    const d = r.data as EventData<'turn.started'>;
    turns.set(d.turn_id, {
      turn_id: d.turn_id,
      seq: r.seq,
      session_id: d.session_id,
      ns: r.ns,
      ts: r.ts,
      query: d.query,
      ...(d.context_since ? { context_since: d.context_since } : {}),
      conversation: d.conversation ?? [],
      candidates: [],
      verdicts: new Map(),
      delivered: [],
    });
    order.push(d.turn_id);
    return;
  }
  const turnId = (r.data as { turn_id?: string }).turn_id;
  if (r.type === 'delivery.made' && turnId === undefined) return void outside.push(r);
  const t = turnId ? turns.get(turnId) : undefined;
  if (!t) return;
  if (r.type === 'recall.performed') t.candidates = recallCandidates(r.data as EventData<'recall.performed'>);
  else if (r.type === 'verdict.recorded') for (const v of recordedVerdicts(r.data as EventData<'verdict.recorded'>)) t.verdicts.set(v.evidence_key, v.score);
  else if (r.type === 'delivery.made') t.delivered.push(...(r.data as EventData<'delivery.made'>).items.map((i) => i.evidence_key));
}
