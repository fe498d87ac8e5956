// The composition root and the facade. `openKioku` wires a store (log + projections),
// the recall core and the knowledge commands once; the server, the CLI, the eval scripts
// and the tests all go through it. `Kioku` is what every adapter may ask; RemoteKioku
// (src/remote.ts) answers the same calls over HTTP. See docs/architecture.md.
// Every method takes its input typed by its schema (src/wire.ts, src/api/) and parses it once —
// not again when a door parsed it already (src/api/index.ts) — and settles the namespace once:
// a Caller resolved at a door carries it. The work is in the modules each method calls, one
// line each: src/api/ by area (items, sources, privacy, org, lifecycle, notices, activity,
// pipeline; the audience policy they share in api/audience.ts), recall/, knowledge/, operations.ts.
import { z } from 'zod';
import { namespaceOf, seesService } from './access.js';
import { KiokuError } from './errors.js';
import { evidenceKey, itemIdSchema } from './knowledge/evidence.js';
import { Knowledge, type WriteMemoriesResult } from './knowledge/index.js';
import { AssetPolicy, type AssetRoots } from './knowledge/asset-policy.js';
import type { AssetRegistered } from './knowledge/commands.js';
import { importDocuments, type ImportSummary } from './knowledge/importer.js';
import { parseInput } from './knowledge/validate.js';
import {
  clockFromEnv,
  completeTurn,
  createRecallCore,
  deliveryReport,
  DisabledJudge,
  openSession,
  recall,
  replay,
  rulesWith,
  startTurn,
  type CoreOptions,
} from './recall/index.js';
import type { DeliveryReport, RecallContext, RecallPacket, ReplayReport } from './recall/index.js';
import { renderContext } from './recall/render.js';
import { recallConfigFromEnv } from './recall/config.js';
import type { LifecycleReport } from './recall/lifecycle.js';
import { coldItems, lifecycleIn, type ColdAnswer } from './api/lifecycle.js';
import type { LifecycleRunInput } from './wire.js';
import { openStore, type KiokuStore, type OpenStoreOptions } from './store.js';
import type { RevealedSecret } from './privacy/index.js';
import { DEFAULT_NAMESPACE, type LogRecord } from './events/index.js';
import type { VerifyReport } from './log/index.js';
import { backupPoint, logFrames, logRecord, logStats, verifyLive, type BackupPoint, type LogFramesAnswer, type LogStatsAnswer } from './operations.js';
import type { ListAnswer } from '../projections/records/listing.js';
import {
  type AssetAnswer,
  type DocumentAnswer,
  type EvidenceAnswer,
  type ItemsAnswer,
  type RelatedAnswer,
  type RelationsAnswer,
} from '../projections/records/queries.js';
import { importItems, type ImportedMemory, type ImportItemsAnswer } from './knowledge/import-items.js';
import { canSee, decideAudience, requireActor, requireOwner, writerOf } from './knowledge/audience.js';
import { orgCallerIn, ownedWrites, recordVisible, requireWritable, visibleIn, visibleKey } from './api/audience.js';
import { assetIn, documentIn, relationsIn, sourceIn } from './api/sources.js';
import { findItems, fetchEvidence, listPage, namespaceStats, relatedItems, usageOf, type StatsAnswer } from './api/items.js';
import { activity, type ActivityAnswer, type ActivityInput, type UsageAnswer } from './api/activity.js';
import type { OrgChangeAnswer } from './knowledge/org-decide.js';
import type { OrgAnswer } from './knowledge/org-answer.js';
import { changeOrgOf, orgOf } from './api/org.js';
import { memoryIdOf, memoryIdsOf } from './knowledge/memory-ref.js';
import type { PurgeAnswer } from './knowledge/purge.js';
import { forgetItem, purgeItems, revealFor, type ForgetAnswer } from './api/privacy.js';
import { noticeIdSchema } from './knowledge/notices.js';
import * as notices from './api/notices.js';
import type { AckAnswer, InboxAnswer, NotifyAnswer, OutboxAnswer } from './api/notices.js';
import {
  artifacts,
  ingestStatus,
  pipelineJobs,
  pipelineSnapshot,
  type ArtifactsAnswer,
  type IngestStatus,
  type PipelineJobs,
  type PipelineJobsInput,
  type PipelineSnapshot,
  type PipelineSnapshotInput,
} from './api/pipeline.js';
import {
  wire,
  type AssetInput,
  type AudienceInput,
  type AckInput,
  type InboxInput,
  type NotifyInput,
  type OrgChangeInput,
  type EpisodeInput,
  type ItemsInput,
  type ListInput,
  type ImportItemsInput,
  type RevealSecretInput,
  type JobEventInput,
  type ReplayInput,
  type CompleteTurnInput,
  type ForgetInput,
  type PurgeInput,
  type ImportInput,
  type OpenSessionInput,
  type RecallInput,
  type StartTurnInput,
  type SupersedeInput,
  type WriteMemoriesInput,
  type AssetQueryInput,
  type ColdInput,
  type DeliveryReportInput,
  type InNamespaceInput,
  type LogFramesInput,
  type RelatedInput,
  type VerifyLogInput,
} from './wire.js';

