// Stage 5, deliver: the local delivery rules over every judged candidate (floors, what the
// agent can still see or already quoted, slots), or nothing when the judge did not answer.
import { sameReaders } from '../../knowledge/audience.js';
import { MAX_WINDOW_TURNS } from '../../events/catalog.js';
import { KNOWLEDGE_LAYERS, parseEvidenceKey } from '../../knowledge/evidence.js';
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import { deliver, type DeliveredItem, type DeliveryCandidate, type DeliveryResult, type DeliveryRules, type HoldReason } from '../delivery.js';
import { sessionNeighbours, type Neighbours } from '../neighbours.js';
import { withSectionWindows, type PageSection } from '../section-window.js';
import type { GraphProjection } from '../../../projections/graph.js';
import type { RecordsProjection } from '../../../projections/records/index.js';
import type { RecordEntry } from '../../knowledge/item.js';
import { matchText, turnQueryNames, turnQueryTerms } from '../terms.js';
import { closeOpenFence } from '../../text/blocks.js';
import { PURGED_TEXT } from '../../privacy/index.js';
import type { Judged } from './judge.js';
import type { RecallPlan } from './plan.js';

export function deliverCandidates(core: RecallCore, config: RecallConfig, plan: RecallPlan, { pool, judged }: Judged): DeliveryResult {
  const { request, dialogue } = plan;
  const candidates: DeliveryCandidate[] = pool.map((s, rank) => ({
    key: s.entry.key,
    kind: KNOWLEDGE_LAYERS.has(s.entry.layer) ? 'knowledge' : 'history',
    layer: s.entry.layer,
    verdict: judged.verdicts.get(s.entry.key) ?? null,
    fingerprint: s.entry.fingerprint,
    title: s.entry.title,
    text: s.entry.text,
    match_text: matchText(s.entry),
    meta: s.entry.meta,
    session_id: s.entry.session_id,
    occurred_at: s.entry.occurred_at,
    rank,
  }));
  if (judged.status === 'failed' || judged.status === 'disabled')
    return { items: [], held: new Map<string, HoldReason>(candidates.map((c) => [c.key, 'unjudged'])) };
  // what the asking session was handed since its context start: the agent can still see it
  const seen = request.session_id ? core.projections.views.delivered.deliveredSince(plan.ns, request.session_id, request.context_since) : new Map<string, (string | null)[]>();
  const queryTerms = turnQueryTerms(request.query, plan.now);
  const result = deliver(
    candidates,
    {
      session_id: request.session_id,
      context_since: request.context_since,
      delivered: seen,
      assistant_texts: dialogue.filter((m) => m.role === 'assistant').map((m) => m.content),
      query_terms: queryTerms,
      query_names: turnQueryNames(request.query, plan.now),
    },
    config.delivery,
  );
  return { ...result, items: withWindows(core.projections.views, plan.ns, config.plain_session_gap_min, result.items, request.session_id, seen, queryTerms, config.delivery) };
}

/** The delivered items with their turn and section windows: the one path live recall and replay share. */
export function withWindows(
  views: { records: RecordsProjection; graph: GraphProjection },
  ns: string,
  plainGapMin: number,
  items: readonly DeliveredItem[],
  askingSession: string | undefined,
  seen: ReadonlyMap<string, unknown>,
  queryTerms: ReadonlySet<string>,
  rules: Pick<DeliveryRules, 'turn_window' | 'section_window' | 'excerpt_chars'>,
  /** replay: the log position of the turn replayed; a turn written at or after it is not in its window */
  asOf?: number,
): DeliveredItem[] {
  const turns = turnWindows(views, ns, plainGapMin, items, askingSession, seen, rules, asOf);
  return sectionWindows(views.records, turns, seen, queryTerms, rules);
}

/**
 * The delivered documentation sections with the sections beside them on their page
 * (DeliveryRules.section_window, src/recall/section-window.ts): live recall and replay share it.
 * A section the asking session can still see (`seen`) is not added again.
 */
export function sectionWindows(
  records: RecordsProjection,
  items: readonly DeliveredItem[],
  seen: ReadonlyMap<string, unknown>,
  queryTerms: ReadonlySet<string>,
  rules: Pick<DeliveryRules, 'section_window' | 'excerpt_chars'>,
): DeliveredItem[] {
  // at most 5 each side, as turn windows: delivery.made holds a window of MAX_WINDOW_TURNS keys (a wider
  // one failed the event's schema, and the recall with it)
  const radius = Math.min(rules.section_window ?? 0, (MAX_WINDOW_TURNS - 1) / 2);
  if (radius <= 0 || !items.some((i) => i.layer === 'wiki' && !i.excerpt)) return [...items];
  return withSectionWindows(items, (k) => pageSections(records, k, seen), rules.excerpt_chars, radius, queryTerms);
}

/**
 * A section's page as the section window reads it: its current sections in page order; a window
 * stops at a metadata section, one other readers see, or one the asking session can still see.
 */
