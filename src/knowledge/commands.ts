// Knowledge writes: each a validated command that appends events and never mutates.
// Commands run one at a time per store, so "does this id exist?" cannot race.
import { randomBytes } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { isKiokuError, KiokuError } from '../errors.js';
import { DEFAULT_NAMESPACE, MESSAGE_ROLES, namespaceSchema, type AppendInput, type EventType } from '../events/index.js';
import type { EventStore } from '../log/index.js';
import { contentHash, evidenceKey, fingerprint, itemIdSchema, noteText, type Layer } from './evidence.js';
import { AssetPolicy } from './asset-policy.js';
import { ASSET_UPLOAD_MAX, readOpened, storeUpload, UPLOAD_NAME } from './asset-files.js';
import { isCardMetadataHeading, parseFrontMatter, relatedCardIds, splitSections } from './markdown.js';
import { memoryEntities } from './fold.js';
import { documentSections, splitDocument, type DocumentSection } from './sections.js';
import { sectionSuccession } from './succession.js';
import { parseInput } from './validate.js';
import { audienceEntries, audienceInputSchema, notFoundItem, requireStoredAudience } from './audience.js';
import { recipientsSchema } from './notices.js';
import type { RecordEntry } from './item.js';
import type { KnowledgeReadModel, KnowledgeRecords } from './read-model.js';

const ns = namespaceSchema.default(DEFAULT_NAMESPACE);
const isoTime = z.iso.datetime({ offset: true });
const words = z.array(z.string().trim().min(1).max(200)).max(100).default([]);

export { MEMORY_KINDS } from './kinds.js';
import { MEMORY_KINDS } from './kinds.js';

export const memoryInputSchema = z.strictObject({
  id: itemIdSchema.optional(),
  kind: z.enum(MEMORY_KINDS),
  // kept exactly as sent (padding, indentation, trailing newline): what is stored is what was written
  text: z
    .string()
    .max(100_000)
    .refine((t) => t.trim().length > 0, 'text must not be empty'),
  terms: words,
  entities: words,
  tags: words,
  attachments: z.array(z.string().min(1).max(4_096)).max(100).default([]),
  owner: z.string().max(200).optional(),
  /** {org: true}, {spaces: [...]} or their stored strings (src/knowledge/audience.ts); absent: its owner only */
  audience: audienceInputSchema.optional(),
  occurred_at: isoTime.optional(),
  session_id: itemIdSchema.optional(),
  /** who said it, for a turn of a conversation; without it a "Name: …" prefix of a session memory names the speaker */
  speaker: z.string().trim().min(1).max(200).optional(),
  supersede_ids: z.array(itemIdSchema).max(100).default([]),
  /** members to notify of this memory (issue 34): a notice in each one's inbox; refused without an org or for an unknown member */
  notify: recipientsSchema.optional(),
});
export type MemoryInput = z.input<typeof memoryInputSchema>;

export const writeMemoriesSchema = z.strictObject({
  ns,
  memories: z.array(memoryInputSchema).min(1, 'at least one memory').max(500),
});

const documentSchema = z.strictObject({
  ns,
  id: itemIdSchema.optional(),
  markdown: z.string().max(2_000_000),
  title: z.string().max(1_000).optional(),
  source_path: z.string().max(4_096).optional(),
});

const noteSchema = z.strictObject({
  ns,
  date: z.iso.date(),
  markdown: z.string().max(2_000_000),
  source_path: z.string().max(4_096).optional(),
});

/** Forget a memory (tombstone it). */
export const forgetSchema = z.strictObject({ ns, id: itemIdSchema, reason: noteText(2_000).optional() });
/** `head_id` supersedes each of `superseded_ids`. */
export const supersedeSchema = z.strictObject({
  ns,
  head_id: itemIdSchema,
  superseded_ids: z.array(itemIdSchema).min(1).max(100),
  reason: z.string().max(2_000).optional(),
});
/** Who a memory is for. */
export const audienceSchema = z.strictObject({ ns, id: itemIdSchema, audience: audienceInputSchema });

export const episodeSchema = z.strictObject({
  ns,
  episode_id: itemIdSchema.optional(),
  session_id: itemIdSchema.optional(),
  messages: z
    .array(z.strictObject({ role: z.enum(MESSAGE_ROLES), text: z.string().max(100_000), at: isoTime.optional() }))
    .min(1)
    .max(10_000),
});

