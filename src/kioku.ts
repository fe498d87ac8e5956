// The composition root and the facade. `openKioku` wires a store (log + projections),
// the recall core and the knowledge commands once; the server, the CLI, the eval scripts
// and the tests all go through it. `Kioku` is what every adapter may ask; RemoteKioku
// (src/remote.ts) answers the same calls over HTTP. See docs/architecture.md.
import type { RecordEntry, RecordsProjection, UsageCounters } from '../projections/index.js';
import { namespaceOf, seesService } from './access.js';
import { KiokuError } from './errors.js';
import { evidenceKey, parseEvidenceKey, type Layer } from './knowledge/evidence.js';
import { Knowledge, type WriteMemoriesResult } from './knowledge/index.js';
import { AssetPolicy, type AssetRoots } from './knowledge/asset-policy.js';
import { readOpened } from './knowledge/asset-files.js';
import { importDocuments, type ImportSummary } from './knowledge/importer.js';
import { parseInput } from './knowledge/validate.js';
import {
  clockFromEnv,
  completeTurn,
  createRecallCore,
  deliveryReport,
  DisabledJudge,
  openSession,
  parseTimeRange,
  recall,
  replay,
  rulesWith,
  startTurn,
  type CoreOptions,
  type TimeRange,
} from './recall/index.js';
import type { DeliveryReport, RecallContext, RecallPacket, ReplayReport } from './recall/index.js';
import { renderContext } from './recall/render.js';
import { openStore, type KiokuStore, type OpenStoreOptions } from './store.js';
import { DEFAULT_NAMESPACE, type LogRecord } from './events/index.js';
import type { VerifyReport } from './log/index.js';
import { backupPoint, logFrames, logRecord, logStats, verifyLive, type BackupPoint, type LogFramesAnswer, type LogStatsAnswer } from './operations.js';
import { listItems, type ListAnswer } from '../projections/records/listing.js';
import { importItems, type ImportItemsAnswer } from './knowledge/import-items.js';
import {
  wire,
  type AssetInput,
  type AudienceInput,
  type EpisodeInput,
  type ItemsInput,
  type ListInput,
  type ImportItemsInput,
  type JobEventInput,
  type ReplayInput,
  type CompleteTurnInput,
  type ForgetInput,
  type ImportInput,
  type OpenSessionInput,
  type RecallInput,
  type StartTurnInput,
  type SupersedeInput,
  type WriteMemoriesInput,
} from './wire.js';

export type { KiokuStore } from './store.js';

/** Who is asking, as the adapter resolved it (src/access.ts), plus call options the core understands. */
export type Access = RecallContext;
export { namespaceOf } from './access.js';

export interface MemoryWriteAnswer extends WriteMemoriesResult {
  /** with wait_for_vectors: how many of the written memories still wait for vectors */
  vectors?: { waiting: number; timed_out: boolean };
}

export interface EvidenceAnswer extends RecordEntry {
  head_id?: string | null;
  history?: { id: string; status: string; seq: number }[];
}

export interface ColdAnswer {
  namespace: string;
  min_considered: number;
  basis: string;
  items: ({ key: string } & UsageCounters)[];
}

