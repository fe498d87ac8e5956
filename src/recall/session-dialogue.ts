// The dialogue a client did not send: the same session's completed turns (what was asked,
// what was answered), so a client without a transcript (HTTP, MCP tools) still gets the
// context query and a judge that sees the turn's dialogue (seed 000: "Without supplied
// dialogue, turn-start uses completed turns from that same session only").
import type { RecordsProjection } from '../../projections/records/index.js';
import type { TurnsProjection } from '../../projections/turns.js';
import { boundConversation, KEPT_MESSAGES, type ConversationMessage } from './conversation.js';

export interface SessionViews {
  turns: TurnsProjection;
  records: RecordsProjection;
}

/**
 * This session's completed turns of namespace `ns` as user/assistant messages, oldest first,
 * bounded as a sent dialogue is (the last 4 non-empty messages, 600 characters each). Turns
 * started before `sinceMs` (the last compaction) are out of the agent's view and left out;
 * a turn still running (the current one) has no answer yet and is left out too.
 */
export function sessionDialogue(views: SessionViews, ns: string, sessionId: string, sinceMs = -Infinity): ConversationMessage[] {
  // a session's turns are filed as traces under its id; the turns projection says which are done
  const done: { at: number; seq: number; query: string; answer: string }[] = [];
  for (const e of views.records.bySessionId(sessionId, { ns, layers: ['trace'] })) {
    const turn = views.turns.turn(e.id);
    if (!turn?.completed || turn.ns !== ns || turn.session_id !== sessionId || turn.started_at < sinceMs) continue;
    done.push({ at: turn.started_at, seq: e.seq, query: turn.query, answer: answerOf(e.text, turn.query) });
  }
  done.sort((a, b) => a.at - b.at || a.seq - b.seq);
  const messages: ConversationMessage[] = [];
  // each turn gives at most two messages: only the last few turns can be kept
  for (const t of done.slice(-KEPT_MESSAGES)) messages.push({ role: 'user', content: t.query }, { role: 'assistant', content: t.answer });
  return boundConversation(messages);
}

/** A completed trace's text is `[speaker: ]query\nanswer`: the answer is what follows the query. */
function answerOf(text: string, query: string): string {
  const at = text.indexOf(`${query}\n`);
  return at < 0 ? '' : text.slice(at + query.length + 1);
}