function pageSections(records: RecordsProjection, key: string, seen: ReadonlyMap<string, unknown>): PageSection[] | undefined {
  const self = records.get(key);
  const ref = parseEvidenceKey(key);
  if (!self || !ref) return undefined;
  return records
    .document(ref.ns, ref.layer, ref.id)
    .filter((e) => e.key === key || e.status === 'active')
    .map((e) => ({ key: e.key, text: e.text, fingerprint: e.fingerprint, ...(e.key !== key && (e.meta || seen.has(e.key) || !sameReaders(self, e)) ? { stop: true } : {}) }));
}

/**
 * The delivered items with their turn windows (DeliveryRules.turn_window): the one rule live recall and
 * replay share. `seen`: the keys the asking session was handed since its context start (an item's or a
 * window's turn), which the agent can still see — a window stops before one.
 */
export function turnWindows(
  views: { records: RecordsProjection; graph: GraphProjection },
  ns: string,
  plainGapMin: number,
  items: readonly DeliveredItem[],
  askingSession: string | undefined,
  seen: ReadonlyMap<string, unknown>,
  rules: Pick<DeliveryRules, 'turn_window' | 'excerpt_chars'>,
  /** replay: the log position of the turn replayed (turns written since were not there to window) */
  asOf?: number,
): DeliveredItem[] {
  // at most 5 each side: delivery.made holds a window of MAX_WINDOW_TURNS (a longer one could not be recorded)
  const radius = Math.min(rules.turn_window ?? 0, (MAX_WINDOW_TURNS - 1) / 2);
  if (radius <= 0 || !items.some((i) => i.layer === 'memory' && !i.excerpt)) return [...items];
  const neighbours = sessionNeighbours(views.records, views.graph, ns, plainGapMin);
  const entryOf = (k: string): RecordEntry | undefined => {
    const e = views.records.get(k);
    return e && (asOf === undefined || e.seq < asOf) ? e : undefined;
  };
  return withTurnWindows(items, neighbours, entryOf, askingSession, rules.excerpt_chars, radius, seen);
}

/**
 * turn_window: each delivered memory that has conversation neighbours is handed over with up to
 * `radius` turns before and after it (sessionNeighbours: same namespace, same readers), one item
 * whose text holds the lines in order. A window stops at a turn delivered itself or held by an
 * earlier item's window, one the asking session can still see (`seen`: handed over since its
 * context start), one of the asking session's own turns, one no longer active (a guard: the
 * neighbour order holds active turns only, so a forgotten turn is passed over), and at `maxChars` (the nearer turns first); with no neighbour left the item keeps
 * its own text. A turn leaving a code fence open has it closed in the window; one whose sealed text no
 * longer opens (its key gone before its purge was recorded: ⟦purged⟧) ends the window like a forgotten one.
 */
export function withTurnWindows(
  items: readonly DeliveredItem[],
  neighboursOf: (key: string) => Neighbours,
  entryOf: (key: string) => { text: string; session_id?: string | undefined; status?: string | undefined; fingerprint?: string | undefined } | undefined,
  askingSession: string | undefined,
  maxChars: number,
  radius = 1,
  seen: ReadonlyMap<string, unknown> | ReadonlySet<string> = new Set<string>(),
): DeliveredItem[] {
  // the delivered items' keys, then each window's turns as it is made: a later item's window stops
  // before a turn an earlier one holds (two windows over one stretch of a conversation repeated it)
  const taken = new Set(items.map((i) => i.key));
  // a turn leaving a code fence open has it closed: else the window's next turns read as code
  return items.map((it) => {
    if (it.layer !== 'memory' || it.excerpt) return it;
    type Line = { key: string; text: string; fingerprint: string | null };
    const line = (key: string | undefined): Line | undefined => {
      const e = key === undefined || taken.has(key) || seen.has(key) ? undefined : entryOf(key);
      const usable = e !== undefined && (e.status ?? 'active') === 'active' && e.text !== '' && e.text !== PURGED_TEXT && (askingSession === undefined || e.session_id !== askingSession);
      return usable ? { key: key as string, text: closeOpenFence(e.text), fingerprint: e.fingerprint ?? null } : undefined;
    };
    const lines: Line[] = [{ key: it.key, text: closeOpenFence(it.text), fingerprint: it.fingerprint ?? null }];
    let length = lines[0]?.text.length ?? 0;
    let first: string | undefined = it.key;
    let last: string | undefined = it.key;
    // the next turn out on one side, when it fits the excerpt
    const grow = (from: string | undefined, side: 'before' | 'after'): Line | undefined => {
      const next = from === undefined ? undefined : line(neighboursOf(from)[side]);
      if (!next || length + 1 + next.text.length > maxChars) return undefined;
      length += 1 + next.text.length;
      return next;
    };
    // nearer turns first, alternating before and after
    for (let step = 0; step < radius; step++) {
      const before = grow(first, 'before');
      if (before) lines.unshift(before);
      first = before?.key;
      const after = grow(last, 'after');
      if (after) lines.push(after);
      last = after?.key;
    }
    if (lines.length === 1) return it;
    for (const l of lines) taken.add(l.key);
    return { ...it, text: lines.map((l) => l.text).join('\n'), window: lines.map((l) => l.key), window_fingerprints: lines.map((l) => l.fingerprint) };
  });
}