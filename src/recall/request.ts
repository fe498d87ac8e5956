// The recall request and its options, validated; the options are echoed back in full.
import { z } from 'zod';
import { namespaceSchema } from '../events/index.js';
import type { Layer } from '../knowledge/evidence.js';
import { conversationSchema } from './conversation.js';

const quota = z.number().int().min(0, 'quotas are 0–50').max(50, 'quotas are 0–50');

export const recallOptionsSchema = z.strictObject({
  cards: z.boolean().default(true),
  wiki: z.boolean().default(true),
  memories: z.boolean().default(true),
  notes: z.boolean().default(true),
  conversations: z.boolean().default(true),
  assets: z.boolean().default(true),
  /** verbatim episodes are cold: recalled only on request */
  episodes: z.boolean().default(false),
  /** the dense (vector) lanes */
  semantic: z.boolean().default(true),
  /** only items carrying every one of these tags (case-insensitive), as GET /v1/items filters them */
  tags: z.array(z.string().trim().min(1).max(200)).min(1).max(20).optional(),
  max_cards: quota.optional(),
  max_wiki: quota.optional(),
  max_memories: quota.optional(),
  max_notes: quota.optional(),
  max_conversations: quota.optional(),
  max_assets: quota.optional(),
});
export type RecallOptions = z.output<typeof recallOptionsSchema>;

export const recallRequestSchema = z.strictObject({
  query: z
    .string()
    .max(20_000)
    .refine((q) => q.trim().length > 0, 'query must not be empty'),
  conversation: conversationSchema.optional(),
  limit: z.number().int().min(1, 'limit is 1–50').max(50, 'limit is 1–50').default(10),
  options: recallOptionsSchema.default(() => recallOptionsSchema.parse({})),
  namespace: namespaceSchema.optional(),
  session_id: z.string().min(1).max(512).optional(),
  context_since: z.iso.datetime({ offset: true }).optional(),
  /**
   * expansion terms kept apart from the sentence (MCP search_memory): with them, the lexical
   * lanes search the terms and only the dense lane reads the sentence
   */
  terms: z.array(z.string().trim().min(1).max(200)).min(1).max(50).optional(),
});
export type RecallRequest = z.input<typeof recallRequestSchema>;
export type ParsedRecallRequest = z.output<typeof recallRequestSchema>;

/** Which option switches and quotas govern each layer. */
export const LAYER_OPTIONS: Record<Layer, { on: keyof RecallOptions; max?: keyof RecallOptions }> = {
  card: { on: 'cards', max: 'max_cards' },
  wiki: { on: 'wiki', max: 'max_wiki' },
  memory: { on: 'memories', max: 'max_memories' },
  note: { on: 'notes', max: 'max_notes' },
  trace: { on: 'conversations', max: 'max_conversations' },
  asset: { on: 'assets', max: 'max_assets' },
  episode: { on: 'episodes' },
};

export function enabledLayers(options: RecallOptions): Layer[] {
  return (Object.keys(LAYER_OPTIONS) as Layer[]).filter((l) => options[LAYER_OPTIONS[l].on] === true);
}