/** What every adapter (HTTP, MCP, hook, CLI) may ask of Kioku, local or remote. */
export interface Kioku {
  readonly mode: 'local' | 'remote';
  openSession(input: OpenSessionInput, access?: Access): Promise<{ session_id: string; namespace: string }>;
  startTurn(input: StartTurnInput, access?: Access): Promise<{ turn_id: string } & RecallPacket>;
  completeTurn(turnId: string, input: CompleteTurnInput, access?: Access): Promise<Record<string, unknown>>;
  recall(input: RecallInput, access?: Access): Promise<RecallPacket>;
  /** recall plus the delivery rendered as one text block */
  context(input: RecallInput, access?: Access): Promise<RecallPacket & { context: string }>;
  /** read-only retrieval: fused candidates, no judge, nothing recorded */
  candidates(input: RecallInput, access?: Access): Promise<RecallPacket>;
  writeMemories(input: WriteMemoriesInput, access?: Access): Promise<MemoryWriteAnswer>;
  forget(id: string, input: ForgetInput, access?: Access): Promise<Record<string, unknown>>;
  supersede(headId: string, input: SupersedeInput, access?: Access): Promise<Record<string, unknown>>;
  evidence(key: string, access?: Access): Promise<EvidenceAnswer>;
  /** markdown documents the caller read (kioku import), in batches; `final` on the last */
  importDocuments(input: ImportInput, access?: Access): Promise<ImportSummary>;
  cold(input: { namespace?: string; min_considered?: number }, access?: Access): Promise<ColdAnswer>;
  deliveryReport(input: { namespace?: string; days?: number }, access?: Access): Promise<DeliveryReport>;
  /** re-run recorded turns through (changed) delivery rules; appends nothing */
  replay(input: ReplayInput, access?: Access): Promise<ReplayReport>;
  setAudience(id: string, input: AudienceInput, access?: Access): Promise<Record<string, unknown>>;
  /** a card or wiki topic and its active sections */
  document(layer: 'card' | 'wiki', id: string, input: { namespace?: string }, access?: Access): Promise<DocumentAnswer>;
  /** a source document by id, whatever its layer */
  source(id: string, input: { namespace?: string }, access?: Access): Promise<DocumentAnswer>;
  /** the card ids a card relates to, and the cards relating to it */
  relations(cardId: string, input: { namespace?: string }, access?: Access): Promise<RelationsAnswer>;
  /** items by what they are (kinds, tags, entity, time range, session), newest first; superseded ones marked */
  items(input: ItemsInput, access?: Access): Promise<ItemsAnswer>;
  /** keep a dialogue verbatim (cold: recalled only on request) */
  logEpisode(input: EpisodeInput, access?: Access): Promise<{ episode_id: string }>;
  /** register a file by reference: its description is its only search text */
  registerAsset(input: AssetInput, access?: Access): Promise<{ id: string; changed: boolean; size: number; sha256: string }>;
  /** an asset's claim ticket, its status checked against the file now, and its content inline on request (within a cap) */
  asset(id: string, input: { namespace?: string; include_content?: boolean; max_bytes?: number }, access?: Access): Promise<AssetAnswer>;
  /** what the library holds: items by layer, the log head */
  stats(input: { namespace?: string }, access?: Access): Promise<StatsAnswer>;
  /** what an item is connected to: supersede edges, card references, session neighbours, shared entities */
  related(key: string, input: { limit?: number }, access?: Access): Promise<RelatedAnswer>;
  /** record a job event (stored, never executed) */
  recordJobEvent(input: JobEventInput, access?: Access): Promise<{ seq: number; hash: string }>;
  /** browse one namespace's items in key order, filtered, a page at a time (an opaque cursor to the next) */
  list(input: ListInput, access?: Access): Promise<ListAnswer>;
  /** write items as `kioku export --format jsonl` wrote them (cards, wiki topics and notes whole, memories), keys kept */
  importItems(input: ImportItemsInput, access?: Access): Promise<ImportItemsAnswer>;
  // The library as a whole (the service:read scope): these run where the store is owned, so they work while a service runs.
  /** verify the chain up to the head now, with the anchors; optionally sign that head */
  verifyLog(input: { write_anchor?: boolean }, access?: Access): Promise<VerifyReport>;
  /** event counts and bytes per type and namespace */
  logStats(access?: Access): Promise<LogStatsAnswer>;
  /** one record, decoded */
  logRecord(seq: number, access?: Access): Promise<LogRecord>;
  /** stored frames, byte for byte, a page at a time (an export, a backup) */
  logFrames(input: { from: number; to?: number; limit?: number }, access?: Access): Promise<LogFramesAnswer>;
  /** a head every projection stands at, with their digests there (what a restore must reproduce) */
  backupPoint(access?: Access): Promise<BackupPoint>;
  close(): Promise<void>;
}