export type { KiokuStore } from './store.js';
export {
  ASSET_INLINE_MAX,
  type AssetAnswer,
  type DocumentAnswer,
  type EvidenceAnswer,
  type ItemsAnswer,
  type RelatedAnswer,
  type RelatedEdge,
  type RelationsAnswer,
} from '../projections/records/queries.js';
export type { OrgAnswer } from './knowledge/org-answer.js';
export type { StatsAnswer } from './api/items.js';
export type { ForgetAnswer } from './api/privacy.js';
export type { ColdAnswer } from './api/lifecycle.js';
export type { PurgeAnswer } from './knowledge/purge.js';
export type { OrgChangeAnswer } from './knowledge/org-decide.js';
export type { ActivityAnswer, ActivityInput, TurnSummary, UsageAnswer } from './api/activity.js';
export type { AckAnswer, InboxAnswer, InboxItem, NotifyAnswer, OutboxAnswer, OutboxItem } from './api/notices.js';
export type { ArtifactsAnswer, IngestStatus, PipelineJobs, PipelineJobsInput, PipelineSnapshot, PipelineSnapshotInput } from './api/pipeline.js';

/** Who is asking, as the adapter resolved it (src/access.ts; a door's Caller, src/api/caller.ts), plus call options the core understands. */
export type Access = RecallContext;
export { namespaceOf } from './access.js';

export interface MemoryWriteAnswer extends WriteMemoriesResult {
  /** with wait_for_vectors: how many of the written memories still wait for vectors */
  vectors?: { waiting: number; timed_out: boolean };
}

// answers are type aliases, not interfaces: a door may hand them on as plain JSON objects (Record<string, unknown>)
export type SessionAnswer = {
  session_id: string;
  namespace: string;
};
export type TurnAnswer = { turn_id: string } & RecallPacket;
export type CompleteTurnAnswer = {
  turn_id: string;
  /** per delivered item, the share of its excerpt's distinct terms that reappear in the answer (a lexical proxy) */
  delivery_outcomes: { evidence_key: string; term_overlap: number }[];
};
export type SupersedeAnswer = {
  head_id: string;
  superseded_ids: string[];
};
export type AudienceAnswer = {
  id: string;
  audience: string[];
};
export type ContextAnswer = RecallPacket & { context: string };
export type AssetRegisteredAnswer = AssetRegistered;

