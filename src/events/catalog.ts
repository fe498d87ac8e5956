// The event catalog: every event type Kioku writes, with its current version and
// zod schema for `data`. Schemas are strict: a field the catalog does not know is
// refused rather than silently dropped, so nothing a writer meant to record is lost.
// Later capabilities extend these schemas by bumping `v` and adding an upcaster.
import { z } from 'zod';
import { compactRecallFields, compactVerdictFields, upcastRecallV1, upcastVerdictV1 } from './recall-event.js';
import { VECTOR_ENCODINGS } from './vector-encoding.js';
import { LAYERS, MESSAGE_ROLES, RETRIEVAL_MODES } from './vocabulary.js';

const id = z.string().min(1).max(512);
const isoTime = z.iso.datetime({ offset: true });
/** a turn window's turns at most: the item and DeliveryRules.turn_window's bound (5) each side */
export const MAX_WINDOW_TURNS = 11;

const evidenceKey = z.string().regex(/^ev1:[^:\s]+:[a-z]+:\S+$/, 'expected ev1:<ns>:<layer>:<id>[#section]');
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected a lowercase hex sha256');
const layer = z.enum(LAYERS);
const noticeId = z.string().regex(/^n-[0-9a-f]{16}$/, 'expected n- and 16 hex digits');
/** a space's or a member's name: no spaces, no colon (audience entries are `space:<name>`), at most 64 characters */
export const orgName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/, 'expected 1–64 letters, digits or . _ @ + - (starting with a letter or digit)');

const message = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  text: z.string().max(100_000),
  at: isoTime.optional(),
});

const section = z.strictObject({
  id: id,
  heading: z.string().max(1_000),
  body: z.string().max(1_000_000),
  fingerprint: sha256Hex.optional(),
  meta: z.boolean().optional(),
  /** the section's heading path ("Server › Instance › close"), its title; absent: the document's title */
  title: z.string().max(2_000).optional(),
});

/** Sections of an earlier version retired by this one, each pointing at the section(s) that hold its text now. */
const sectionSuccession = z
  .array(z.strictObject({ section: id, by: z.array(id).min(1).max(1_000) }))
  .max(1_000)
  .optional();