export interface DocumentAnswer {
  id: string;
  layer: Layer;
  namespace: string;
  title: string;
  tags: string[];
  source_path: string | null;
  sections: { evidence_key: string; section: string | null; heading: string | null; text: string; status: string; meta?: true; fingerprint?: string }[];
}

export interface RelatedEdge {
  evidence_key: string;
  /** supersedes / superseded_by (memory chains), references / referenced_by (cards), before / after (a session's turns), shares_entity */
  relation: 'supersedes' | 'superseded_by' | 'references' | 'referenced_by' | 'before' | 'after' | 'shares_entity';
  title: string;
  status: string;
  /** the entity shared, for shares_entity */
  entity?: string;
}

export interface RelatedAnswer {
  evidence_key: string;
  edges: RelatedEdge[];
}

export interface AssetAnswer {
  id: string;
  namespace: string;
  path: string;
  mime: string | null;
  bytes: number;
  sha256: string;
  description: string;
  tags: string[];
  /** ok: the file is as registered; changed: its size or hash differ; missing: it is gone; refused: the asset policy no longer allows reading it (not read) */
  status: 'ok' | 'changed' | 'missing' | 'refused';
  content?: { encoding: 'utf8' | 'base64'; data: string; truncated: boolean };
}

export interface StatsAnswer {
  namespace: string;
  items: { total: number; active: number; by_layer: Record<string, number> };
  /** events recorded in this namespace (its writes, turns, recalls): moves with its own activity only */
  events: number;
  /** the shared log's head: only for callers who may see the whole service (it moves with every namespace's writes) */
  head?: { seq: number; hash: string };
}

/** The most an asset's content inlined in one answer may weigh (a larger file is cut and says so). */
export const ASSET_INLINE_MAX = 256 * 1024;

export interface ItemsAnswer {
  namespace: string;
  /** the resolved time range, when one was asked */
  range?: { from: string; to: string; phrase?: string };
  items: (RecordEntry & { head_id?: string })[];
  total: number;
  truncated: boolean;
}

export interface RelationsAnswer {
  id: string;
  relations: { id: string; exists: boolean }[];
  related_from: string[];
}

export interface LocalKiokuOptions extends CoreOptions {
  /** the actor knowledge writes are recorded under (default "kioku") */
  actor?: string;
  /** where asset content may be read from (default: KIOKU_ASSET_ROOTS, the data dir and keys protected) */
  assets?: AssetPolicy;
}

/** Kioku over a store this process owns. */
export class LocalKioku implements Kioku {
  readonly mode = 'local' as const;
  private coreInstance: ReturnType<typeof createRecallCore> | undefined;
  private knowledgeInstance: Knowledge | undefined;

  constructor(
    readonly store: KiokuStore,
    private readonly options: LocalKiokuOptions = {},
  ) {}

  get paths(): KiokuStore['paths'] {
    return this.store.paths;
  }
  get log(): KiokuStore['log'] {
    return this.store.log;
  }
  get projections(): KiokuStore['projections'] {
    return this.store.projections;
  }

  /** The recall core, created on first use (it loads the embedder). */
  get core(): ReturnType<typeof createRecallCore> {
    return (this.coreInstance ??= createRecallCore(this.store, this.options));
  }

  get knowledge(): Knowledge {
    return (this.knowledgeInstance ??= new Knowledge(this.store, this.options.actor ?? 'kioku', this.options.assets ?? defaultAssetPolicy(this.paths)));
  }

  private get records(): RecordsProjection {
    return this.store.projections.views.records;
  }

  openSession(input: OpenSessionInput, access: Access = {}) {
    return openSession(this.core, input, access);
  }

  startTurn(input: StartTurnInput, access: Access = {}) {
    return startTurn(this.core, input, access);
  }

  completeTurn(turnId: string, input: CompleteTurnInput, access: Access = {}) {
    return completeTurn(this.core, turnId, input, access) as Promise<Record<string, unknown>>;
  }

