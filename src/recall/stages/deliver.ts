// Stage 5, deliver: the local delivery rules over every judged candidate (floors, what the
// agent can still see or already quoted, slots), or nothing when the judge did not answer.
import { KNOWLEDGE_LAYERS } from '../../knowledge/evidence.js';
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import { deliver, type DeliveredItem, type DeliveryCandidate, type DeliveryResult, type HoldReason } from '../delivery.js';
import { sessionNeighbours, type Neighbours } from '../neighbours.js';
import { matchText, turnQueryNames, turnQueryTerms } from '../terms.js';
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
  const delivered = core.projections.views.delivered;
  const result = deliver(
    candidates,
    {
      session_id: request.session_id,
      context_since: request.context_since,
      delivered: request.session_id ? delivered.deliveredSince(request.session_id, request.context_since) : new Map(),
      assistant_texts: dialogue.filter((m) => m.role === 'assistant').map((m) => m.content),
      query_terms: turnQueryTerms(request.query, plan.now),
      query_names: turnQueryNames(request.query, plan.now),
    },
    config.delivery,
  );
  const radius = config.delivery.turn_window ?? 0;
  if (radius <= 0) return result;
  const neighbours = sessionNeighbours(core.projections.views.records, core.projections.views.graph, plan.ns, config.plain_session_gap_min);
  return { ...result, items: withTurnWindows(result.items, neighbours, (k) => core.projections.views.records.get(k), request.session_id, config.delivery.excerpt_chars, radius) };
}

/**
 * turn_window: each delivered memory that has conversation neighbours is handed over with up to
 * `radius` turns before and after it (sessionNeighbours: same namespace, same readers), one item
 * whose text holds the lines in order. A window stops at a turn delivered itself or one of the
 * asking session's own turns, and at `maxChars` (the nearer turns first); with no neighbour left
 * the item keeps its own text.
 */
export function withTurnWindows(
  items: readonly DeliveredItem[],
  neighboursOf: (key: string) => Neighbours,
  entryOf: (key: string) => { text: string; session_id?: string | undefined } | undefined,
  askingSession: string | undefined,
  maxChars: number,
  radius = 1,
): DeliveredItem[] {
  const deliveredKeys = new Set(items.map((i) => i.key));
  return items.map((it) => {
    if (it.layer !== 'memory' || it.excerpt) return it;
    const line = (key: string | undefined): { key: string; text: string } | undefined => {
      const e = key === undefined || deliveredKeys.has(key) ? undefined : entryOf(key);
      return e && (askingSession === undefined || e.session_id !== askingSession) ? { key: key as string, text: e.text } : undefined;
    };
    const lines: { key: string; text: string }[] = [{ key: it.key, text: it.text }];
    let length = it.text.length;
    let first: string | undefined = it.key;
    let last: string | undefined = it.key;
    // the next turn out on one side, when it fits the excerpt
    const grow = (from: string | undefined, side: 'before' | 'after'): { key: string; text: string } | undefined => {
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
    return { ...it, text: lines.map((l) => l.text).join('\n'), window: lines.map((l) => l.key) };
  });
}