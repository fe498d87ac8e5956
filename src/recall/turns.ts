// The turn lifecycle every interface uses: open a session, start a turn (captured,
// then recalled once), complete it (the answer and how much of each delivered item
// it used — a lexical proxy, reported as such).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { completionHash, type SessionState, type TurnState } from '../../projections/turns.js';
import { mayUseNamespace, namespaceOf, type Access } from '../access.js';
import { KiokuError } from '../errors.js';
import { DEFAULT_NAMESPACE, namespaceSchema } from '../events/index.js';
import { itemIdSchema } from '../knowledge/evidence.js';
import { parseInput } from '../knowledge/validate.js';
import { tokenize } from '../text/index.js';
import { boundConversation, conversationFingerprint } from './conversation.js';
import { excerpt } from './delivery.js';
import type { RecallPacket } from './packet.js';
import { recallParsed, type RecallContext, type RecallCore } from './pipeline.js';
import { recallRequestSchema } from './request.js';
import { orgCaller } from '../knowledge/audience.js';
import { callerIn, holds, type TurnViews } from './session-holder.js';

const newId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;

export const openSessionSchema = z.strictObject({
  agent: z
    .string()
    .min(1)
    .max(200)
    .refine((a) => a.trim().length > 0 && !/[\u0000-\u001f\u007f]/.test(a), 'agent must name the agent (not blank, no control characters)'),
  session_id: itemIdSchema.optional(),
  namespace: namespaceSchema.optional(),
});

export async function openSession(core: RecallCore, input: unknown, context: RecallContext = {}): Promise<{ session_id: string; namespace: string }> {
  const p = parseInput(openSessionSchema, input, 'open session');
  const ns = namespaceOf(p.namespace, context);
  const sessionId = p.session_id ?? newId('s');
  // a session id is the namespace's own: another namespace's session of that id is not this one;
  // in an org it is its opener's too: another member's session of that id is not found (issue 34)
  if (visibleSession(core.projections.views, ns, sessionId, context)) return { session_id: sessionId, namespace: ns };
  const owner = ownerOfTurn(core, ns, context);
  const { seq } = await core.log.append({ type: 'session.opened', ns, actor: context.actor ?? 'recall', data: { session_id: sessionId, agent: p.agent, ...owner } });
  await core.projections.waitFor(seq);
  return { session_id: sessionId, namespace: ns };
}

export const startTurnSchema = recallRequestSchema.extend({ session_id: itemIdSchema });

/** The member a turn belongs to: the caller's, in an org. */
function ownerOfTurn(core: RecallCore, ns: string, context: RecallContext): { owner?: string } {
  const member = orgCaller(core.projections.views.org.org(ns), context.principal)?.member;
  return member ? { owner: member.name } : {};
}

/** Capture the turn, then recall once; the client must not search again for this turn. */
export async function startTurn(core: RecallCore, input: unknown, context: RecallContext = {}): Promise<{ turn_id: string } & RecallPacket> {
  const p = parseInput(startTurnSchema, input, 'start turn');
  const ns = namespaceOf(p.namespace, context);
  if (!visibleSession(core.projections.views, ns, p.session_id, context, 'strict')) throw noSession(p.session_id);
  const turnId = newId('t');
  const dialogue = boundConversation(p.conversation ?? []);
  const fingerprint = conversationFingerprint(dialogue);
  const { seq } = await core.log.append({
    type: 'turn.started',
    ns,
    actor: context.actor ?? 'recall',
    data: {
      turn_id: turnId,
      session_id: p.session_id,
      query: p.query,
      ...(dialogue.length
        ? { conversation: dialogue.map((m) => ({ role: m.role, text: m.content })), conversation_fingerprint: fingerprint }
        : {}),
      ...(p.context_since ? { context_since: p.context_since } : {}),
      // in an org, the turn (its trace) is its member's: visible to that member only (issue 34)
      ...ownerOfTurn(core, ns, context),
    },
  });
  await core.projections.waitFor(seq);
  const packet = await recallParsed(core, p, ns, { ...context, namespaces: [ns], turn_id: turnId }, { messages: dialogue, fingerprint });
  return { turn_id: turnId, ...packet };
}