  async recall(input: RecallInput, access: Access = {}) {
    // parsed here once (or at the door already, then not again): the pipeline takes the parsed request
    const request = parseInput(wire.recall, input, 'recall');
    const named = request.namespace;
    // a namespace the caller chose freely (no token fixes it), not the default, where nothing was ever
    // written: most likely a typo. Say so, and append nothing under it (issue 31)
    if (
      typeof named === 'string' &&
      named !== DEFAULT_NAMESPACE &&
      (access.namespaces === undefined || access.namespaceChosen) &&
      !this.records.hasNamespace(named)
    ) {
      const packet = await recall(this.core, request, { ...access, readOnly: true });
      return { ...packet, warnings: ['unknown_namespace', ...packet.warnings.filter((w) => w !== 'records_filtered_by_acl')] };
    }
    return recall(this.core, request, access);
  }

  async context(input: RecallInput, access: Access = {}) {
    const packet = await this.recall(input, access);
    return { ...packet, context: renderContext(packet) };
  }

  candidates(input: RecallInput, access: Access = {}) {
    return recall({ ...this.core, judge: new DisabledJudge() }, input, { ...access, readOnly: true });
  }

  async writeMemories(input: WriteMemoriesInput, access: Access = {}): Promise<MemoryWriteAnswer> {
    const { namespace, wait_for_vectors: timeoutMs, memories } = parseInput(wire.memories, input, 'write memories');
    const ns = namespaceOf(namespace, access);
    const result = await this.knowledge.writeParsedMemories({ memories, ns });
    const vectors =
      timeoutMs === undefined
        ? undefined
        : await this.core.indexer.whenEmbedded(
            result.ids.map((id) => evidenceKey({ ns, layer: 'memory', id })),
            timeoutMs,
          );
    return { ids: result.ids, written: result.written, supersede_candidates: result.supersede_candidates, ...(vectors ? { vectors } : {}) };
  }

  forget(id: string, input: ForgetInput, access: Access = {}) {
    const { namespace, ...rest } = input ?? {};
    return this.knowledge.forget({ ...rest, id, ns: namespaceOf(namespace, access) }) as Promise<Record<string, unknown>>;
  }

  supersede(headId: string, input: SupersedeInput, access: Access = {}) {
    const { namespace, ...rest } = input ?? ({} as SupersedeInput);
    return this.knowledge.supersede({ ...rest, head_id: headId, ns: namespaceOf(namespace, access) }) as Promise<Record<string, unknown>>;
  }

  async evidence(key: string, access: Access = {}): Promise<EvidenceAnswer> {
    const ref = parseEvidenceKey(key);
    if (!ref) throw new KiokuError('KIOKU_INPUT_INVALID', 'not an evidence key (ev1:<ns>:<layer>:<id>[#section])', { details: { field: 'key' } });
    namespaceOf(ref.ns, access);
    const e = this.records.get(key);
    if (!e) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
    const chain = e.layer === 'memory' ? this.records.memoryChain(e.ns, e.id) : undefined;
    return { ...e, ...(chain ? { head_id: chain.head?.id ?? null, history: chain.history.map((h) => ({ id: h.id, status: h.status, seq: h.seq })) } : {}) };
  }

  importDocuments(input: ImportInput, access: Access = {}) {
    const { namespace, ...rest } = (input ?? {}) as ImportInput;
    const p = parseInput(wire.import.omit({ namespace: true }), rest, 'import');
    return importDocuments(this.knowledge, this.records, {
      kind: p.kind,
      root: p.root,
      ns: namespaceOf(namespace, access),
      files: p.files,
      prune: p.prune,
      seenIds: p.seen_ids,
      final: p.final,
    });
  }

  async cold(input: { namespace?: string; min_considered?: number }, access: Access = {}): Promise<ColdAnswer> {
    const min = input.min_considered ?? 5;
    if (!Number.isSafeInteger(min) || min < 1 || min > 1_000_000)
      throw new KiokuError('KIOKU_INPUT_INVALID', 'min_considered must be a positive integer', { details: { field: 'min_considered' } });
    const ns = namespaceOf(input.namespace, access);
    return {
      namespace: ns,
      min_considered: min,
      basis: 'usage counters: considered/judged/relevant/returned from recall.performed and verdict.recorded events',
      items: this.store.projections.views.usage.cold(ns, min),
    };
  }

