// Query planning: up to three distinct queries per turn, and the bounded dialogue.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { tailOf } from '../text/well-formed.js';

/** architecture.md §recall: at most 8 messages accepted, the last 4 eligible kept, 600 characters each. */
export const MAX_CONVERSATION_MESSAGES = 8;
export const KEPT_MESSAGES = 4;
export const MESSAGE_CHARS = 600;

export const conversationMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string().max(100_000),
});
export const conversationSchema = z.array(conversationMessageSchema).max(MAX_CONVERSATION_MESSAGES, `at most ${MAX_CONVERSATION_MESSAGES} messages`);
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

export interface PlannedQuery {
  kind: 'utterance' | 'context' | 'last_sentence';
  text: string;
}

/** The dialogue the judge and the context query see: last 4 non-empty messages, 600 chars each. */
export function boundConversation(conversation: readonly ConversationMessage[]): ConversationMessage[] {
  return conversation
    .filter((m) => m.content.trim().length > 0)
    .slice(-KEPT_MESSAGES)
    .map((m) => ({ role: m.role, content: clip(m.content.trim(), MESSAGE_CHARS) }));
}

export function conversationFingerprint(messages: readonly ConversationMessage[]): string {
  return createHash('sha256')
    .update(JSON.stringify(messages.map((m) => [m.role, m.content])))
    .digest('hex');
}

function clip(text: string, max: number): string {
  // keep the end: the latest part of a long message is what the turn follows from; never half an
  // emoji (a lone surrogate is stored as U+FFFD, so the log would hold another text than the fingerprint's)
  return tailOf(text, max);
}

const SENTENCE_END = /(?<=[.!?。！？；;])\s*|\n+/u;

/** The last sentence that says something (not an acknowledgement-sized fragment). */
export function lastSubstantiveSentence(text: string): string | undefined {
  const sentences = text
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = sentences.length - 1; i >= 0; i--) {
    const s = sentences[i] as string;
    const cjk = (s.match(/\p{Script=Han}/gu) ?? []).length;
    const words = s.split(/\s+/).filter((w) => /\p{L}|\p{N}/u.test(w)).length;
    if (cjk >= 4 || words >= 3) return s;
  }
  return undefined;
}

// An utterance that opens by dropping the previous subject: the dialogue before it must not
// steer recall (its terms would bring the old topic back).
const TOPIC_CHANGE =
  /^\s*(?:(?:ok(?:ay)?|so|well|actually|anyway|hmm)[\s,.;:!-]*)*(?:forget (?:that|it|about (?:that|it))|never ?mind|scratch that|moving on|(?:let'?s )?(?:change|switch)(?:ing)? (?:the )?(?:topic|subject|gears)|(?:a |on a )?(?:different|new|unrelated|separate) (?:topic|question|subject)|other (?:topic|question))\b|^\s*(?:换个话题|换个问题|说点别的|不说这个了|先不说这个|算了|另外一个问题|另一个问题)/iu;

/** The utterance explicitly changes the subject ("Actually, forget that. …", "换个话题…"). */
export function isTopicChange(utterance: string): boolean {
  return TOPIC_CHANGE.test(utterance.normalize('NFKC'));
}

/** The utterance without its topic-change lead ("Actually, forget that. When …?" → "When …?"); unchanged when nothing follows it. */
export function withoutTopicChange(utterance: string): string {
  const u = utterance.normalize('NFKC');
  const lead = TOPIC_CHANGE.exec(u);
  if (!lead) return utterance;
  const rest = u.slice(lead.index + lead[0].length).replace(/^[\s,.;:!?，。；：！？、—–-]+/u, '');
  return rest.length > 0 ? rest : utterance;
}

/** Up to three distinct queries: the utterance; the utterance with its dialogue; its last substantive sentence. */
export function planQueries(utterance: string, dialogue: readonly ConversationMessage[]): PlannedQuery[] {
  const u = utterance.trim();
  const out: PlannedQuery[] = [{ kind: 'utterance', text: u }];
  if (dialogue.length) {
    const context = [...dialogue.slice(-2).map((m) => m.content), u].join('\n');
    out.push({ kind: 'context', text: clip(context, 2_000) });
  }
  const last = lastSubstantiveSentence(u);
  if (last && last !== u) out.push({ kind: 'last_sentence', text: last });
  const seen = new Set<string>();
  return out.filter((q) => (seen.has(q.text) ? false : (seen.add(q.text), true)));
}
