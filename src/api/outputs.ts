// What the facade's methods answer, as schemas (the HTTP door's OpenAPI document shows them; first
// written by the HTTP door as src/server/responses.ts, here so every door takes them from one place,
// beside the input schemas: src/api/operations.ts). The facade's answers are TypeScript types
// (src/kioku.ts, src/recall/packet.ts); each schema here names exactly their fields — `answer<T>()`
// does not compile when one is missing or one is extra — so the document cannot drift from what
// the facade returns. Diagnostics nested deeper are documented as objects.
import { z } from 'zod';
import { LAYERS, RETRIEVAL_MODES } from '../events/index.js';
import type {
  ArtifactsAnswer,
  AssetRegisteredAnswer,
  AudienceAnswer,
  CompleteTurnAnswer,
  ForgetAnswer,
  MemoryWriteAnswer,
  PipelineSnapshot,
  RelationsAnswer,
  SessionAnswer,
  StatsAnswer,
  SupersedeAnswer,
} from '../kioku.js';
import type { RecallPacket } from '../recall/index.js';
import { PURGE_SCOPES, type PurgeAnswer } from '../knowledge/purge.js';

type PacketRecord = RecallPacket['records'][number];
type DeliveredRecord = RecallPacket['delivery'][number];

/** A z.object over exactly the fields of T (optional ones may be `.optional()`). */
function answer<T>() {
  return <S extends { [K in keyof T]-?: z.ZodType }>(shape: S & { [K in Exclude<keyof S, keyof T>]: never }) => z.object(shape);
}

const counts = z.record(z.string(), z.number());

const packetRecord = answer<PacketRecord>()({
  id: z.string(),
  evidence_key: z.string(),
  layer: z.enum(LAYERS),
  title: z.string(),
  heading: z.string().optional(),
  excerpt: z.string(),
  excerpt_truncated: z.boolean(),
  score: z.number(),
  rank_score: z.number(),
  occurred_at: z.string(),
  provenance: z.object({ ns: z.string(), seq: z.number(), source_path: z.string().optional(), session_id: z.string().optional(), kind: z.string().optional() }),
  owner: z.string().optional().describe('in an org: the member who owns it (absent: the namespace\'s)'),
  mine: z.boolean().optional().describe('in an org: false when it is someone else\'s (say whose when retelling it)'),
  why: z.object({ lanes: counts, fused_score: z.number(), demoted: z.boolean(), delivered: z.boolean() }).describe('why it was recalled, and why it was or was not delivered'),
});

const deliveredRecord = answer<DeliveredRecord>()({
  evidence_key: z.string(),
  layer: z.string(),
  kind: z.enum(['knowledge', 'history']),
  title: z.string(),
  text: z.string(),
  excerpt: z.boolean().describe('the text was cut at a paragraph boundary'),
  verdict: z.number(),
  window: z.array(z.string()).optional().describe('a conversation turn handed over with the turns before and after it, or a documentation section with the sections beside it on its page: the evidence keys its text holds, in order'),
  owner: z.string().optional(),
  mine: z.boolean().optional(),
});

/** The recall packet: what recall, context, candidates and a turn start answer. */
export const recallPacketSchema = answer<RecallPacket>()({
  recall_id: z.string(),
  namespace: z.string(),
  retrieval_mode: z.enum(RETRIEVAL_MODES),
  records: z.array(packetRecord),
  delivery: z.array(deliveredRecord).describe('what the client should show the model: at most a few items'),
  judge: z.object({ status: z.enum(['complete', 'partial', 'failed', 'disabled']), judge: z.string(), calls: z.number(), ms: z.number() }),
  backends: z.record(z.string(), z.object({ attempted: z.boolean(), used: z.boolean(), status: z.string() })),
  filtered_counts: z.object({ total: z.number(), by_layer: counts }),
  warnings: z.array(z.string()),
  degraded: z.boolean(),
  options: z.record(z.string(), z.unknown()),
  limit: z.number(),
  conversation_fingerprint: z.string(),
  conversation_messages: z.number(),
  queries: z.array(z.object({ kind: z.string(), text: z.string() })),
  timings: counts,
  time_cue: z.object({ from: z.string(), to: z.string(), phrase: z.string() }).optional(),
});

export const turnAnswerSchema = recallPacketSchema.extend({ turn_id: z.string() });
export const contextAnswerSchema = recallPacketSchema.extend({ context: z.string().describe('the delivery rendered as one text block') });

export const sessionAnswerSchema = answer<SessionAnswer>()({ session_id: z.string(), namespace: z.string() });

export const completeTurnAnswerSchema = answer<CompleteTurnAnswer>()({
  turn_id: z.string(),
  delivery_outcomes: z.array(z.object({ evidence_key: z.string(), term_overlap: z.number() })),
});

export const memoryWriteAnswerSchema = answer<MemoryWriteAnswer>()({
  ids: z.array(z.string()),
  written: z.array(z.string()).describe('ids actually appended (a repeat of an identical write appends nothing)'),
  supersede_candidates: z.record(z.string(), z.array(z.object({ id: z.string(), overlap: z.number() }))),
  vectors: z.object({ waiting: z.number(), timed_out: z.boolean() }).optional(),
});

export const forgetAnswerSchema = answer<ForgetAnswer>()({ id: z.string(), forgotten: z.boolean().describe('false: it was forgotten already (nothing appended)') });

export const purgeAnswerSchema = answer<PurgeAnswer>()({
  scope: z.enum(PURGE_SCOPES),
  target: z.string().describe("the memory's or session's id, or the namespace"),
  units: z.number().describe('data keys deleted (their sealed texts can no longer be read)'),
  items: z.number().describe('items whose text is gone (named by the purged event)'),
  seq: z.number().describe('the last purged event appended'),
});
export const supersedeAnswerSchema = answer<SupersedeAnswer>()({ head_id: z.string(), superseded_ids: z.array(z.string()) });
export const audienceAnswerSchema = answer<AudienceAnswer>()({ id: z.string(), audience: z.array(z.string()) });
export const assetRegisteredSchema = answer<AssetRegisteredAnswer>()({ id: z.string(), changed: z.boolean(), size: z.number(), sha256: z.string() });
export const episodeAnswerSchema = z.object({ episode_id: z.string() });
export const jobEventAnswerSchema = z.object({ seq: z.number(), hash: z.string() });
export const relationsAnswerSchema = answer<RelationsAnswer>()({
  id: z.string(),
  relations: z.array(z.object({ id: z.string(), exists: z.boolean() })),
  related_from: z.array(z.string()),
});
export const statsAnswerSchema = answer<StatsAnswer>()({
  namespace: z.string(),
  items: z.object({ total: z.number(), active: z.number(), by_layer: counts }),
  events: z.number(),
  head: z.object({ seq: z.number(), hash: z.string() }).optional(),
});
export const pipelineSnapshotAnswerSchema = answer<PipelineSnapshot>()({
  days: z.number(),
  since: z.string(),
  by_stage: z.record(z.string(), counts),
  total: z.number(),
});
export const artifactsAnswerSchema = answer<ArtifactsAnswer>()({
  trace_id: z.string(),
  session_id: z.string(),
  namespace: z.string(),
  completed: z.boolean(),
  forgotten: z.object({ at: z.string(), by: z.string(), purged: z.literal(true).optional() }).optional(),
  events: z.array(z.object({ seq: z.number(), ts: z.string(), type: z.string(), hash: z.string(), data: z.unknown() })),
});