  deliveryReport(input: { namespace?: string; days?: number }, access: Access = {}) {
    const days = input.days ?? 7;
    if (!Number.isFinite(days) || days <= 0 || days > 3650)
      throw new KiokuError('KIOKU_INPUT_INVALID', 'days must be a number above 0 and at most 3650', { details: { field: 'days' } });
    return deliveryReport(this.store.log, { days, ns: namespaceOf(input.namespace, access) });
  }

  async replay(input: ReplayInput, access: Access = {}): Promise<ReplayReport> {
    const body = parseInput(wire.replay, input ?? {}, 'replay');
    const ns = namespaceOf(body.namespace, access);
    const from = new Date(body.from ?? 0);
    const to = body.to ? new Date(body.to) : new Date(Date.now() + 60_000);
    if (from.getTime() > to.getTime()) throw new KiokuError('KIOKU_INPUT_INVALID', 'from is after to', { details: { field: 'from' } });
    const report = await replay(this.store, body.retrieve ? this.core : undefined, {
      from,
      to,
      ns,
      rules: rulesWith(body.rules),
      ...(body.retrieve ? { retrieve: true } : {}),
    });
    // the shared log's head moves with every namespace's writes: only for a caller who sees the whole service
    if (seesService(access)) return report;
    const { log_head: _head, ...own } = report;
    return own;
  }

  setAudience(id: string, input: AudienceInput, access: Access = {}) {
    const { namespace, ...rest } = (input ?? {}) as AudienceInput;
    return this.knowledge.setAudience({ ...rest, id, ns: namespaceOf(namespace, access) }) as Promise<Record<string, unknown>>;
  }

  async document(layer: 'card' | 'wiki', id: string, input: { namespace?: string }, access: Access = {}): Promise<DocumentAnswer> {
    return documentOf(this.records, namespaceOf(input.namespace, access), layer, id);
  }

  async source(id: string, input: { namespace?: string }, access: Access = {}): Promise<DocumentAnswer> {
    const ns = namespaceOf(input.namespace, access);
    for (const layer of ['card', 'wiki', 'note', 'memory', 'asset', 'episode', 'trace'] as const) {
      if (this.records.document(ns, layer, id).some((e) => e.status === 'active')) return documentOf(this.records, ns, layer, id);
    }
    throw new KiokuError('KIOKU_NOT_FOUND', `no source "${id}" in namespace ${ns}`);
  }

  async relations(cardId: string, input: { namespace?: string }, access: Access = {}): Promise<RelationsAnswer> {
    const ns = namespaceOf(input.namespace, access);
    const card = documentOf(this.records, ns, 'card', cardId);
    const first = this.records.document(ns, 'card', cardId).find((e) => e.status === 'active');
    const exists = (id: string): boolean => this.records.document(ns, 'card', id).some((x) => x.status === 'active');
    return {
      id: card.id,
      relations: (first?.relations ?? []).map((id) => ({ id, exists: exists(id) })),
      related_from: this.records.relatedFrom(ns, cardId),
    };
  }