export const assetSchema = z.strictObject({
  ns,
  id: itemIdSchema.optional(),
  /** a file on the service's machine, under an asset root configured for the namespace (src/knowledge/asset-policy.ts) */
  path: z.string().min(1).max(4_096).refine(isAbsolute, 'path must be absolute').optional(),
  /** or the bytes themselves (at most 1 MiB), kept by the service: for a client on another machine */
  content: z.string().max(Math.ceil(ASSET_UPLOAD_MAX / 3) * 4 + 4).optional(),
  encoding: z.enum(['utf8', 'base64']).default('utf8'),
  /** the uploaded file's name (its title) */
  name: z.string().regex(UPLOAD_NAME, 'name: one file name, no "/" or control characters').optional(),
  description: z.string().trim().min(1, 'description is the only search text of an asset: it must not be empty').max(10_000),
  tags: words,
  mime: z.string().max(200).optional(),
});

/** What registering an asset answers. */
export type AssetRegistered = {
  id: string;
  changed: boolean;
  size: number;
  sha256: string;
};

export interface KnowledgeStore {
  log: EventStore;
  projections: KnowledgeReadModel;
  /** how the store keeps a text (secrets as placeholders, issue 33): an idempotent repeat is compared on it */
  privacy?: { redact(namespace: string, text: string): string; keep?(namespace: string, text: string): string };
}

export type ParsedWrite = z.output<typeof writeMemoriesSchema>;
type ParsedMemory = ParsedWrite['memories'][number];
/** What an idempotent repeat is compared on. */
type MemoryContent = Pick<RecordEntry, 'text' | 'kind' | 'terms' | 'entities' | 'tags'>;

interface QueuedWrite {
  parsed: ParsedWrite;
  resolve: (result: WriteMemoriesResult) => void;
  reject: (err: unknown) => void;
}

/** What the earlier calls of a write group wrote (by evidence key) and superseded (key → by id). */
interface WriteOverlay {
  written: Map<string, MemoryContent>;
  retired: Map<string, string>;
}

/** Memory writes decided and appended together at most (a bound on one group's latency). */
const MAX_GROUPED_WRITES = 256;

export interface WriteMemoriesResult {
  ids: string[];
  /** ids actually appended (a repeat of an identical write appends nothing) */
  written: string[];
  /** per new memory: existing memories whose term groups overlap it, if it superseded none */
  supersede_candidates: Record<string, { id: string; overlap: number }[]>;
}

export interface DocumentWriteResult {
  id: string;
  changed: boolean;
  keys: string[];
}

const newId = (prefix: string): string => `${prefix}-${randomBytes(6).toString('hex')}`;

/** What `forget` takes (issue 33): a memory, or a trace (a turn's text), an episode or an asset. */
export const FORGETTABLE_LAYERS = ['memory', 'trace', 'episode', 'asset'] as const;
export type ForgettableLayer = (typeof FORGETTABLE_LAYERS)[number];

/** The event types knowledge commands decide on: another writer's event of these types means decide again. */
export const KNOWLEDGE_EVENT_TYPES = [
  'memory.written',
  'memory.superseded',
  'memory.forgotten',
  'memory.audience_set',
  'card.upserted',
  'card.removed',
  'wiki.upserted',
  'wiki.removed',
  'note.upserted',
  'note.removed',
  'episode.logged',
  'asset.registered',
  'item.forgotten',
  'purged',
] as const satisfies readonly EventType[];

/** How often a command decides again after other writers moved the knowledge stream before giving up. */
const MAX_DECISIONS = 20;

export class Knowledge {
  private queue: Promise<unknown> = Promise.resolve();
  /** memory writes waiting for their group's turn */
  private queuedWrites: QueuedWrite[] = [];
  private writeGroupScheduled = false;
  /** the head the running command decided against */
  private decidedAt: number | undefined;

  constructor(
    private readonly store: KnowledgeStore,
    private readonly actor = 'kioku',
    /** where asset content may be read from; the default reads no path (and keeps no uploads) */
    readonly assets: AssetPolicy = new AssetPolicy(),
  ) {}

  private get records(): KnowledgeRecords {
    return this.store.projections.views.records;
  }