export const completeTurnSchema = z
  .strictObject({
    answer: z.string().max(1_000_000),
    tool_data: z.unknown().optional(),
  })
  .refine((b) => b.answer.trim().length > 0 || b.tool_data !== undefined, {
    message: 'answer must not be empty (send tool_data for a turn that only used tools)',
    path: ['answer'],
  });

/** Record the answer. The same body again is idempotent; a different one is a conflict. */
export async function completeTurn(
  core: RecallCore,
  turnId: string,
  input: unknown,
  context: RecallContext = {},
): Promise<{ turn_id: string; delivery_outcomes: { evidence_key: string; term_overlap: number }[] }> {
  const p = parseInput(completeTurnSchema, input, 'complete turn');
  const turn = visibleTurn(core.projections.views, turnId, context);
  const hash = completionHash(p.answer, p.tool_data);
  if (turn.completed) {
    if (turn.completed === hash) return { turn_id: turnId, delivery_outcomes: turn.delivery_outcomes ?? [] };
    throw new KiokuError('KIOKU_ID_CONFLICT', `turn ${turnId} was already completed with a different body`, { details: { field: 'answer' } });
  }
  const outcomes = deliveryOutcomes(core, turn.delivered, p.answer);
  const { seq } = await core.log.append({
    type: 'turn.completed',
    ns: turn.ns,
    actor: context.actor ?? 'recall',
    data: {
      turn_id: turnId,
      session_id: turn.session_id,
      answer: p.answer,
      ...(p.tool_data !== undefined ? { tool_data: p.tool_data } : {}),
      delivery_outcomes: outcomes,
    },
  });
  await core.projections.waitFor(seq);
  return { turn_id: turnId, delivery_outcomes: outcomes };
}


const noSession = (id: string): KiokuError => new KiokuError('KIOKU_NOT_FOUND', `no session ${id}; open one first`, { details: { field: 'session_id' } });

/**
 * The session `id` of namespace `ns` if it is the caller's. Opening (`mode` absent) an id another
 * member holds is refused as not found; starting a turn (`strict`) in one answers as a missing one.
 */
function visibleSession(views: TurnViews, ns: string, id: string, access: Access, mode?: 'strict'): SessionState | undefined {
  const session = views.turns.session(ns, id);
  if (!session || holds(session, callerIn(views, ns, access), access.actor)) return session;
  if (mode === 'strict') return undefined;
  throw noSession(id);
}

/**
 * A turn the caller may see. Another namespace's turn, and in an org another member's, is answered
 * exactly as a missing one (same status, code, message and details): a different answer would tell
 * that the id exists elsewhere.
 */
export function visibleTurn(views: TurnViews, turnId: string, access: Access): TurnState {
  const turn = views.turns.turn(turnId);
  if (!turn || !mayUseNamespace(access, turn.ns) || !holds(turn, callerIn(views, turn.ns, access), access.actor))
    throw new KiokuError('KIOKU_NOT_FOUND', `no turn ${turnId}`, { details: { field: 'turn_id' } });
  return turn;
}

/** For each delivered item, the share of its excerpt's distinct terms that reappear in the answer. */
export function deliveryOutcomes(core: RecallCore, delivered: readonly string[], answer: string): { evidence_key: string; term_overlap: number }[] {
  const records = core.projections.views.records;
  const answerTerms = new Set(tokenize(answer));
  return [...new Set(delivered)].slice(0, 3).map((key) => {
    const text = records.get(key)?.text ?? '';
    const terms = new Set(tokenize(excerpt(text, 2_000).text));
    let used = 0;
    for (const t of terms) if (answerTerms.has(t)) used += 1;
    return { evidence_key: key, term_overlap: terms.size ? Math.round((used / terms.size) * 1000) / 1000 : 0 };
  });
}