  async items(input: ItemsInput, access: Access = {}): Promise<ItemsAnswer> {
    const q = parseInput(wire.items, input ?? {}, 'items');
    const ns = namespaceOf(q.namespace, access);
    // the clock recall uses (KIOKU_CLOCK pins it), without loading the model for it
    const now = this.now();
    const from = timeBound(q.from, 'from', now, 'items');
    // a phrase alone ("last week") is a whole range
    const to = timeBound(q.to, 'to', now, 'items') ?? (from?.range ? { at: from.range.to.getTime(), exclusive: true } : undefined);
    const kinds = q.kinds && new Set(q.kinds);
    const tags = q.tags?.map((t) => t.toLowerCase());
    const entityKeys = q.entity ? new Set(this.records.byEntityName(ns, q.entity, { includeRetired: q.include_retired }).map((e) => e.key)) : undefined;
    const matches: RecordEntry[] = [];
    for (const e of this.records.all({ ...(q.layers ? { layers: q.layers } : {}), includeRetired: q.include_retired })) {
      if (e.ns !== ns) continue;
      if (kinds && !kinds.has(e.kind ?? '')) continue;
      if (tags && !tags.every((t) => e.tags.some((x) => x.toLowerCase() === t))) continue;
      if (entityKeys && !entityKeys.has(e.key)) continue;
      if (q.session_id && e.session_id !== q.session_id) continue;
      const at = Date.parse(e.occurred_at);
      if (from && at < from.at) continue;
      if (to && (to.exclusive ? at >= to.at : at > to.at)) continue;
      matches.push(e);
    }
    matches.sort((a, b) => Date.parse(b.occurred_at) - Date.parse(a.occurred_at) || b.seq - a.seq);
    const items = matches.slice(0, q.limit).map((e) => {
      const chain = e.layer === 'memory' && e.status !== 'active' ? this.records.memoryChain(e.ns, e.id) : undefined;
      return chain?.head ? { ...e, head_id: chain.head.id } : e;
    });
    const range = from?.range;
    return {
      namespace: ns,
      ...(from || to
        ? {
            range: {
              from: new Date(from?.at ?? 0).toISOString(),
              to: new Date(to?.at ?? now.getTime()).toISOString(),
              ...(range ? { phrase: range.phrase } : {}),
            },
          }
        : {}),
      items,
      total: matches.length,
      truncated: matches.length > items.length,
    };
  }

  logEpisode(input: EpisodeInput, access: Access = {}) {
    const { namespace, ...rest } = (input ?? {}) as EpisodeInput;
    return this.knowledge.logEpisode({ ...rest, ns: namespaceOf(namespace, access) });
  }

  registerAsset(input: AssetInput, access: Access = {}) {
    const { namespace, ...rest } = (input ?? {}) as AssetInput;
    return this.knowledge.registerAsset({ ...rest, ns: namespaceOf(namespace, access) });
  }

  async asset(id: string, input: { namespace?: string; include_content?: boolean; max_bytes?: number }, access: Access = {}): Promise<AssetAnswer> {
    const ns = namespaceOf(input.namespace, access);
    const e = this.records.get(evidenceKey({ ns, layer: 'asset', id }));
    if (!e?.asset || e.status !== 'active') throw new KiokuError('KIOKU_NOT_FOUND', `no asset "${id}" in namespace ${ns}`, { details: { id } });
    const { path, size, sha256, mime } = e.asset;
    const cap = input.include_content ? Math.min(input.max_bytes ?? ASSET_INLINE_MAX, ASSET_INLINE_MAX) : 0;
    // the same policy as at registration, checked again now: the file may have become a symlink since
    let status: AssetAnswer['status'] = 'missing';
    let read: Awaited<ReturnType<typeof readOpened>> | undefined;
    try {
      read = await readOpened(this.knowledge.assets.open(ns, path), cap);
      status = read.size === size && read.sha256 === sha256 ? 'ok' : 'changed';
    } catch (err) {
      if (!(err instanceof KiokuError) || err.code !== 'KIOKU_ASSET_PATH_REFUSED') status = 'missing';
      else if (input.include_content) throw err;
      else status = 'refused';
    }
    const content =
      input.include_content && read
        ? (() => {
            const cut = read.head;
            const text = /^text\/|json|xml|yaml|markdown/.test(mime ?? '') || !cut.includes(0);
            return { encoding: text ? ('utf8' as const) : ('base64' as const), data: cut.toString(text ? 'utf8' : 'base64'), truncated: read.size > cap };
          })()
        : undefined;
    return { id, namespace: ns, path, mime: mime ?? null, bytes: size, sha256, description: e.text, tags: e.tags, status, ...(content ? { content } : {}) };
  }

  async stats(input: { namespace?: string }, access: Access = {}): Promise<StatsAnswer> {
    const ns = namespaceOf(input.namespace, access);
    const events = this.store.projections.views.stats.current().by_namespace[ns]?.count ?? 0;
    return { namespace: ns, items: this.records.counts(ns), events, ...(seesService(access) ? { head: this.store.log.head() } : {}) };
  }

