// The API's request schemas, gathered from the commands' own (one source of truth): each command
// module exports its input schema, and the entries here are those schemas with the namespace as the
// API names it (`namespace`, where a command says `ns`). The facade (src/kioku.ts) parses with them,
// the doors validate and document with them (src/api/index.ts), RemoteKioku takes its input types
// from them. Nothing here is written by hand but the split of a path id off a command's schema.
import { z } from 'zod';
import { eventSchemas, namespaceSchema } from './events/index.js';
import { assetSchema, audienceSchema, episodeSchema, forgetSchema, supersedeSchema, writeMemoriesSchema } from './knowledge/commands.js';
import { purgeSchema } from './knowledge/purge.js';
import { importRequestSchema } from './knowledge/importer.js';
import { importItemsRequestSchema } from './knowledge/import-items.js';
import { recallRequestSchema } from './recall/index.js';
import { replayRequestSchema } from './recall/replay.js';
import { lifecycleRunSchema } from './recall/lifecycle.js';
import { completeTurnSchema, openSessionSchema, startTurnSchema } from './recall/turns.js';
import { itemsQuerySchema } from '../projections/records/queries.js';
import { listRequestSchema } from '../projections/records/listing.js';
import { pipelineJobsSchema, pipelineSnapshotSchema } from './api/pipeline.js';
import { ackSchema, inboxQuerySchema, notifySchema } from './knowledge/notices.js';
import { orgChangeSchema } from './knowledge/org-decide.js';
import { activitySchema } from './api/activity.js';
import { revealSecretSchema } from './privacy/reveal.js';

/** `wait_for_vectors` (memory writes, HTTP and MCP): answer once the written memories have vectors, true (up to 60 s) or a timeout in ms. */
export const waitForVectorsSchema = z
  .union([z.boolean(), z.number().int().min(1).max(600_000)])
  .optional()
  .transform((v) => (v === true ? 60_000 : v === false ? undefined : v));

/** The namespace as the API names it: optional (the token's, or private), never any string. */
const namespace = { namespace: namespaceSchema.optional() };

export const wire = {
  // the knowledge commands' own schemas, with the namespace as the API names it
  episode: episodeSchema.omit({ ns: true }).extend(namespace),
  asset: assetSchema.omit({ ns: true }).extend(namespace),
  memories: writeMemoriesSchema.omit({ ns: true }).extend({ ...namespace, wait_for_vectors: waitForVectorsSchema }),
  // the memory's id is the path's (/v1/memories/{id}/…): the body is the rest of the command
  forget: forgetSchema.omit({ ns: true, id: true }).extend(namespace),
  // purge (issue 33): a memory or a session by id, or the whole namespace of the call
  purge: purgeSchema.omit({ ns: true }).extend(namespace),
  supersede: supersedeSchema.omit({ ns: true, head_id: true }).extend(namespace),
  audience: audienceSchema.omit({ ns: true, id: true }).extend(namespace),
  // notices between org members (issue 34): a note (POST /v1/notices), an ack (the notice id is the path's), the inbox's query
  notify: notifySchema.extend(namespace),
  ack: ackSchema.extend(namespace),
  inbox: inboxQuerySchema.extend(namespace),
  /** a change to the namespace's org (a space or a member), by an org:admin caller */
  orgChange: orgChangeSchema.omit({ ns: true }).extend(namespace),
  /** browse items by what they are, not by relevance: kinds, tags, an entity, a time range, a session */
  items: itemsQuerySchema,
  /** browse a namespace in key order, a page at a time (GET /v1/items, kioku list, MCP list_memories) */
  list: listRequestSchema,
  /** what `kioku export --format jsonl` wrote, back in (kioku import jsonl FILE) */
  importItems: importItemsRequestSchema,
  import: importRequestSchema,
  openSession: openSessionSchema,
  startTurn: startTurnSchema,
  completeTurn: completeTurnSchema,
  recall: recallRequestSchema,
  // the catalog's own schema: the wire cannot drift from what the log accepts
  jobEvent: eventSchemas['job.event'].extend(namespace),
  replay: replayRequestSchema,
  /** the value behind a placeholder, from this machine's vault (issue 33): reveal_secret, kioku secret reveal */
  revealSecret: revealSecretSchema.omit({ ns: true }).extend(namespace),
  /** the lifecycle job over one namespace (kioku lifecycle run, POST /v1/lifecycle/run) */
  lifecycleRun: lifecycleRunSchema,
  // Queries of the GET routes: documented (and typed) here; the facade checks their values by hand,
  // with the messages a query string's bad value always got (a NaN from `?days=x` included)
  /** a lookup in a namespace: document, source, relations, stats */
  inNamespace: z.strictObject(namespace),
  cold: z.strictObject({ ...namespace, min_considered: z.number().optional() }),
  deliveryReport: z.strictObject({ ...namespace, days: z.number().optional() }),
  assetQuery: z.strictObject({ ...namespace, include_content: z.boolean().optional(), max_bytes: z.number().optional() }),
  // a whole number; out-of-range values are clamped to 1–100 by the facade, as always
  // 1–100 as the MCP tool takes it: -5, 0 or a billion were answered as 1 or 100 over HTTP, never refused
  related: z.strictObject({ limit: z.number().int().min(1).max(100).optional() }),
  pipelineSnapshot: pipelineSnapshotSchema,
  pipelineJobs: pipelineJobsSchema,
  activity: activitySchema,
  verifyLog: z.strictObject({ write_anchor: z.boolean().optional() }),
  logFrames: z.strictObject({ from: z.number(), to: z.number().optional(), limit: z.number().optional() }),
};

export type OpenSessionInput = z.input<typeof wire.openSession>;
export type StartTurnInput = z.input<typeof wire.startTurn>;
export type CompleteTurnInput = z.input<typeof wire.completeTurn>;
export type RecallInput = z.input<typeof wire.recall>;
export type WriteMemoriesInput = z.input<typeof wire.memories>;
export type ForgetInput = z.input<typeof wire.forget>;
export type PurgeInput = z.input<typeof wire.purge>;
export type SupersedeInput = z.input<typeof wire.supersede>;
export type ImportInput = z.input<typeof wire.import>;
export type JobEventInput = z.input<typeof wire.jobEvent>;
export type ReplayInput = z.input<typeof wire.replay>;
export type LifecycleRunInput = z.input<typeof wire.lifecycleRun>;
export type AudienceInput = z.input<typeof wire.audience>;
export type NotifyInput = z.input<typeof wire.notify>;
export type AckInput = z.input<typeof wire.ack>;
export type InboxInput = z.input<typeof wire.inbox>;
export type OrgChangeInput = z.input<typeof wire.orgChange>;
export type ItemsInput = z.input<typeof wire.items>;
export type ListInput = z.input<typeof wire.list>;
export type ImportItemsInput = z.input<typeof wire.importItems>;
export type RevealSecretInput = z.input<typeof wire.revealSecret>;
export type EpisodeInput = z.input<typeof wire.episode>;
export type AssetInput = z.input<typeof wire.asset>;
export type InNamespaceInput = z.input<typeof wire.inNamespace>;
export type ColdInput = z.input<typeof wire.cold>;
export type DeliveryReportInput = z.input<typeof wire.deliveryReport>;
export type AssetQueryInput = z.input<typeof wire.assetQuery>;
export type RelatedInput = z.input<typeof wire.related>;
export type VerifyLogInput = z.input<typeof wire.verifyLog>;
export type LogFramesInput = z.input<typeof wire.logFrames>;
