// The pipeline as the facade answers it: what is indexed and what waits for vectors (ingest
// status), job events by stage and status (snapshot, list), and everything recorded for one turn
// (artifacts). These used to be read inside the HTTP routes; as facade methods RemoteKioku reaches
// them too. Each takes the namespace the facade settled (undefined: the whole store, for a caller
// who sees the service) and validated input.
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { eventSchemas, namespaceSchema, readableEventData, type EventData } from '../events/index.js';
import type { JobSummary } from '../indexer/embedding-job.js';
import type { Head } from '../log/index.js';
import type { JobState } from '../../projections/jobs.js';
import type { ProjectionStatus } from '../../projections/runner.js';
import { visibleTurn } from '../recall/turns.js';
import type { Access } from '../access.js';
import type { KiokuStore } from '../store.js';
import type { RecordEntry } from '../knowledge/item.js';
import { canSee, orgCaller } from '../knowledge/audience.js';
import { evidenceKey } from '../knowledge/evidence.js';
import type { createRecallCore } from '../recall/index.js';

/** The statuses a job event may carry: the event catalog's own list. */
export const JOB_STATUSES: readonly EventData<'job.event'>['status'][] = eventSchemas['job.event'].shape.status.options;

// The schemas document the queries (OpenAPI); the values are checked by hand below, with the
// messages the routes always gave.
/** GET /v1/pipeline/snapshot: the last `days` days (default 7). */
export const pipelineSnapshotSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  days: z.number().optional(),
});
/** GET /v1/pipeline/jobs: newest first, filtered. */
export const pipelineJobsSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  stage: z.string().max(200).optional(),
  status: z.string().max(50).optional(),
  limit: z.number().optional(),
});
export type PipelineSnapshotInput = z.input<typeof pipelineSnapshotSchema>;
export type PipelineJobsInput = z.input<typeof pipelineJobsSchema>;

export interface IngestStatus {
  /** a caller confined to one namespace: that namespace (its counts only) */
  namespace?: string;
  /** the log's head: for a caller who sees the whole service */
  head?: Head;
  items: { total: number; active: number; by_layer: Record<string, number> };
  embedder: string | null;
  waiting_for_vectors: number;
  indexing: { running: boolean; pending: number; last_job?: JobSummary | null };
  projections?: ProjectionStatus[];
}

export interface PipelineSnapshot {
  days: number;
  since: string;
  by_stage: Record<string, Record<string, number>>;
  total: number;
}

export interface PipelineJobs {
  jobs: JobState[];
}

export interface ArtifactsAnswer {
  trace_id: string;
  session_id: string;
  namespace: string;
  completed: boolean;
  /** the turn was forgotten (issue 33): its events are listed without their data, and this is its tombstone */
  forgotten?: { at: string; by: string; purged?: true };
  events: { seq: number; ts: string; type: string; hash: string; data: unknown }[];
}

type Core = ReturnType<typeof createRecallCore>;

/** What is indexed, what waits for vectors, the last embedding job; `ns` undefined: the whole store. */
/** `visible`: the caller's audience (issue 34): items it may not see are not counted. */
export function ingestStatus(store: KiokuStore, core: Core, ns: string | undefined, visible?: (e: RecordEntry) => boolean): IngestStatus {
  const status = core.indexer.status();
  // one plan for both counts (planning walks every item)
  const records = store.projections.views.records;
  const seen = (key: string): boolean => visible === undefined || !records.get(key) || visible(records.get(key) as RecordEntry);
  const tasks = core.indexer.plan().tasks.filter((t) => (ns === undefined || t.ns === ns) && seen(t.key));
  return {
    ...(ns ? { namespace: ns } : { head: store.log.head() }),
    items: records.counts(ns, visible),
    embedder: core.embedder?.id ?? null,
    waiting_for_vectors: tasks.filter((t) => t.lane === 'text').length,
    // every embedding still to compute (text and window lanes): 0 once the library is fully indexed
    // for a namespaced token "running" means working on its items: a job run for another namespace's writes is not its business
    indexing: { running: status.running && (ns === undefined || tasks.length > 0), pending: tasks.length, ...(ns ? {} : { last_job: status.last ?? null }) },
    ...(ns ? {} : { projections: store.projections.status() }),
  };
}

/** Job events of the last `days` days, by stage and status. */
export function pipelineSnapshot(store: KiokuStore, ns: string, input: PipelineSnapshotInput): PipelineSnapshot {
  // checked by hand, as cold and deliveryReport check theirs: a query string's NaN is refused with this message
  const days = input.days ?? 7;
  if (!Number.isFinite(days) || days <= 0 || days > 3650)
    throw new KiokuError('KIOKU_INPUT_INVALID', 'days must be between 0 and 3650', { details: { field: 'days' } });
  return { days, ...store.projections.views.jobs.summary(ns, days) };
}

/** Jobs, newest first, filtered by stage and status. */
export function pipelineJobs(store: KiokuStore, ns: string, input: PipelineJobsInput): PipelineJobs {
  const q = input;
  const limit = q.limit ?? 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500) throw new KiokuError('KIOKU_INPUT_INVALID', 'limit must be 1–500', { details: { field: 'limit' } });
  if (q.status !== undefined && q.status !== '' && !(JOB_STATUSES as readonly string[]).includes(q.status))
    throw new KiokuError('KIOKU_INPUT_INVALID', `status must be one of ${JOB_STATUSES.join(', ')}`, { details: { field: 'status' } });
  return {
    jobs: store.projections.views.jobs.list({ ns, ...(q.stage ? { stage: q.stage } : {}), ...(q.status ? { status: q.status } : {}), limit }),
  };
}

/** Everything recorded for one turn; another namespace's turn answers as a missing one (404 alike), never 403. */
export async function artifacts(store: KiokuStore, traceId: string, access: Access): Promise<ArtifactsAnswer> {
  const turn = visibleTurn(store.projections.views, traceId, access);
  // another member's turn answers as a missing one (the one audience policy, issue 34)
  const trace = store.projections.views.records.get(evidenceKey({ ns: turn.ns, layer: 'trace', id: traceId }));
  if (trace && !canSee(trace, orgCaller(store.projections.views.org.org(turn.ns), access.principal, access.orgAdmin === true)))
    throw new KiokuError('KIOKU_NOT_FOUND', `no turn ${traceId}`, { details: { field: 'turn_id' } });
  // forgotten is gone from every view (issue 33): the events' data hold its text, so only their place in the chain is shown
  const forgotten = trace?.status === 'forgotten' ? (trace.tombstone ?? { at: '', by: '' }) : undefined;
  const events: ArtifactsAnswer['events'] = [];
  for (const seq of turn.seqs) {
    const r = await store.log.get(seq);
    // recall and verdict events are stored in columns (issue 31): shown one object per candidate
    if (r) events.push({ seq: r.seq, ts: new Date(r.ts).toISOString(), type: r.type, hash: r.hash, data: forgotten ? {} : readableEventData(r.type, r.data) });
  }
  return { trace_id: traceId, session_id: turn.session_id, namespace: turn.ns, completed: turn.completed !== undefined, ...(forgotten ? { forgotten } : {}), events };
}