  async related(key: string, input: { limit?: number }, access: Access = {}): Promise<RelatedAnswer> {
    const ref = parseEvidenceKey(key);
    if (!ref) throw new KiokuError('KIOKU_INPUT_INVALID', 'not an evidence key (ev1:<ns>:<layer>:<id>[#section])', { details: { field: 'key' } });
    const ns = namespaceOf(ref.ns, access);
    const e = this.records.get(key);
    if (!e) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
    const limit = Math.min(Math.max(input.limit ?? 20, 1), 100);
    const edges: RelatedEdge[] = [];
    const seen = new Set<string>([key]);
    const add = (other: RecordEntry | undefined, relation: RelatedEdge['relation'], entity?: string): void => {
      if (!other || seen.has(other.key) || other.ns !== ns) return;
      seen.add(other.key);
      edges.push({ evidence_key: other.key, relation, title: other.title, status: other.status, ...(entity ? { entity } : {}) });
    };
    if (e.layer === 'memory') {
      const chain = this.records.memoryChain(ns, e.id);
      for (const h of chain.history) {
        if (h.key === key) continue;
        // older links of the chain are what this one (or its successors) superseded; newer ones superseded it
        add(h, h.seq < e.seq ? 'supersedes' : 'superseded_by');
      }
    }
    if (e.layer === 'card') {
      for (const id of e.relations ?? [])
        add(
          this.records.document(ns, 'card', id).find((x) => x.status === 'active'),
          'references',
        );
      for (const id of this.records.relatedFrom(ns, e.id))
        add(
          this.records.document(ns, 'card', id).find((x) => x.status === 'active'),
          'referenced_by',
        );
    }
    const { before, after } = this.records.turnNeighbours(key);
    add(before ? this.records.get(before) : undefined, 'before');
    add(after ? this.records.get(after) : undefined, 'after');
    for (const entity of e.entities) for (const other of this.records.byEntityName(ns, entity)) add(other, 'shares_entity', entity);
    return { evidence_key: key, edges: edges.slice(0, limit) };
  }

  async recordJobEvent(input: JobEventInput, access: Access = {}): Promise<{ seq: number; hash: string }> {
    const { namespace, ...data } = parseInput(wire.jobEvent, input ?? {}, 'job event');
    const { seq, hash } = await this.store.log.append({
      type: 'job.event',
      ns: namespaceOf(namespace, access),
      actor: access.actor ?? this.options.actor ?? 'kioku',
      data,
    });
    await this.store.projections.waitFor(seq);
    return { seq, hash };
  }

  /** the clock recall uses (KIOKU_CLOCK pins it), without loading the model for it */
  private now(): Date {
    return (this.options.now ?? clockFromEnv())?.() ?? new Date();
  }

  async list(input: ListInput, access: Access = {}): Promise<ListAnswer> {
    const { since, until, ...q } = parseInput(wire.list, input ?? {}, 'list');
    const ns = namespaceOf(q.namespace, access);
    const now = this.now();
    const from = timeBound(since, 'since', now, 'list');
    // a phrase alone ("last week") is a whole range
    const to = timeBound(until, 'until', now, 'list') ?? (from?.range ? { at: from.range.to.getTime(), exclusive: true } : undefined);
    return listItems(this.records, {
      ...q,
      namespace: ns,
      since: from?.at,
      until: to && (to.exclusive ? to.at - 1 : to.at),
      since_text: since,
      until_text: until,
    });
  }

  async importItems(input: ImportItemsInput, access: Access = {}): Promise<ImportItemsAnswer> {
    const { namespace, ...rest } = parseInput(wire.importItems, input ?? {}, 'import items');
    return importItems(
      { knowledge: this.knowledge, store: this.store, actor: access.actor ?? this.options.actor ?? 'kioku' },
      { ...rest, ns: namespaceOf(namespace, access) },
    );
  }

  async verifyLog(input: { write_anchor?: boolean }, access: Access = {}): Promise<VerifyReport> {
    serviceOnly(access, 'verify');
    return verifyLive(this.store, { writeAnchor: input?.write_anchor === true });
  }