export const eventSchemas = {
  'session.opened': z.strictObject({
    session_id: id,
    agent: z.string().min(1).max(200),
    client: z.string().max(200).optional(),
    cwd: z.string().max(4_096).optional(),
    /** in an org (issue 34): the member who opened it; only that member starts turns in it */
    owner: z.string().min(1).max(200).optional(),
  }),
  'turn.started': z.strictObject({
    turn_id: id,
    session_id: id,
    query: z.string().max(100_000),
    conversation: z.array(message).max(8).optional(),
    conversation_fingerprint: sha256Hex.optional(),
    context_since: isoTime.optional(),
    /** when the utterance was made, for captured history imported after the fact */
    occurred_at: isoTime.optional(),
    /** who spoke, for conversations between people (an entity of the trace) */
    speaker: z.string().min(1).max(200).optional(),
    /** in an org (issue 34): the member whose turn it is; its trace is visible to that member only */
    owner: z.string().min(1).max(200).optional(),
  }),
  // v2 (issue 31): the candidates in columns, see recall-event.ts; v1 events are upcast
  'recall.performed': z
    .strictObject({
      recall_id: id,
      turn_id: id.optional(),
      session_id: id.optional(),
      retrieval_mode: z.enum(RETRIEVAL_MODES),
      queries: z.array(z.strictObject({ kind: z.string().max(64), text: z.string().max(10_000) })).max(8),
      ...compactRecallFields,
      filtered_counts: z.strictObject({ total: z.number().int().nonnegative(), by_layer: z.record(z.string(), z.number().int().nonnegative()) }).optional(),
      options: z.record(z.string(), z.unknown()).optional(),
    })
    .refine((d) => d.scores.length === d.keys.length && d.flags.length === d.keys.length && (d.fingerprints?.length ?? d.keys.length) === d.keys.length, {
      message: 'keys, scores, flags and fingerprints must be of one length',
      path: ['keys'],
    }),
  // v2 (issue 31): keys and scores in two columns, see recall-event.ts; v1 events are upcast
  'verdict.recorded': z
    .strictObject({
      recall_id: id,
      turn_id: id.optional(),
      judge: z.string().min(1).max(200),
      status: z.enum(['complete', 'partial', 'failed', 'disabled']),
      ...compactVerdictFields,
    })
    .refine((d) => d.scores.length === d.keys.length, { message: 'keys and scores must be of one length', path: ['scores'] }),
  'delivery.made': z.strictObject({
    recall_id: id,
    turn_id: id.optional(),
    session_id: id.optional(),
    items: z
      .array(
        z
          .strictObject({
            evidence_key: evidenceKey,
            verdict: z.number().min(0).max(1),
            fingerprint: sha256Hex.optional(),
            // turn or section window: the turns or sections the item's text holds, in order (its own among them), each handed over too
            window: z.array(evidenceKey).min(2).max(MAX_WINDOW_TURNS).optional(),
            // each window member's version then (null: none), so an edited one may be suggested again; absent in older logs
            window_fingerprints: z.array(sha256Hex.nullable()).min(2).max(MAX_WINDOW_TURNS).optional(),
          })
          .refine((i) => i.window_fingerprints === undefined || i.window_fingerprints.length === i.window?.length, {
            message: 'window_fingerprints must name one version per window key',
            path: ['window_fingerprints'],
          }),
      )
      .max(3),
  }),
  'turn.completed': z.strictObject({
    turn_id: id,
    session_id: id,
    answer: z.string().max(1_000_000),
    tool_data: z.unknown().optional(),
    delivery_outcomes: z
      .array(z.strictObject({ evidence_key: evidenceKey, term_overlap: z.number().min(0).max(1) }))
      .max(3)
      .optional(),
  }),
  'memory.written': z.strictObject({
    id: id,
    kind: z.string().min(1).max(64),
    text: z.string().min(1).max(100_000),
    terms: z.array(z.string().max(200)).max(100).default([]),
    entities: z.array(z.string().max(200)).max(100).default([]),
    tags: z.array(z.string().max(200)).max(100).default([]),
    attachments: z.array(z.string().max(4_096)).max(100).default([]),
    owner: z.string().max(200).optional(),
    audience: z.array(z.string().max(200)).max(100).optional(),
    occurred_at: isoTime.optional(),
    session_id: id.optional(),
    /** who said it, for a turn of a conversation written as a memory (feeds the entity cue) */
    speaker: z.string().min(1).max(200).optional(),
    supersedes: z.array(id).max(100).optional(),
    fingerprint: sha256Hex.optional(),
  }),
  'memory.superseded': z.strictObject({ id: id, by: id, reason: z.string().max(2_000).optional() }),
  'memory.forgotten': z.strictObject({ id: id, reason: z.string().max(2_000).optional() }),
  'memory.audience_set': z.strictObject({ id: id, audience: z.array(z.string().max(200)).max(100) }),
  'card.upserted': z.strictObject({
    id: id,
    title: z.string().max(1_000),
    source_path: z.string().max(4_096).optional(),
    content_hash: sha256Hex,
    sections: z.array(section).max(1_000),
    /** other card ids named in the card's relations section */
    relations: z.array(id).max(1_000).optional(),
    tags: z.array(z.string().max(200)).max(100).optional(),
  }),
  'card.removed': z.strictObject({ id: id, reason: z.string().max(2_000).optional() }),
  'wiki.upserted': z.strictObject({
    topic_id: id,
    title: z.string().max(1_000),
    source_path: z.string().max(4_096).optional(),
    content_hash: sha256Hex,
    sections: z.array(section).max(1_000),
    tags: z.array(z.string().max(200)).max(100).optional(),
    supersedes: sectionSuccession,
  }),
  'wiki.removed': z.strictObject({ topic_id: id, reason: z.string().max(2_000).optional() }),
  'note.upserted': z.strictObject({
    date: z.iso.date(),
    source_path: z.string().max(4_096).optional(),
    content_hash: sha256Hex,
    sections: z.array(section).max(1_000),
    supersedes: sectionSuccession,
  }),
  'note.removed': z.strictObject({ date: z.iso.date(), reason: z.string().max(2_000).optional() }),
  'episode.logged': z.strictObject({
    episode_id: id,
    session_id: id.optional(),
    messages: z.array(message).min(1).max(10_000),
    /** in an org (issue 34): the member whose dialogue it is; visible to that member only */
    owner: z.string().min(1).max(200).optional(),
  }),
  'asset.registered': z.strictObject({
    id: id,
    path: z
      .string()
      .min(1)
      .max(4_096)
      .refine((p) => p.startsWith('/'), 'asset path must be absolute'),
    description: z.string().min(1).max(10_000),
    tags: z.array(z.string().max(200)).max(100).default([]),
    size: z.number().int().nonnegative(),
    sha256: sha256Hex,
    mime: z.string().max(200).optional(),
    /** in an org (issue 34): the member who registered it; visible to that member only */
    owner: z.string().min(1).max(200).optional(),
  }),
  'embedding.computed': z.strictObject({
    evidence_key: evidenceKey,
    model: z.string().min(1).max(200),
    lane: z.string().min(1).max(64),
    dim: z.number().int().positive().max(8_192),
    /** fingerprint of the exact text embedded, so a changed item is re-embedded */
    fingerprint: sha256Hex.optional(),
    // little-endian float32 (4 bytes per dimension) or float16 (2), per `encoding`; msgpack keeps them as a bin blob
    vector: z.instanceof(Uint8Array),
    /** v2: how `vector` is stored (v1 events were float32, and are upcast as such) */
    encoding: z.enum(VECTOR_ENCODINGS).default('f32'),
  }),
  'job.event': z.strictObject({
    job_id: id,
    stage: z.string().min(1).max(100),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
    detail: z.string().max(10_000).optional(),
    progress: z.strictObject({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }).optional(),
  }),
  // forget beyond memories (issue 33): a trace (one turn's text), an episode or an asset tombstoned;
  // every read model drops its text, the log keeps the (sealed) event
  'item.forgotten': z.strictObject({ layer: z.enum(['trace', 'episode', 'asset']), id: id, reason: z.string().max(2_000).optional() }),
  // crypto-shredding (issue 33, src/privacy/seal.ts): the data keys of a memory, a session or a whole
  // namespace were deleted from the key store; `keys` names the items whose text is gone (one event
  // per 5,000 keys), so every projection drops them at once and a rebuild does the same
  purged: z.strictObject({
    scope: z.enum(['memory', 'session', 'namespace']),
    target: id,
    reason: z.string().max(2_000).optional(),
    keys: z.array(evidenceKey).max(5_000),
    /** how many data keys were deleted */
    units: z.number().int().nonnegative(),
  }),
  // an item read whole by its key (get_memory, GET /v1/evidence/{key}): an access the ACT-R re-rank and the lifecycle count
  'evidence.fetched': z.strictObject({ evidence_keys: z.array(evidenceKey).min(1).max(100) }),
  // privacy (issue 33): a secret was replaced by its placeholder ⟦secret:<kind>:<id>⟧ in the text
  // fields of an event appended with this one; the value went to the local vault, never to the log
  'secret.redacted': z.strictObject({
    id: z.string().regex(/^[a-z0-9]{4,40}$/, 'expected a placeholder id'),
    kind: z.string().regex(/^[a-z0-9-]{1,40}$/, 'expected a secret kind'),
    event_type: z.string().min(1).max(100),
    fields: z.array(z.string().min(1).max(200)).min(1).max(50),
  }),
  // the team (issue 34): a space tree and its members, per namespace; a member is reached by the
  // names of its tokens in the auth file (never a token itself), so the log holds no credential
  'org.space_added': z.strictObject({ space: orgName, parent: orgName.optional(), title: z.string().min(1).max(200).optional() }),
  'org.space_moved': z.strictObject({ space: orgName, parent: orgName.optional() }),
  'org.space_removed': z.strictObject({ space: orgName }),
  'org.member_added': z.strictObject({ member: orgName, tokens: z.array(z.string().min(1).max(200)).max(20), display_name: z.string().min(1).max(200).optional() }),
  'org.member_removed': z.strictObject({ member: orgName }),
  'org.member_joined': z.strictObject({ member: orgName, space: orgName }),
  'org.member_left': z.strictObject({ member: orgName, space: orgName }),
  // notices between members (issue 34, src/knowledge/notices.ts): sent (a write's notify, or a note),
  // arrived (the recipient's inbox showed it), acked (the recipient signed it off)
  'notice.sent': z.strictObject({
    notice_id: noticeId,
    from: orgName,
    to: z.array(orgName).min(1).max(50),
    kind: z.enum(['note', 'assignment']),
    text: z.string().min(1).max(2_000),
    evidence_key: evidenceKey.optional(),
  }),
  'notice.arrived': z.strictObject({ member: orgName, notice_ids: z.array(noticeId).min(1).max(500) }),
  'notice.acked': z.strictObject({ member: orgName, notice_id: noticeId, note: z.string().min(1).max(2_000).optional() }),
  'lifecycle.transitioned': z.strictObject({
    evidence_key: evidenceKey,
    from: z.enum(['candidate', 'active', 'archived', 'tombstoned']),
    to: z.enum(['candidate', 'active', 'archived', 'tombstoned']),
    reason: z.string().min(1).max(2_000),
    confidence: z.number().min(0).max(1).optional(),
  }),
} as const;