/** What every adapter (HTTP, MCP, hook, CLI) may ask of Kioku, local or remote. */
export interface Kioku {
  readonly mode: 'local' | 'remote';
  openSession(input: OpenSessionInput, access?: Access): Promise<SessionAnswer>;
  startTurn(input: StartTurnInput, access?: Access): Promise<TurnAnswer>;
  completeTurn(turnId: string, input: CompleteTurnInput, access?: Access): Promise<CompleteTurnAnswer>;
  recall(input: RecallInput, access?: Access): Promise<RecallPacket>;
  /** recall plus the delivery rendered as one text block */
  context(input: RecallInput, access?: Access): Promise<ContextAnswer>;
  /** read-only retrieval: fused candidates, no judge, nothing recorded */
  candidates(input: RecallInput, access?: Access): Promise<RecallPacket>;
  writeMemories(input: WriteMemoriesInput, access?: Access): Promise<MemoryWriteAnswer>;
  forget(id: string, input: ForgetInput, access?: Access): Promise<ForgetAnswer>;
  /**
   * Crypto-shred a memory, a session or the whole namespace (issue 33): their data keys deleted,
   * a `purged` event appended, every projection and snapshot rewritten without their text.
   */
  purge(input: PurgeInput, access?: Access): Promise<PurgeAnswer>;
  supersede(headId: string, input: SupersedeInput, access?: Access): Promise<SupersedeAnswer>;
  evidence(key: string, access?: Access): Promise<EvidenceAnswer>;
  /** markdown documents the caller read (kioku import), in batches; `final` on the last */
  importDocuments(input: ImportInput, access?: Access): Promise<ImportSummary>;
  cold(input: ColdInput, access?: Access): Promise<ColdAnswer>;
  deliveryReport(input: DeliveryReportInput, access?: Access): Promise<DeliveryReport>;
  /** re-run recorded turns through (changed) delivery rules; appends nothing */
  replay(input: ReplayInput, access?: Access): Promise<ReplayReport>;
  /** the lifecycle job over one namespace: strengths now, and the lifecycle.transitioned events it appends (none on a dry run) */
  lifecycleRun(input: LifecycleRunInput, access?: Access): Promise<LifecycleReport>;
  setAudience(id: string, input: AudienceInput, access?: Access): Promise<AudienceAnswer>;
  /** a note to org members (issue 34): a notice in each one's inbox; refused without an org, for an unknown member, or from no member */
  notify(input: NotifyInput, access?: Access): Promise<NotifyAnswer>;
  /** what waits for the caller (notices from colleagues, assignments); what it shows for the first time is marked arrived */
  inbox(input: InboxInput, access?: Access): Promise<InboxAnswer>;
  /** sign a notice of the caller's inbox off */
  ack(noticeId: string, input: AckInput, access?: Access): Promise<AckAnswer>;
  /** what the caller sent, and per recipient whether it arrived and was signed off */
  outbox(input: InNamespaceInput, access?: Access): Promise<OutboxAnswer>;
  /** a card or wiki topic and its active sections */
  document(layer: 'card' | 'wiki', id: string, input: InNamespaceInput, access?: Access): Promise<DocumentAnswer>;
  /** a source document by id, whatever its layer */
  source(id: string, input: InNamespaceInput, access?: Access): Promise<DocumentAnswer>;
  /** the card ids a card relates to, and the cards relating to it */
  relations(cardId: string, input: InNamespaceInput, access?: Access): Promise<RelationsAnswer>;
  /** items by what they are (kinds, tags, entity, time range, session), newest first; superseded ones marked */
  items(input: ItemsInput, access?: Access): Promise<ItemsAnswer>;
  /** keep a dialogue verbatim (cold: recalled only on request) */
  logEpisode(input: EpisodeInput, access?: Access): Promise<{ episode_id: string }>;
  /** register a file by reference: its description is its only search text */
  registerAsset(input: AssetInput, access?: Access): Promise<AssetRegisteredAnswer>;
  /** an asset's claim ticket, its status checked against the file now, and its content inline on request (within a cap) */
  asset(id: string, input: AssetQueryInput, access?: Access): Promise<AssetAnswer>;
  /** the namespace's org (issue 34): its space tree and members, and who the caller is in it; empty, with the reason, without one */
  org(input: InNamespaceInput, access?: Access): Promise<OrgAnswer>;
  /** change the namespace's org (a space or a member) by appending org events: the org:admin scope */
  changeOrg(input: OrgChangeInput, access?: Access): Promise<OrgChangeAnswer>;
  /** what the library holds: items by layer, the log head */
  stats(input: InNamespaceInput, access?: Access): Promise<StatsAnswer>;
  /** what an item is connected to: supersede edges, card references, session neighbours, shared entities */
  related(key: string, input: RelatedInput, access?: Access): Promise<RelatedAnswer>;
  /** record a job event (stored, never executed) */
  recordJobEvent(input: JobEventInput, access?: Access): Promise<{ seq: number; hash: string }>;
  /** job events of the last N days, by stage and status */
  pipelineSnapshot(input: PipelineSnapshotInput, access?: Access): Promise<PipelineSnapshot>;
  /** jobs, newest first, filtered by stage and status */
  pipelineJobs(input: PipelineJobsInput, access?: Access): Promise<PipelineJobs>;
  /** what is indexed, what waits for vectors, the last embedding job (the caller's namespace, or the store for one who sees the service) */
  ingestStatus(access?: Access): Promise<IngestStatus>;
  /** everything recorded for one turn: start, recall, verdicts, delivery, completion */
  artifacts(traceId: string, access?: Access): Promise<ArtifactsAnswer>;
  /** the recent turns with what each delivered and held back (by rule), items by kind, and per day turns, deliveries and items added */
  activity(input: ActivityInput, access?: Access): Promise<ActivityAnswer>;
  /** how one item has been used: recall's counters, whether it is demoted, deliveries, look-ups and fetches */
  usage(key: string, access?: Access): Promise<UsageAnswer>;
  /** browse one namespace's items in key order, filtered, a page at a time (an opaque cursor to the next) */
  list(input: ListInput, access?: Access): Promise<ListAnswer>;
  /** write items as `kioku export --format jsonl` wrote them (cards, wiki topics and notes whole, memories), keys kept */
  importItems(input: ImportItemsInput, access?: Access): Promise<ImportItemsAnswer>;
  /** the value behind a secret's placeholder, from this machine's vault: a caller on this machine only (issue 33) */
  revealSecret(input: RevealSecretInput, access?: Access): Promise<RevealedSecret>;
  // The library as a whole (the service:read scope): these run where the store is owned, so they work while a service runs.
  /** verify the chain up to the head now, with the anchors; optionally sign that head */
  verifyLog(input: VerifyLogInput, access?: Access): Promise<VerifyReport>;
  /** event counts and bytes per type and namespace */
  logStats(access?: Access): Promise<LogStatsAnswer>;
  /** one record, decoded */
  logRecord(seq: number, access?: Access): Promise<LogRecord>;
  /** stored frames, byte for byte, a page at a time (an export, a backup) */
  logFrames(input: LogFramesInput, access?: Access): Promise<LogFramesAnswer>;
  /** a head every projection stands at, with their digests there (what a restore must reproduce) */
  backupPoint(access?: Access): Promise<BackupPoint>;
  close(): Promise<void>;
}