  async logStats(access: Access = {}): Promise<LogStatsAnswer> {
    serviceOnly(access, 'log stats');
    return logStats(this.store);
  }

  async logRecord(seq: number, access: Access = {}): Promise<LogRecord> {
    serviceOnly(access, 'log show');
    return logRecord(this.store, seq);
  }

  async logFrames(input: { from: number; to?: number; limit?: number }, access: Access = {}): Promise<LogFramesAnswer> {
    serviceOnly(access, 'log frames');
    return logFrames(this.store, input);
  }

  async backupPoint(access: Access = {}): Promise<BackupPoint> {
    serviceOnly(access, 'backup');
    return backupPoint(this.store);
  }

  /** Stop the indexer and embedder (if they started), snapshot the projections, close the log. */
  async close(): Promise<void> {
    await this.coreInstance?.close();
    await this.store.close();
  }
}

export interface OpenKiokuOptions extends OpenStoreOptions, LocalKiokuOptions {}

/** The asset policy of a library: roots from KIOKU_ASSET_ROOTS; the data dir, anchor key, anchors and auth file are never content. */
export function defaultAssetPolicy(paths: KiokuStore['paths'], protect: readonly (string | undefined)[] = [], roots?: AssetRoots): AssetPolicy {
  return AssetPolicy.fromEnv({
    dataDir: paths.dataDir,
    protect: [paths.anchorKeyFile, paths.anchorsFile, process.env['KIOKU_AUTH_FILE'], ...protect],
    ...(roots ? { roots } : {}),
  });
}

/** A time bound: an ISO time, or a phrase ("last week", "九月那阵子") resolved against now to the start or the end of its range. */
/** A phrase's range ends where the next day begins (exclusive): "九月" must not hold October 1st's daily note. */
function timeBound(
  text: string | undefined,
  end: string,
  now: Date,
  what: string,
): { at: number; phrase?: string; range?: TimeRange; exclusive?: boolean } | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (!Number.isNaN(at)) return { at };
  const range = parseTimeRange(text, now);
  if (!range)
    throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${end}: not a time or a time phrase I know ("${text.slice(0, 80)}")`, { details: { field: end } });
  const start = end === 'from' || end === 'since';
  return { at: (start ? range.from : range.to).getTime(), phrase: range.phrase, range, ...(start ? {} : { exclusive: true }) };
}

/** The whole log (every namespace's events) is for the anonymous owner or a service:read token only. */
function serviceOnly(access: Access, what: string): void {
  if (!seesService(access))
    throw new KiokuError('KIOKU_FORBIDDEN', `${what} reads the whole library (every namespace): it needs the service:read scope`, {
      details: { scope: 'service:read' },
    });
}

/** Open the store under the data dir (or over a given event store) and the facade over it. */
export async function openKioku(options: OpenKiokuOptions = {}): Promise<LocalKioku> {
  return new LocalKioku(await openStore(options), options);
}

const section = (e: RecordEntry) => ({
  evidence_key: e.key,
  section: e.section ?? null,
  heading: e.heading ?? null,
  text: e.text,
  status: e.status,
  ...(e.meta ? { meta: true as const } : {}),
  ...(e.fingerprint ? { fingerprint: e.fingerprint } : {}),
});

function documentOf(records: RecordsProjection, ns: string, layer: Layer, id: string): DocumentAnswer {
  const sections = records.document(ns, layer, id).filter((e) => e.status === 'active');
  if (sections.length === 0) throw new KiokuError('KIOKU_NOT_FOUND', `no ${layer} "${id}" in namespace ${ns}`, { details: { id } });
  const first = sections[0] as RecordEntry;
  // a wiki section is titled by its heading path (issue 30): the page's title is the path's root
  const title = layer === 'wiki' ? (first.title.split(' › ')[0] as string) : first.title;
  return { id, layer, namespace: ns, title, tags: first.tags, source_path: first.source_path ?? null, sections: sections.map(section) };
}