  /**
   * Run a command one at a time in this process, deciding against projections caught up to the
   * head, and append with an expected head scoped to the knowledge stream: when another writer
   * (another process on a shared store) appended knowledge meanwhile, decide again.
   */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const attempt = async (): Promise<T> => {
      for (let tries = 1; ; tries++) {
        const seen = this.store.log.head().seq;
        await this.store.projections.waitFor(seen);
        this.decidedAt = seen;
        try {
          return await task();
        } catch (err) {
          if (!isKiokuError(err, 'KIOKU_LOG_CONFLICT') || tries >= MAX_DECISIONS) throw err;
          // writers racing on a shared store: a random pause breaks the tie (exponential, capped)
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(250, 2 ** tries)));
        } finally {
          this.decidedAt = undefined;
        }
      }
    };
    // on a shared store, nodes take turns on the knowledge stream (optimistic retries alone can starve a node)
    const turn = (): Promise<T> => (this.store.log.exclusive ? this.store.log.exclusive('knowledge', attempt) : attempt());
    const run = this.queue.then(turn, turn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Append, then wait until the projections have seen it (read-your-writes). */
  private async commit(events: AppendInput[]): Promise<number> {
    if (events.length === 0) return this.store.log.head().seq;
    const expectedHead = this.decidedAt !== undefined ? { seq: this.decidedAt, types: KNOWLEDGE_EVENT_TYPES } : undefined;
    const appended = await this.store.log.appendAll(
      events.map((e) => ({ actor: this.actor, ...e })),
      expectedHead ? { expectedHead } : {},
    );
    const last = appended.at(-1)?.seq ?? 0;
    await this.store.projections.waitFor(last);
    return last;
  }

  /**
   * Write memories. Calls that queue while another command runs are decided together, in order,
   * each against the projections plus what the earlier ones in the group write (an overlay), and
   * appended in one batch: one durable write instead of one per call. Each call still succeeds or
   * is refused on its own, and lands whole or not at all.
   */
  writeMemories(input: unknown): Promise<WriteMemoriesResult> {
    let parsed: ParsedWrite;
    try {
      parsed = parseInput(writeMemoriesSchema, input, 'write memories');
    } catch (err) {
      return Promise.reject(err);
    }
    return this.writeParsedMemories(parsed);
  }

  /** Write memories parsed already (by the facade, with writeMemoriesSchema's own memory schema): nothing is parsed again. */
  writeParsedMemories(parsed: ParsedWrite): Promise<WriteMemoriesResult> {
    try {
      parsed.memories.forEach((m, i) => requireStoredAudience(m.audience, `memories.${i}.audience`, 'write memories'));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queuedWrites.push({ parsed, resolve, reject });
      if (!this.writeGroupScheduled) this.scheduleWriteGroup();
    });
  }

  /** One turn of the command queue for the writes queued when it comes (a retry keeps the same group). */
  private scheduleWriteGroup(): void {
    this.writeGroupScheduled = true;
    let group: QueuedWrite[] | undefined;
    const take = (): QueuedWrite[] => {
      const taken = this.queuedWrites.splice(0, MAX_GROUPED_WRITES);
      this.writeGroupScheduled = false;
      if (this.queuedWrites.length > 0) this.scheduleWriteGroup(); // over the cap: the rest go next
      return taken;
    };
    this.exclusive(async () => this.decideWrites((group ??= take()))).then(
      (outcomes) => outcomes.forEach((o, i) => ('result' in o ? group?.[i]?.resolve(o.result) : group?.[i]?.reject(o.error))),
      // a failure before the group's turn came (a shared store's lock out of reach) fails the calls waiting for it
      (err: unknown) => (group ??= take()).forEach((w) => w.reject(err)),
    );
  }

  /** Decide each write of a group in order (refusals stay with their call), then append them all at once. */
  private async decideWrites(group: readonly QueuedWrite[]): Promise<({ result: WriteMemoriesResult } | { error: unknown })[]> {
    const overlay: WriteOverlay = { written: new Map(), retired: new Map() };
    const events: AppendInput[] = [];
    const outcomes = group.map((w): { result: WriteMemoriesResult } | { error: unknown } => {
      try {
        const decided = this.decideWrite(w.parsed, overlay);
        events.push(...decided.events);
        return { result: decided.result };
      } catch (error) {
        if (!isKiokuError(error)) throw error;
        return { error };
      }
    });
    await this.commit(events);
    return outcomes;
  }

  private decideWrite(parsed: ParsedWrite, overlay: WriteOverlay): { events: AppendInput[]; result: WriteMemoriesResult } {
    const events: AppendInput[] = [];
    const result: WriteMemoriesResult = { ids: [], written: [], supersede_candidates: {} };
    const batchIds = new Set<string>();
    const mine: [string, ParsedMemory, string][] = [];
    for (const [i, m] of parsed.memories.entries()) {
      const id = m.id ?? newId('m');
      if (batchIds.has(id))
        throw new KiokuError('KIOKU_INPUT_INVALID', `write memories: memories.${i}.id: "${id}" appears twice in the batch`, {
          details: { field: `memories.${i}.id` },
        });
      batchIds.add(id);
      result.ids.push(id);
      const key = evidenceKey({ ns: parsed.ns, layer: 'memory', id });
      const existing = overlay.written.get(key) ?? this.records.get(key);
      if (existing) {
        if (sameMemory(existing, m, (text) => this.store.privacy?.redact(parsed.ns, text) ?? text)) continue; // idempotent repeat
        throw new KiokuError('KIOKU_ID_CONFLICT', `memory "${id}" already exists with different content; supersede it instead`, {
          details: { field: `memories.${i}.id`, id },
        });
      }
      for (const [j, old] of m.supersede_ids.entries()) {
        // an earlier memory of the same batch may be superseded too
        if (!batchIds.has(old) || old === id) this.requireActiveInGroup(parsed.ns, old, `memories.${i}.supersede_ids.${j}`, overlay);
      }
      if (m.supersede_ids.length === 0) {
        const candidates = this.records.supersedeCandidates(parsed.ns, m.terms, [id]);
        if (candidates.length) result.supersede_candidates[id] = candidates;
      }
      events.push({
        type: 'memory.written',
        ns: parsed.ns,
        data: {
          id,
          kind: m.kind,
          text: m.text,
          terms: m.terms,
          entities: m.entities,
          tags: m.tags,
          attachments: m.attachments,
          fingerprint: fingerprint(m.text),
          ...(m.owner !== undefined ? { owner: m.owner } : {}),
          ...(m.audience !== undefined ? { audience: audienceEntries(m.audience) } : {}),
          ...(m.occurred_at !== undefined ? { occurred_at: m.occurred_at } : {}),
          ...(m.session_id !== undefined ? { session_id: m.session_id } : {}),
          ...(m.speaker !== undefined ? { speaker: m.speaker } : {}),
          ...(m.supersede_ids.length ? { supersedes: m.supersede_ids } : {}),
        },
      });
      result.written.push(id);
      mine.push([key, m, id]);
    }
    // this call is accepted: what it writes and retires is what the next calls of the group see
    for (const [key, m, id] of mine) {
      overlay.written.set(key, { text: m.text, kind: m.kind, terms: m.terms, entities: memoryEntities(m), tags: m.tags });
      for (const old of m.supersede_ids) overlay.retired.set(evidenceKey({ ns: parsed.ns, layer: 'memory', id: old }), id);
    }
    return { events, result };
  }

  /** requireActiveMemory, counting what earlier calls of the same group wrote and superseded. */
  private requireActiveInGroup(ns: string, id: string, field: string, overlay: WriteOverlay): void {
    const key = evidenceKey({ ns, layer: 'memory', id });
    const by = overlay.retired.get(key);
    if (by !== undefined) throw new KiokuError('KIOKU_RETIRED', `memory "${id}" is superseded by "${by}"`, { details: { field, id, status: 'superseded' } });
    if (overlay.written.has(key)) return;
    this.requireActiveMemory(ns, id, field);
  }

  /** Link existing memories: `head_id` supersedes each of `superseded_ids` (old kept, marked). */
  async supersede(input: unknown): Promise<{ head_id: string; superseded_ids: string[] }> {
    return this.supersedeParsed(parseInput(supersedeSchema, input, 'supersede'));
  }

  /** supersede, its input parsed already (by the facade): not parsed again. */
  async supersedeParsed(p: z.output<typeof supersedeSchema>): Promise<{ head_id: string; superseded_ids: string[] }> {
    return this.exclusive(async () => {
      this.requireActiveMemory(p.ns, p.head_id, 'head_id');
      const events: AppendInput[] = [];
      for (const [i, old] of p.superseded_ids.entries()) {
        if (old === p.head_id)
          throw new KiokuError('KIOKU_INPUT_INVALID', 'supersede: a memory cannot supersede itself', { details: { field: `superseded_ids.${i}` } });
        const entry = this.requireMemory(p.ns, old, `superseded_ids.${i}`);
        if (entry.superseded_by === p.head_id) continue;
        if (entry.status === 'forgotten')
          throw new KiokuError('KIOKU_RETIRED', `memory "${old}" was forgotten`, { details: { field: `superseded_ids.${i}`, id: old } });
        events.push({ type: 'memory.superseded', ns: p.ns, data: { id: old, by: p.head_id, ...(p.reason ? { reason: p.reason } : {}) } });
      }
      await this.commit(events);
      return { head_id: p.head_id, superseded_ids: p.superseded_ids };
    });
  }

  /** Tombstone a memory: gone from search, still in the log. Forgetting twice is a no-op. */
  async forget(input: unknown): Promise<{ id: string; forgotten: boolean }> {
    return this.forgetParsed(parseInput(forgetSchema, input, 'forget'));
  }

  /** `layer`: a trace, an episode or an asset is forgotten the same way (issue 33); a memory by default. `actor`: who forgets (its tombstone's `by`). */
  async forgetParsed(p: z.output<typeof forgetSchema> & { layer?: ForgettableLayer; actor?: string }): Promise<{ id: string; forgotten: boolean }> {
    if (p.layer !== undefined && p.layer !== 'memory') return this.forgetItem({ ...p, layer: p.layer });
    return this.exclusive(async () => {
      const entry = this.requireMemory(p.ns, p.id, 'id');
      if (entry.status === 'forgotten') return { id: p.id, forgotten: false };
      await this.commit([{ type: 'memory.forgotten', ns: p.ns, ...(p.actor ? { actor: p.actor } : {}), data: { id: p.id, ...(p.reason ? { reason: p.reason } : {}) } }]);
      return { id: p.id, forgotten: true };
    });
  }

  private forgetItem(p: z.output<typeof forgetSchema> & { layer: Exclude<ForgettableLayer, 'memory'>; actor?: string }): Promise<{ id: string; forgotten: boolean }> {
    return this.exclusive(async () => {
      const entry = this.records.get(evidenceKey({ ns: p.ns, layer: p.layer, id: p.id }));
      if (!entry) throw notFoundItem(p.layer, p.id, p.ns);
      if (entry.status === 'forgotten') return { id: p.id, forgotten: false };
      await this.commit([{ type: 'item.forgotten', ns: p.ns, ...(p.actor ? { actor: p.actor } : {}), data: { layer: p.layer, id: p.id, ...(p.reason ? { reason: p.reason } : {}) } }]);
      return { id: p.id, forgotten: true };
    });
  }

  async setAudience(input: unknown): Promise<{ id: string; audience: string[] }> {
    return this.setAudienceParsed(parseInput(audienceSchema, input, 'set audience'));
  }

  async setAudienceParsed(p: z.output<typeof audienceSchema>): Promise<{ id: string; audience: string[] }> {
    const audience = requireStoredAudience(p.audience, 'audience', 'set audience') ?? [];
    return this.exclusive(async () => {
      this.requireActiveMemory(p.ns, p.id, 'id');
      await this.commit([{ type: 'memory.audience_set', ns: p.ns, data: { id: p.id, audience } }]);
      return { id: p.id, audience };
    });
  }

  /** Cards: markdown split into numbered sections; metadata sections flagged. Unchanged content appends nothing. */
  async upsertCard(input: unknown): Promise<DocumentWriteResult> {
    const p = parseInput(documentSchema, input, 'upsert card');
    return this.exclusive(async () => {
      const doc = readDocument(p, 'card');
      if (this.unchanged(p.ns, 'card', doc.id, doc.hash)) return { id: doc.id, changed: false, keys: this.keysOf(p.ns, 'card', doc.id) };
      const sections = doc.sections.map((s) => ({
        id: String(s.index),
        heading: s.heading,
        body: s.body,
        ...(isCardMetadataHeading(s.heading) ? { meta: true } : {}),
      }));
      const relations = [
        ...new Set(doc.sections.filter((s) => /relation|關係|关系|related|links/i.test(s.heading)).flatMap((s) => relatedCardIds(s.body))),
      ].filter((r) => r !== doc.id);
      await this.commit([
        {
          type: 'card.upserted',
          ns: p.ns,
          data: {
            id: doc.id,
            title: doc.title,
            content_hash: doc.hash,
            sections,
            ...(relations.length ? { relations } : {}),
            ...(p.source_path ? { source_path: p.source_path } : {}),
            ...tagsOf(doc.meta),
          },
        },
      ]);
      return { id: doc.id, changed: true, keys: this.keysOf(p.ns, 'card', doc.id) };
    });
  }

  /**
   * Wiki pages: split at every heading level down to about one excerpt (sections.ts). A re-import
   * appends only when the page or its sections differ (a new splitter counts); the sections it
   * retires are superseded by the ones holding their text now.
   */
  async upsertWiki(input: unknown): Promise<DocumentWriteResult> {
    const p = parseInput(documentSchema, input, 'upsert wiki topic');
    return this.exclusive(async () => {
      const { meta } = parseMarkdown(p.markdown);
      const id = p.id ?? stringMeta(meta, 'id') ?? missingId('wiki topic');
      const doc = documentSections(p.markdown, id, p.title);
      const hash = contentHash(p.markdown);
      const sections = wikiSections(doc.sections);
      const succession = this.succession(p.ns, 'wiki', id, hash, sections, doc.title);
      if (!succession) return { id, changed: false, keys: this.keysOf(p.ns, 'wiki', id) };
      await this.commit([
        {
          type: 'wiki.upserted',
          ns: p.ns,
          data: {
            topic_id: id,
            title: doc.title,
            content_hash: hash,
            sections,
            ...(p.source_path ? { source_path: p.source_path } : {}),
            ...tagsOf(meta),
            ...(succession.length ? { supersedes: succession } : {}),
          },
        },
      ]);
      return { id, changed: true, keys: this.keysOf(p.ns, 'wiki', id) };
    });
  }

  async upsertNote(input: unknown): Promise<DocumentWriteResult> {
    const p = parseInput(noteSchema, input, 'upsert daily note');
    return this.exclusive(async () => {
      const { body } = parseMarkdown(p.markdown);
      const hash = contentHash(p.markdown);
      const sections = wikiSections(splitDocument(body, p.date, p.date).sections);
      const succession = this.succession(p.ns, 'note', p.date, hash, sections, p.date);
      if (!succession) return { id: p.date, changed: false, keys: this.keysOf(p.ns, 'note', p.date) };
      await this.commit([
        {
          type: 'note.upserted',
          ns: p.ns,
          data: {
            date: p.date,
            content_hash: hash,
            sections,
            ...(p.source_path ? { source_path: p.source_path } : {}),
            ...(succession.length ? { supersedes: succession } : {}),
          },
        },
      ]);
      return { id: p.date, changed: true, keys: this.keysOf(p.ns, 'note', p.date) };
    });
  }

  async removeDocument(layer: 'card' | 'wiki' | 'note', input: unknown): Promise<{ id: string; removed: boolean }> {
    const p = parseInput(z.strictObject({ ns, id: itemIdSchema, reason: z.string().max(2_000).optional() }), input, `remove ${layer}`);
    return this.exclusive(async () => {
      if (!this.records.document(p.ns, layer, p.id).some((e) => e.status === 'active')) {
        throw new KiokuError('KIOKU_NOT_FOUND', `no ${layer} "${p.id}" in namespace ${p.ns}`, { details: { field: 'id', id: p.id } });
      }
      const reason = p.reason ? { reason: p.reason } : {};
      const event: AppendInput =
        layer === 'card'
          ? { type: 'card.removed', ns: p.ns, data: { id: p.id, ...reason } }
          : layer === 'wiki'
            ? { type: 'wiki.removed', ns: p.ns, data: { topic_id: p.id, ...reason } }
            : { type: 'note.removed', ns: p.ns, data: { date: p.id, ...reason } };
      await this.commit([event]);
      return { id: p.id, removed: true };
    });
  }

  async logEpisode(input: unknown): Promise<{ episode_id: string }> {
    return this.logEpisodeParsed(parseInput(episodeSchema, input, 'log episode'));
  }

  /** `owner`: the writer's member in an org (issue 34): the episode is visible to it only */
  async logEpisodeParsed(p: z.output<typeof episodeSchema>, owner?: string): Promise<{ episode_id: string }> {
    return this.exclusive(async () => {
      const episodeId = p.episode_id ?? newId('ep');
      if (this.records.get(evidenceKey({ ns: p.ns, layer: 'episode', id: episodeId }))) {
        throw new KiokuError('KIOKU_ID_CONFLICT', `episode "${episodeId}" already exists`, { details: { field: 'episode_id' } });
      }
      await this.commit([
        {
          type: 'episode.logged',
          ns: p.ns,
          data: { episode_id: episodeId, messages: p.messages, ...(p.session_id ? { session_id: p.session_id } : {}), ...(owner ? { owner } : {}) },
        },
      ]);
      return { episode_id: episodeId };
    });
  }

  /** Register a file by reference (a path the namespace's asset policy allows) or by content (uploaded): description, tags, size, sha256. */
  async registerAsset(input: unknown): Promise<AssetRegistered> {
    return this.registerAssetParsed(parseInput(assetSchema, input, 'register asset'));
  }

  /** `owner`: the writer's member in an org (issue 34): the asset is visible to it only */
  async registerAssetParsed(p: z.output<typeof assetSchema>, owner?: string): Promise<AssetRegistered> {
    if ((p.path === undefined) === (p.content === undefined))
      throw new KiokuError('KIOKU_INPUT_INVALID', 'register asset: path: give either path (a file under the namespace\'s asset root) or content (the bytes), not both', {
        details: { field: 'path' },
      });
    // an upload's file name is kept on disk and in the log's path: its secrets become placeholders first (issue 33)
    const name = p.content === undefined ? '' : (this.store.privacy?.keep?.(p.ns, p.name ?? 'content') ?? p.name ?? 'content');
    const path = p.content === undefined ? (p.path as string) : storeUpload(this.assets, p.ns, name, uploadBytes(p.content, p.encoding));
    return this.exclusive(async () => {
      const { size, sha256 } = await readOpened(this.assets.open(p.ns, path), 0);
      const id = p.id ?? `a-${contentHash(path).slice(0, 16)}`;
      const existing = this.records.get(evidenceKey({ ns: p.ns, layer: 'asset', id }));
      if (existing?.asset?.sha256 === sha256 && existing.text === p.description && sameList(existing.tags, p.tags) && existing.asset.path === path) {
        return { id, changed: false, size, sha256 };
      }
      await this.commit([
        {
          type: 'asset.registered',
          ns: p.ns,
          data: { id, path, description: p.description, tags: p.tags, size, sha256, ...(p.mime ? { mime: p.mime } : {}), ...(owner ? { owner } : {}) },
        },
      ]);
      return { id, changed: true, size, sha256 };
    });
  }

  private requireMemory(ns: string, id: string, field: string): RecordEntry {
    const entry = this.records.get(evidenceKey({ ns, layer: 'memory', id }));
    if (!entry) throw notFoundItem('memory', id, ns, field);
    return entry;
  }

  private requireActiveMemory(ns: string, id: string, field: string): RecordEntry {
    const entry = this.requireMemory(ns, id, field);
    if (entry.status !== 'active') {
      throw new KiokuError('KIOKU_RETIRED', `memory "${id}" is ${entry.status}${entry.superseded_by ? ` by "${entry.superseded_by}"` : ''}`, {
        details: { field, id, status: entry.status },
      });
    }
    return entry;
  }

  /**
   * undefined when the stored document is what this version would write (same bytes, same
   * sections); else the stored sections it retires, each with its successors (succession.ts).
   */
  private succession(
    ns: string,
    layer: 'wiki' | 'note',
    id: string,
    hash: string,
    sections: readonly EventSection[],
    docTitle: string,
  ): { section: string; by: string[] }[] | undefined {
    const active = this.records.document(ns, layer, id).filter((e) => e.status === 'active');
    const byId = new Map(sections.map((s) => [s.id, s]));
    const same =
      active.length === sections.length &&
      active.every((e) => {
        const s = byId.get(e.section ?? '');
        return e.doc_hash === hash && s !== undefined && e.text === sectionText(s) && e.title === (s.title ?? docTitle);
      });
    if (same) return undefined;
    return sectionSuccession(
      active.map((e) => ({ id: e.section ?? '', body: e.heading && e.text.startsWith(`${e.heading}\n`) ? e.text.slice(e.heading.length + 1) : e.text })),
      sections.map((s) => ({ id: s.id, body: s.body })),
    );
  }

  private unchanged(ns: string, layer: Layer, id: string, hash: string): boolean {
    const active = this.records.document(ns, layer, id).filter((e) => e.status === 'active');
    return active.length > 0 && active.every((e) => e.doc_hash === hash);
  }

  private keysOf(ns: string, layer: Layer, id: string): string[] {
    return this.records
      .document(ns, layer, id)
      .filter((e) => e.status === 'active')
      .map((e) => e.key);
  }
}