export type EventType = keyof typeof eventSchemas;
export const EVENT_TYPES = Object.keys(eventSchemas) as EventType[];

/** The data of each event type after validation (defaults applied). */
export type EventData<T extends EventType> = z.output<(typeof eventSchemas)[T]>;
/** What a writer may hand in (defaults not yet applied). */
export type EventDataInput<T extends EventType> = z.input<(typeof eventSchemas)[T]>;

/** Current schema version per type. Bump together with an upcaster below. */
export const CURRENT_VERSION: Record<EventType, number> = {
  ...(Object.fromEntries(EVENT_TYPES.map((t) => [t, 1])) as Record<EventType, number>),
  'embedding.computed': 2,
  'recall.performed': 2,
  'verdict.recorded': 2,
};

/**
 * Upcasters turn the data of an old version into the next one (v → v+1).
 * Readers call `upcast` so projections only ever see current shapes.
 */
export const UPCASTERS: Partial<Record<EventType, Record<number, (data: unknown) => unknown>>> = {
  // v1 vectors were float32 bytes, with no encoding field
  'embedding.computed': { 1: (data) => ({ ...(data as object), encoding: 'f32' }) },
  // v1 listed one object per candidate; v2 keeps the same facts in columns
  'recall.performed': { 1: upcastRecallV1 },
  'verdict.recorded': { 1: upcastVerdictV1 },
};

export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, type);
}
