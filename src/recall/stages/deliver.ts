// Stage 5, deliver: the local delivery rules over every judged candidate (floors, what the
// agent can still see or already quoted, slots), or nothing when the judge did not answer.
import { KNOWLEDGE_LAYERS } from '../../knowledge/evidence.js';
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import { deliver, type DeliveryCandidate, type DeliveryResult, type HoldReason } from '../delivery.js';
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
  return deliver(
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
}