/** Front matter, id, title, sections and content hash of a card or wiki document. */
function readDocument(
  p: z.output<typeof documentSchema>,
  what: string,
): { meta: Record<string, unknown>; id: string; title: string; hash: string; sections: ReturnType<typeof splitSections>['sections'] } {
  const { meta, body } = parseMarkdown(p.markdown);
  const id = p.id ?? stringMeta(meta, 'id') ?? missingId(what);
  const split = splitSections(body);
  return { meta, id, title: p.title ?? stringMeta(meta, 'title') ?? split.title ?? id, hash: contentHash(p.markdown), sections: split.sections };
}

function parseMarkdown(markdown: string): { meta: Record<string, unknown>; body: string } {
  try {
    return parseFrontMatter(markdown);
  } catch (cause) {
    throw new KiokuError('KIOKU_INPUT_INVALID', `markdown: ${(cause as Error).message}`, { cause, details: { field: 'markdown' } });
  }
}

function stringMeta(meta: Record<string, unknown>, key: string): string | undefined {
  const v = meta[key];
  return typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined;
}

function tagsOf(meta: Record<string, unknown>): { tags?: string[] } {
  const v = meta['tags'];
  const tags = Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : typeof v === 'string' ? v.split(/[,\s]+/).filter(Boolean) : [];
  return tags.length ? { tags } : {};
}

