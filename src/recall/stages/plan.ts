// Stage 1, plan: take the parsed request in its settled namespace, bound the dialogue and plan
// the queries (utterance, context, last sentence). Pure but for the recall id and the clock.
// The request was parsed and the namespace settled by the caller (pipeline.ts `recall`, or a
// turn start that bounded the dialogue already): nothing here parses or resolves again.
import { randomBytes } from 'node:crypto';
import type { Layer } from '../../knowledge/evidence.js';
import { isAcknowledgement } from '../acknowledge.js';
import { boundConversation, conversationFingerprint, isTopicChange, planQueries, withoutTopicChange, type PlannedQuery } from '../conversation.js';
import type { RecallContext, RecallCore } from '../core.js';
import { enabledLayers, type ParsedRecallRequest } from '../request.js';
import { sessionDialogue } from '../session-dialogue.js';
import { heldSession } from '../session-holder.js';

export interface RecallPlan {
  request: ParsedRecallRequest;
  ns: string;
  recallId: string;
  /** the dialogue as received (bounded; the session's completed turns when none was sent), and as used (empty after a change of subject) */
  received: ParsedRecallRequest['conversation'] & object;
  dialogue: ParsedRecallRequest['conversation'] & object;
  /** the utterance without a topic-change lead, whose words would only dilute the query */
  asked: string;
  queries: PlannedQuery[];
  /** layers searched: the enabled ones, episodes only on request */
  searchLayers: Layer[];
  /** a bare acknowledgement ("thanks", "好的"): nothing is searched */
  acknowledgement: boolean;
  now: Date;
  warnings: string[];
  /** the fields every packet starts with */
  base: {
    recall_id: string;
    namespace: string;
    options: ParsedRecallRequest['options'];
    limit: number;
    conversation_fingerprint: string;
    conversation_messages: number;
  };
}

/** The dialogue a turn start bounded already, with its fingerprint (computed once per request). */
export interface BoundDialogue {
  messages: ParsedRecallRequest['conversation'] & object;
  fingerprint: string;
}

export function planRecall(core: RecallCore, request: ParsedRecallRequest, ns: string, context: RecallContext, bound?: BoundDialogue): RecallPlan {
  // a client that sends no dialogue (HTTP without a transcript, MCP tools) gets its session's
  // completed turns since the last compaction instead, bounded the same way — only from a session
  // the caller holds (issue 34: another member's session lends no dialogue, as a missing one)
  const sent = request.conversation ?? [];
  const received =
    sent.length === 0 && request.session_id && heldSession(core.projections.views, ns, request.session_id, context)
      ? sessionDialogue(core.projections.views, ns, request.session_id, request.context_since ? Date.parse(request.context_since) : -Infinity)
      : (bound?.messages ?? boundConversation(sent));
  // an explicit change of subject drops the dialogue before it from queries and judge
  const topicChange = received.length > 0 && isTopicChange(request.query);
  const dialogue = topicChange ? [] : received;
  const recallId = `r-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const asked = withoutTopicChange(request.query);
  return {
    request,
    ns,
    recallId,
    received,
    dialogue,
    asked,
    queries: planQueries(asked, dialogue),
    searchLayers: enabledLayers(request.options).filter((l) => l !== 'episode' || request.options.episodes),
    acknowledgement: isAcknowledgement(request.query),
    now: core.now?.() ?? new Date(),
    warnings: topicChange ? ['topic_change_dialogue_ignored'] : [],
    base: {
      recall_id: recallId,
      namespace: ns,
      options: request.options,
      limit: request.limit,
      conversation_fingerprint: bound && sent.length > 0 ? bound.fingerprint : conversationFingerprint(received),
      conversation_messages: received.length,
    },
  };
}