export interface LocalKiokuOptions extends CoreOptions {
  /** the actor knowledge writes are recorded under (default "kioku") */
  actor?: string;
  /** where asset content may be read from (default: KIOKU_ASSET_ROOTS, the data dir and keys protected) */
  assets?: AssetPolicy;
}

/** Kioku over a store this process owns: each method settles the namespace, calls one module, answers. */
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
  get privacy(): KiokuStore['privacy'] {
    return this.store.privacy;
  }

  /** The recall core, created on first use (it loads the embedder). */
  get core(): ReturnType<typeof createRecallCore> {
    return (this.coreInstance ??= createRecallCore(this.store, this.options));
  }

  get knowledge(): Knowledge {
    return (this.knowledgeInstance ??= new Knowledge(this.store, this.options.actor ?? 'kioku', this.options.assets ?? defaultAssetPolicy(this.paths)));
  }

  private get records() {
    return this.store.projections.views.records;
  }

  openSession(input: OpenSessionInput, access: Access = {}): Promise<SessionAnswer> {
    return openSession(this.core, input, access);
  }

  startTurn(input: StartTurnInput, access: Access = {}): Promise<TurnAnswer> {
    return startTurn(this.core, input, access);
  }

  completeTurn(turnId: string, input: CompleteTurnInput, access: Access = {}): Promise<CompleteTurnAnswer> {
    return completeTurn(this.core, turnId, input, access);
  }

  async recall(input: RecallInput, access: Access = {}): Promise<RecallPacket> {
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

  async context(input: RecallInput, access: Access = {}): Promise<ContextAnswer> {
    const packet = await this.recall(input, access);
    return { ...packet, context: renderContext(packet) };
  }

  candidates(input: RecallInput, access: Access = {}): Promise<RecallPacket> {
    return recall({ ...this.core, judge: new DisabledJudge() }, input, { ...access, readOnly: true });
  }

  async writeMemories(input: WriteMemoriesInput, access: Access = {}): Promise<MemoryWriteAnswer> {
    const { namespace, wait_for_vectors: timeoutMs, memories } = parseInput(wire.memories, input, 'write memories');
    const ns = namespaceOf(namespace, access);
    // supersede_ids may name memories by evidence key (as answers show them): resolved to ids here, once
    const resolved = memories.map((m, i) => (m.supersede_ids.some((r) => r.startsWith('ev1:')) ? { ...m, supersede_ids: memoryIdsOf(m.supersede_ids, ns, `memories.${i}.supersede_ids`, 'write memories') } : m));
    // notify (issue 34): refused whole before anything is written; the notices follow the memories
    const notifies = memories.flatMap((m, index) => (m.notify ? [{ index, to: m.notify, kind: m.kind, audience: m.audience }] : []));
    requireWritable(this.store, resolved, ns, access);
    const sender = await notices.senderFor(this.store, ns, access, notifies);
    const result = await this.knowledge.writeParsedMemories({ memories: ownedWrites(this.store, resolved, ns, access), ns });
    if (sender !== undefined) await notices.sendMemoryNotices(this.store, ns, sender, notifies, result.ids, access.actor ?? this.options.actor ?? 'kioku');
    const vectors =
      timeoutMs === undefined
        ? undefined
        : await this.core.indexer.whenEmbedded(
            result.ids.map((id) => evidenceKey({ ns, layer: 'memory', id })),
            timeoutMs,
          );
    return { ids: result.ids, written: result.written, supersede_candidates: result.supersede_candidates, ...(vectors ? { vectors } : {}) };
  }

  forget(id: string, input: ForgetInput, access: Access = {}): Promise<ForgetAnswer> {
    return forgetItem(this.store, this.knowledge, id, input, access);
  }

  purge(input: PurgeInput, access: Access = {}): Promise<PurgeAnswer> {
    return purgeItems(this.store, input, access, this.options.actor ?? 'kioku', (ns) => this.knowledge.assets.uploadsOf(ns));
  }

  supersede(headId: string, input: SupersedeInput, access: Access = {}): Promise<SupersedeAnswer> {
    const { namespace, ...rest } = parseInput(wire.supersede, input ?? {}, 'supersede');
    const ns = namespaceOf(namespace, access);
    const superseded_ids = memoryIdsOf(rest.superseded_ids, ns, 'superseded_ids', 'supersede');
    const head_id = pathId(headId, 'head_id', 'supersede', ns);
    // the head must be one the caller sees; what it retires, the caller's own (issue 34)
    const caller = orgCallerIn(this.store, ns, access);
    const head = this.records.get(evidenceKey({ ns, layer: 'memory', id: head_id }));
    if (head && !canSee(head, caller)) throw new KiokuError('KIOKU_NOT_FOUND', `supersede: no memory "${head_id}"`, { details: { field: 'head_id', id: head_id } });
    for (const old of superseded_ids) {
      const entry = this.records.get(evidenceKey({ ns, layer: 'memory', id: old }));
      if (entry) requireActor([entry], caller, 'supersede', 'memory', old);
    }
    return this.knowledge.supersedeParsed({ ...rest, superseded_ids, head_id, ns });
  }

  evidence(key: string, access: Access = {}): Promise<EvidenceAnswer> {
    return fetchEvidence(this.store, key, access, access.actor ?? this.options.actor ?? 'kioku');
  }

  importDocuments(input: ImportInput, access: Access = {}): Promise<ImportSummary> {
    const p = parseInput(wire.import, input ?? {}, 'import');
    return importDocuments(this.knowledge, this.records, {
      kind: p.kind,
      root: p.root,
      ns: namespaceOf(p.namespace, access),
      files: p.files,
      prune: p.prune,
      seenIds: p.seen_ids,
      final: p.final,
    });
  }

  async cold(input: ColdInput, access: Access = {}): Promise<ColdAnswer> {
    return coldItems(this.store, input, access);
  }

  deliveryReport(input: DeliveryReportInput, access: Access = {}): Promise<DeliveryReport> {
    const days = input.days ?? 7;
    if (!Number.isFinite(days) || days <= 0 || days > 3650)
      throw new KiokuError('KIOKU_INPUT_INVALID', 'days must be a number above 0 and at most 3650', { details: { field: 'days' } });
    const ns = namespaceOf(input.namespace, access);
    return deliveryReport(this.store.log, { days, ns, visible: recordVisible(this.store, ns, access) });
  }

  lifecycleRun(input: LifecycleRunInput, access: Access = {}): Promise<LifecycleReport> {
    const aging = (this.options.config ?? recallConfigFromEnv()).aging;
    return lifecycleIn(this.store, aging, input, access, this.now(), access.actor ?? this.options.actor ?? 'kioku');
  }

  async replay(input: ReplayInput, access: Access = {}): Promise<ReplayReport> {
    const body = parseInput(wire.replay, input ?? {}, 'replay');
    const ns = namespaceOf(body.namespace, access);
    const from = new Date(body.from ?? 0);
    const to = body.to ? new Date(body.to) : new Date(Date.now() + 60_000);
    if (from.getTime() > to.getTime()) throw new KiokuError('KIOKU_INPUT_INVALID', 'from is after to', { details: { field: 'from' } });
    const visible = recordVisible(this.store, ns, access);
    const noticeVisible = notices.replayNoticeFilter(this.store, ns, access);
    const report = await replay(this.store, body.retrieve ? this.core : undefined, {
      from,
      to,
      ns,
      rules: rulesWith(body.rules),
      plainGapMin: (this.options.config ?? recallConfigFromEnv()).plain_session_gap_min,
      ...(body.retrieve ? { retrieve: true } : {}),
      ...(visible ? { visible } : {}),
      ...(noticeVisible ? { noticeVisible } : {}),
    });
    // the shared log's head moves with every namespace's writes: only for a caller who sees the whole service
    if (seesService(access)) return report;
    const { log_head: _head, ...own } = report;
    return own;
  }

  async setAudience(id: string, input: AudienceInput, access: Access = {}): Promise<AudienceAnswer> {
    const { namespace, ...rest } = parseInput(wire.audience, input ?? {}, 'set audience');
    const ns = namespaceOf(namespace, access);
    const memoryId = pathId(id, 'id', 'set audience', ns);
    // the one audience policy (issue 34): within the writer's subtree, and only by the memory's owner
    const caller = orgCallerIn(this.store, ns, access);
    const audience = decideAudience(rest.audience, caller, 'audience', 'set audience') ?? [];
    requireOwner(this.records.get(evidenceKey({ ns, layer: 'memory', id: memoryId })), caller, 'set audience', memoryId);
    return this.knowledge.setAudienceParsed({ ...rest, audience, id: memoryId, ns });
  }

  notify(input: NotifyInput, access: Access = {}): Promise<NotifyAnswer> {
    const { namespace, ...note } = parseInput(wire.notify, input ?? {}, 'notify');
    return notices.notify(this.store, namespaceOf(namespace, access), note, access, access.actor ?? this.options.actor ?? 'kioku');
  }

  inbox(input: InboxInput, access: Access = {}): Promise<InboxAnswer> {
    const { namespace, ...q } = parseInput(wire.inbox, input ?? {}, 'inbox');
    return notices.inbox(this.store, namespaceOf(namespace, access), q, access, access.actor ?? this.options.actor ?? 'kioku');
  }

  ack(noticeId: string, input: AckInput, access: Access = {}): Promise<AckAnswer> {
    const { namespace, ...rest } = parseInput(wire.ack, input ?? {}, 'ack');
    const id = parseInput(z.strictObject({ notice_id: noticeIdSchema }), { notice_id: noticeId }, 'ack').notice_id;
    return notices.ack(this.store, namespaceOf(namespace, access), id, rest, access, access.actor ?? this.options.actor ?? 'kioku');
  }

  outbox(input: InNamespaceInput, access: Access = {}): Promise<OutboxAnswer> {
    return notices.outbox(this.store, namespaceOf(input.namespace, access), access);
  }

  async document(layer: 'card' | 'wiki', id: string, input: InNamespaceInput, access: Access = {}): Promise<DocumentAnswer> {
    return documentIn(this.store, layer, id, input, access);
  }

  async source(id: string, input: InNamespaceInput, access: Access = {}): Promise<DocumentAnswer> {
    return sourceIn(this.store, id, input, access);
  }

  async relations(cardId: string, input: InNamespaceInput, access: Access = {}): Promise<RelationsAnswer> {
    return relationsIn(this.store, cardId, input, access);
  }

  async items(input: ItemsInput, access: Access = {}): Promise<ItemsAnswer> {
    return findItems(this.store, input, access, this.now());
  }

  logEpisode(input: EpisodeInput, access: Access = {}): Promise<{ episode_id: string }> {
    const { namespace, ...rest } = parseInput(wire.episode, input ?? {}, 'log episode');
    const ns = namespaceOf(namespace, access);
    return this.knowledge.logEpisodeParsed({ ...rest, ns }, writerOf(orgCallerIn(this.store, ns, access), 'log episode'));
  }

  registerAsset(input: AssetInput, access: Access = {}): Promise<AssetRegisteredAnswer> {
    const { namespace, ...rest } = parseInput(wire.asset, input ?? {}, 'register asset');
    const ns = namespaceOf(namespace, access);
    return this.knowledge.registerAssetParsed({ ...rest, ns }, writerOf(orgCallerIn(this.store, ns, access), 'register asset'));
  }

  async asset(id: string, input: AssetQueryInput, access: Access = {}): Promise<AssetAnswer> {
    return assetIn(this.store, this.knowledge.assets, id, input, access);
  }

  async org(input: InNamespaceInput, access: Access = {}): Promise<OrgAnswer> {
    return orgOf(this.store, input, access);
  }

  async changeOrg(input: OrgChangeInput, access: Access = {}): Promise<OrgChangeAnswer> {
    return changeOrgOf(this.store, input, access, access.actor ?? this.options.actor ?? 'kioku');
  }

  async stats(input: InNamespaceInput, access: Access = {}): Promise<StatsAnswer> {
    return namespaceStats(this.store, input, access);
  }

  async related(key: string, input: RelatedInput, access: Access = {}): Promise<RelatedAnswer> {
    return relatedItems(this.store, key, input, access, (this.options.config ?? recallConfigFromEnv()).plain_session_gap_min);
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

  async pipelineSnapshot(input: PipelineSnapshotInput, access: Access = {}): Promise<PipelineSnapshot> {
    return pipelineSnapshot(this.store, namespaceOf(input.namespace, access), input);
  }

  async pipelineJobs(input: PipelineJobsInput, access: Access = {}): Promise<PipelineJobs> {
    return pipelineJobs(this.store, namespaceOf(input.namespace, access), input);
  }

  async ingestStatus(access: Access = {}): Promise<IngestStatus> {
    // a caller confined to its namespace sees its counts only; the anonymous single user (or a service:read token) the store
    const ns = seesService(access) ? undefined : namespaceOf(undefined, access);
    return ingestStatus(this.store, this.core, ns, ns === undefined ? undefined : visibleIn(this.store, ns, access));
  }

  artifacts(traceId: string, access: Access = {}): Promise<ArtifactsAnswer> {
    return artifacts(this.store, traceId, access);
  }

  activity(input: ActivityInput, access: Access = {}): Promise<ActivityAnswer> {
    const { namespace, ...q } = parseInput(wire.activity, input ?? {}, 'activity');
    const ns = namespaceOf(namespace, access);
    return activity(this.store, ns, q, this.now().getTime(), visibleIn(this.store, ns, access));
  }

  async usage(key: string, access: Access = {}): Promise<UsageAnswer> {
    return usageOf(this.store, key, access);
  }

  /** the clock recall uses (KIOKU_CLOCK pins it), without loading the model for it */
  private now(): Date {
    return (this.options.now ?? clockFromEnv())?.() ?? new Date();
  }

  async list(input: ListInput, access: Access = {}): Promise<ListAnswer> {
    return listPage(this.store, input, access, this.now());
  }

  async importItems(input: ImportItemsInput, access: Access = {}): Promise<ImportItemsAnswer> {
    const { namespace, ...rest } = parseInput(wire.importItems, input ?? {}, 'import items');
    const ns = namespaceOf(namespace, access);
    // the same write rules as write memories (issue 34): in an org, owner and audience are decided
    // for the caller, a token acting as no member may not write, an id another member holds is taken
    const admitMemories = (memories: ImportedMemory[]): ImportedMemory[] => {
      requireWritable(this.store, memories.map((m) => ({ id: m.id, supersede_ids: m.supersede_ids ?? [] })), ns, access);
      return ownedWrites(this.store, memories, ns, access);
    };
    return importItems({ knowledge: this.knowledge, store: this.store, actor: access.actor ?? this.options.actor ?? 'kioku', admitMemories }, { ...rest, ns });
  }

  async revealSecret(input: RevealSecretInput, access: Access = {}): Promise<RevealedSecret> {
    return revealFor(this.store, input, access);
  }

  async verifyLog(input: VerifyLogInput, access: Access = {}): Promise<VerifyReport> {
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

  async logFrames(input: LogFramesInput, access: Access = {}): Promise<LogFramesAnswer> {
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

/** An id from a path (a memory's, for forget, supersede, audience: its id or its evidence key), checked as the command's schema checks it. */
function pathId(id: string, field: string, what: string, ns: string): string {
  return memoryIdOf(parseInput(z.strictObject({ [field]: itemIdSchema }), { [field]: id }, what)[field] as string, ns, field, what);
}