function missingId(what: string): never {
  throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: id: give an id (argument or front matter "id")`, { details: { field: 'id' } });
}

interface EventSection {
  id: string;
  heading: string;
  body: string;
  fingerprint: string;
  title?: string;
}

/** Split sections as a wiki or note event holds them, each titled by its heading path. */
function wikiSections(sections: readonly DocumentSection[]): EventSection[] {
  return sections.map((s) => ({ id: s.id, heading: s.heading, body: s.body, fingerprint: fingerprint(s.body), title: s.title }));
}

/** The text the fold makes of a section (fold.ts sectionItems). */
const sectionText = (s: { heading: string; body: string }): string => (s.heading ? `${s.heading}\n${s.body}` : s.body);

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `stored` turns the text sent into the text the store keeps (its secrets as placeholders). */
function sameMemory(e: MemoryContent, m: z.output<typeof memoryInputSchema>, stored: (text: string) => string): boolean {
  const list = (texts: readonly string[]): string[] => texts.map(stored);
  return (
    e.text === stored(m.text) &&
    e.kind === m.kind &&
    sameList(e.terms, list(m.terms)) &&
    sameList(e.entities, list(memoryEntities(m))) &&
    sameList(e.tags, list(m.tags))
  );
}

/** Uploaded content as bytes, within the bound: base64 must be base64. */
function uploadBytes(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(content.replace(/\s+/g, '')))
    throw new KiokuError('KIOKU_INPUT_INVALID', 'register asset: content: not base64', { details: { field: 'content' } });
  const bytes = Buffer.from(content, encoding);
  if (bytes.length > ASSET_UPLOAD_MAX)
    throw new KiokuError('KIOKU_INPUT_INVALID', `register asset: content: ${bytes.length} bytes; at most ${ASSET_UPLOAD_MAX} may be uploaded`, { details: { field: 'content' } });
  return bytes;
}
