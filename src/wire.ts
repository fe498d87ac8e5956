// The API's request schemas, built from the core's zod schemas (one source of truth):
// the HTTP routes document them, the facade (src/kioku.ts) and its remote twin take their
// input types from them. Validation itself happens in the core, which names the failing field.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { eventSchemas, namespaceSchema } from './events/index.js';
import { itemIdSchema } from './knowledge/evidence.js';
import { assetSchema, episodeSchema } from './knowledge/commands.js';
import { writeMemoriesSchema } from './knowledge/commands.js';
import { PARTIAL_OF, recallRequestSchema } from './recall/index.js';
import { completeTurnSchema, openSessionSchema, startTurnSchema } from './recall/turns.js';
import { exportedItemSchema } from './knowledge/import-items.js';

const isoTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'an ISO 8601 date or time');

/** `wait_for_vectors` (memory writes, HTTP and MCP): answer once the written memories have vectors, true (up to 60 s) or a timeout in ms. */
export const waitForVectorsSchema = z
  .union([z.boolean(), z.number().int().min(1).max(600_000)])
  .optional()
  .transform((v) => (v === true ? 60_000 : v === false ? undefined : v));

const LAYER_NAMES = ['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'] as const;

export const wire = {
  // the knowledge commands' own schemas, with the namespace as the API names it
  episode: episodeSchema.omit({ ns: true }).extend({ namespace: namespaceSchema.optional() }),
  asset: assetSchema.omit({ ns: true }).extend({ namespace: namespaceSchema.optional() }),
  /** browse items by what they are, not by relevance: kinds, tags, an entity, a time range, a session */
  items: z.strictObject({
    namespace: namespaceSchema.optional(),
    layers: z.array(z.enum(LAYER_NAMES)).min(1).max(7).optional(),
    kinds: z.array(z.string().min(1).max(50)).max(20).optional(),
    tags: z.array(z.string().min(1).max(200)).max(20).optional(),
    entity: z.string().trim().min(1).max(200).optional(),
    /** an ISO time, or a phrase ("last week", "九月那阵子") resolved against now */
    from: z.string().min(1).max(200).optional(),
    to: z.string().min(1).max(200).optional(),
    session_id: z.string().min(1).max(512).optional(),
    include_retired: z.boolean().default(false),
    limit: z.number().int().min(1).max(200).default(50),
  }),
  /** browse a namespace in key order, a page at a time (GET /v1/items, kioku list, MCP list_memories) */
  list: z.strictObject({
    namespace: namespaceSchema.optional(),
    layers: z.array(z.enum(LAYER_NAMES)).min(1).max(7).optional(),
    kinds: z.array(z.string().min(1).max(50)).min(1).max(20).optional(),
    /** items carrying every one of these tags (case-insensitive) */
    tags: z.array(z.string().min(1).max(200)).max(20).optional(),
    entity: z.string().trim().min(1).max(200).optional(),
    session_id: z.string().min(1).max(512).optional(),
    /** occurred at or after: an ISO time, or a phrase ("last week") */
    since: z.string().min(1).max(200).optional(),
    /** occurred at or before: an ISO time, or a phrase */
    until: z.string().min(1).max(200).optional(),
    /** a substring of the title or the text, case-insensitive */
    text: z.string().min(1).max(500).optional(),
    include_retired: z.boolean().default(false),
    limit: z.number().int().min(1).max(500).default(50),
    /** the next_cursor of the page before (with the same filters) */
    cursor: z.string().min(1).max(4_096).optional(),
  }),
  /** what `kioku export --format jsonl` wrote, back in (kioku import jsonl FILE) */
  importItems: z.strictObject({
    namespace: namespaceSchema.optional(),
    items: z.array(exportedItemSchema).min(1).max(500),
  }),
  import: z.strictObject({
    kind: z.enum(['cards', 'wiki', 'notes']),
    root: z.string().min(1).max(4_096).refine(isAbsolute, 'root must be an absolute path'),
    files: z
      .array(z.strictObject({ path: z.string().min(1).max(4_096).refine(isAbsolute, 'path must be absolute'), markdown: z.string().max(2_000_000) }))
      .max(10_000),
    prune: z.boolean().default(false),
    seen_ids: z.array(z.string().max(4_096)).max(1_000_000).default([]),
    /** false for every batch but the last */
    final: z.boolean().default(true),
    namespace: z.string().optional(),
  }),
  openSession: openSessionSchema,
  startTurn: startTurnSchema,
  completeTurn: completeTurnSchema,
  recall: recallRequestSchema,
  // the command's own schema: the memories as the command parses them, the namespace as the API names it
  memories: writeMemoriesSchema.omit({ ns: true }).extend({
    namespace: namespaceSchema.optional(),
    wait_for_vectors: waitForVectorsSchema,
  }),
  forget: z.strictObject({ reason: z.string().max(2_000).optional(), namespace: namespaceSchema.optional() }),
  supersede: z.strictObject({
    superseded_ids: z.array(itemIdSchema).min(1).max(100),
    reason: z.string().max(2_000).optional(),
    namespace: namespaceSchema.optional(),
  }),
  audience: z.strictObject({ audience: z.array(z.string().min(1).max(200)).max(100), namespace: namespaceSchema.optional() }),
  // the catalog's own schema: the wire cannot drift from what the log accepts
  jobEvent: eventSchemas['job.event'].extend({ namespace: namespaceSchema.optional() }),
  replay: z.strictObject({
    namespace: z.string().optional(),
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
      })
      .optional(),
  }),
};

export type OpenSessionInput = z.input<typeof wire.openSession>;
export type StartTurnInput = z.input<typeof wire.startTurn>;
export type CompleteTurnInput = z.input<typeof wire.completeTurn>;
export type RecallInput = z.input<typeof wire.recall>;
export type WriteMemoriesInput = z.input<typeof wire.memories>;
export type ForgetInput = z.input<typeof wire.forget>;
export type SupersedeInput = z.input<typeof wire.supersede>;
export type ImportInput = z.input<typeof wire.import>;
export type JobEventInput = z.input<typeof wire.jobEvent>;
export type ReplayInput = z.input<typeof wire.replay>;
export type AudienceInput = z.input<typeof wire.audience>;
export type ItemsInput = z.input<typeof wire.items>;
export type ListInput = z.input<typeof wire.list>;
export type ImportItemsInput = z.input<typeof wire.importItems>;
export type EpisodeInput = z.input<typeof wire.episode>;
export type AssetInput = z.input<typeof wire.asset>;
