// The indexing job: embeds items after their write was acknowledged (writes never
// wait for a model) and appends the vectors as embedding.computed events, with
// job.events for queued/running/succeeded/failed. Resumable by construction: what
// is planned is whatever the vector projection does not yet hold for this model.
import { randomBytes } from 'node:crypto';
import type { ProjectionRunner } from '../../projections/runner.js';
import { plainNeighbours, type PlainTurn } from '../../projections/graph.js';
import type { RecordEntry, RecordsProjection } from '../../projections/records/index.js';
import type { VectorProjection } from '../../projections/vector/index.js';
import { searchableText } from '../knowledge/item.js';
import { embedDocuments, type Embedder } from '../embed/index.js';
import { KiokuError } from '../errors.js';
import { encodeVector, type AppendInput } from '../events/index.js';
import { fingerprint, type Layer } from '../knowledge/evidence.js';
import { inConversation } from '../knowledge/item.js';
import { sameReaders } from '../knowledge/audience.js';
import type { EventStore } from '../log/index.js';
import { isMainlyCjk } from '../text/index.js';

export type EmbedLane = 'text' | 'window';

export interface EmbedTask {
  key: string;
  ns: string;
  lane: EmbedLane;
  text: string;
  fp: string;
}

export interface IndexerOptions {
  /** items per embedding call and per appended batch (default 32) */
  batchSize?: number;
  /** attempts per batch before the job fails (default 3) */
  maxAttempts?: number;
  /** first retry delay; doubles per attempt (default 500 ms) */
  retryDelayMs?: number;
  /** layers that get vectors (default all but episodes, which are cold) */
  layers?: readonly Layer[];
  /** neighbours on each side in a trace's context window (default 2) */
  windowRadius?: number;
  /**
   * Memories written without a session, at most this many minutes apart in one namespace, get a
   * window vector like a session's turns (recall's plain_session_gap_min; 0 = none, issue 35).
   */
  plainGapMin?: number;
  actor?: string;
}

export interface JobSummary {
  job_id: string;
  model: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'idle';
  planned: number;
  embedded: number;
  /** mainly-CJK items the model cannot read: left to the keyword lanes */
  skipped_cjk: number;
  error?: string;
  seconds: number;
  /** on a shared store, another node holds the embedding role: it embeds, this node reads its vectors */
  follower?: boolean;
}

export interface IndexerStore {
  log: EventStore;
  projections: ProjectionRunner;
}

const DEFAULT_LAYERS: readonly Layer[] = ['card', 'wiki', 'memory', 'note', 'trace', 'asset'];
/** Neighbours on each side that make up a trace's context window (LoCoMo dev R@10: radius 1 0.731, 2 0.746, 3 0.730). */
const WINDOW_RADIUS = 2;
/** A follower's pause before it answers (so waiting for vectors never spins) and its retry period (to take over from a leader that died). */
const FOLLOWER_PAUSE_MS = 200;
const FOLLOWER_RETRY_MS = 3_000;

export class EmbeddingIndexer {
  private running: Promise<JobSummary> | undefined;
  private last: JobSummary | undefined;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** a commit landed while a job ran: plan again when it ends, so no write is left behind */
  private dirty = false;
  /** set by stop(): the running job ends at once (it resumes on the next start) */
  private cancelled = false;
  /** aborts the running job's model call (stop()) */
  private abort: AbortController | undefined;
  private schedule: (() => void) | undefined;
  /** per item: the text, its fingerprint and whether the model can read it, valid while the item's seq is unchanged */
  private readonly textCache = new Map<string, { seq: number; text: string; fp: string; readable: boolean }>();

  constructor(
    private readonly store: IndexerStore,
    readonly embedder: Embedder,
    private readonly options: IndexerOptions = {},
  ) {}

  private get records(): RecordsProjection {
    return this.store.projections.views.records;
  }

  private get vectors(): VectorProjection {
    return this.store.projections.views.vector;
  }

  /** Everything that needs a (new) vector from this model, and how many CJK items were skipped. */
  plan(): { tasks: EmbedTask[]; skippedCjk: number } {
    const layers = this.options.layers ?? DEFAULT_LAYERS;
    const tasks: EmbedTask[] = [];
    let skippedCjk = 0;
    const textLane = this.vectors.lane('text', this.embedder.id);
    const windowLane = this.vectors.lane('window', this.embedder.id);
    const sessions = new Map<string, RecordEntry[]>();
    const plainGap = (this.options.plainGapMin ?? 0) * 60_000;
    for (const item of this.records.all({ layers })) {
      let cached = this.textCache.get(item.key);
      if (!cached || cached.seq !== item.seq) {
        const text = searchableText(item).trim();
        cached = { seq: item.seq, text, fp: text ? fingerprint(text) : '', readable: this.embedder.readsCjk || !isMainlyCjk(text) };
        this.textCache.set(item.key, cached);
      }
      const { text, fp } = cached;
      if (!text) continue;
      if (!cached.readable) {
        skippedCjk += 1;
        continue;
      }
      if (textLane?.fingerprintOf(item.key) !== fp) tasks.push({ key: item.key, ns: item.ns, lane: 'text', text, fp });
      // a plain memory joins its namespace's run of plain memories while the gap rule is on, and also
      // when the rule is off (gap 0) but it holds a window vector embedded under it: that window would
      // go on lending it a neighbour's words, so it is embedded again from its own text (below)
      const plain = item.layer === 'memory' && (plainGap > 0 || windowLane?.fingerprintOf(item.key) !== undefined);
      const group = inConversation(item) ? `${item.ns}\u0000${item.session_id}` : plain ? `${item.ns}\u0001plain` : undefined;
      if (group !== undefined) {
        const list = sessions.get(group) ?? [];
        list.push(item);
        sessions.set(group, list);
      }
    }
    // The window lane: each turn of a conversation embedded with its neighbours in the same session (architecture.md §measured).
    const radius = this.options.windowRadius ?? WINDOW_RADIUS;
    for (const [group, all] of sessions) {
      all.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at) || a.seq - b.seq);
      // a window holds only texts the same callers see (issue 34: another member's private memory lends yours no words)
      const runs = splitAtReaders(all).flatMap((same) => (!group.endsWith('\u0001plain') ? [same] : plainGap > 0 ? splitAtGaps(same, plainGap) : []));
      for (const turns of runs) this.windowTasks(turns, radius, windowLane, tasks);
      // one left alone since its window was embedded (its neighbour forgotten, or no longer its neighbour)
      // gets a window of its own text: the old one would go on finding it by the other's words
      const inRun = new Set(runs.flatMap((run) => run.map((e) => e.key)));
      for (const e of all) if (!inRun.has(e.key) && windowLane?.fingerprintOf(e.key) !== undefined) this.windowTasks([e], 0, windowLane, tasks);
    }
    return { tasks, skippedCjk };
  }

  /** Each turn of a run embedded with its neighbours within `radius`, when its window changed. */
  private windowTasks(turns: RecordEntry[], radius: number, windowLane: ReturnType<VectorProjection['lane']>, tasks: EmbedTask[]): void {
    turns.forEach((t, i) => {
      const text = turns
        .slice(Math.max(0, i - radius), i + radius + 1)
        .map((n) => n.text)
        .join('\n');
      const fp = fingerprint(text);
      if (windowLane?.fingerprintOf(t.key) !== fp) tasks.push({ key: t.key, ns: t.ns, lane: 'window', text, fp });
    });
  }

  /** Items that wait for a vector from this model (recall reports the vector lane as unavailable for them). */
  waiting(): number {
    return this.plan().tasks.filter((t) => t.lane === 'text').length;
  }

  /** Items that wait for a text vector, per namespace (a namespace with none is absent). */
  waitingByNamespace(): Map<string, number> {
    const out = new Map<string, number>();
    for (const t of this.plan().tasks) if (t.lane === 'text') out.set(t.ns, (out.get(t.ns) ?? 0) + 1);
    return out;
  }

  /**
   * Resolves once none of `keys` waits for a vector (text or window lane), running jobs as
   * needed, or after `timeoutMs`. Returns how many of them still wait (0 = all embedded).
   */
  async whenEmbedded(keys: readonly string[], timeoutMs: number): Promise<{ waiting: number; timed_out: boolean }> {
    const wanted = new Set(keys);
    const pending = (): number =>
      new Set(
        this.plan()
          .tasks.filter((t) => wanted.has(t.key))
          .map((t) => t.key),
      ).size;
    const deadline = Date.now() + timeoutMs;
    let left = pending();
    while (left > 0 && Date.now() < deadline && !this.cancelled) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now()))));
      const outcome = await Promise.race([this.run(), timeout]);
      clearTimeout(timer);
      left = pending();
      if (outcome === 'timeout') break;
      if (outcome.status === 'failed') {
        // the embedder failed: wait out a short back-off rather than spin
        await new Promise((r) => setTimeout(r, Math.min(1_000, Math.max(0, deadline - Date.now()))));
      }
    }
    return { waiting: left, timed_out: left > 0 };
  }

  /** Run one job now (or join the one running). */
  run(onProgress?: (done: number, total: number) => void): Promise<JobSummary> {
    this.running ??= this.execute(onProgress).finally(() => {
      this.running = undefined;
      // writes that landed while the job ran are planned now, without waiting for another write
      if (this.dirty && this.schedule && !this.cancelled) {
        this.dirty = false;
        this.schedule();
      }
    });
    return this.running;
  }

  private async execute(onProgress?: (done: number, total: number) => void): Promise<JobSummary> {
    const started = performance.now();
    // plan against projections that hold the whole log: a vector projection still reading its
    // graphs at start-up (restoreFilesInBackground) would look empty and everything re-embedded
    await this.store.projections.restored();
    const { tasks, skippedCjk } = this.plan();
    const jobId = `embed-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    const summary: JobSummary = {
      job_id: jobId,
      model: this.embedder.id,
      status: 'idle',
      planned: tasks.length,
      embedded: 0,
      skipped_cjk: skippedCjk,
      seconds: 0,
    };
    if (tasks.length === 0 || this.cancelled) {
      // nothing to do (or stopped): the last job that ran stays the one reported, not this check
      // (issue 31: last_job said "idle, planned 0" right after 148 items were embedded)
      if (!this.last || this.last.status === 'idle' || this.last.follower) this.last = summary;
      return summary;
    }
    // one embedding job per shared library: the others would append the same vectors again
    if (this.store.log.holdsRole && !(await this.store.log.holdsRole('embedding'))) {
      await new Promise((r) => setTimeout(r, FOLLOWER_PAUSE_MS));
      return (this.last = { ...summary, follower: true, seconds: (performance.now() - started) / 1000 });
    }
    const actor = this.options.actor ?? 'indexer';
    const job = (
      status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled',
      extra: { detail?: string; progress?: { done: number; total: number } } = {},
    ): AppendInput => ({
      type: 'job.event',
      actor,
      data: { job_id: jobId, stage: `embed:${this.embedder.id}`, status, ...extra },
    });
    await this.store.log.appendAll([
      job('queued', { progress: { done: 0, total: tasks.length } }),
      job('running', { progress: { done: 0, total: tasks.length } }),
    ]);
    const batchSize = this.options.batchSize ?? 32;
    let lastSeq = this.store.log.head().seq;
    const abort = (this.abort = new AbortController());
    if (this.cancelled) abort.abort();
    try {
      await this.embedder.init();
      for (let i = 0; i < tasks.length; i += batchSize) {
        if (this.cancelled) break;
        const batch = tasks.slice(i, i + batchSize);
        const vectors = await this.withRetries(
          () =>
            embedDocuments(
              this.embedder,
              batch.map((t) => t.text),
              { batch: batchSize, signal: abort.signal },
            ),
          abort.signal,
        );
        const events: AppendInput[] = batch.map((t, j) => {
          const v = vectors[j] as Float32Array;
          return {
            type: 'embedding.computed',
            ns: t.ns,
            actor,
            data: {
              evidence_key: t.key,
              model: this.embedder.id,
              lane: t.lane,
              dim: v.length,
              vector: encodeVector(v, 'f16'),
              encoding: 'f16',
              fingerprint: t.fp,
            },
          };
        });
        const appended = await this.store.log.appendAll(events);
        lastSeq = appended.at(-1)?.seq ?? lastSeq;
        summary.embedded += batch.length;
        onProgress?.(summary.embedded, tasks.length);
      }
      const status = summary.embedded < tasks.length ? 'cancelled' : 'succeeded';
      await this.store.log.append(job(status, { progress: { done: summary.embedded, total: tasks.length } }));
      summary.status = status;
      this.failures = 0;
    } catch (err) {
      // a stop abandons the model call in flight: the job is cancelled, not failed (no back-off)
      summary.status = abort.signal.aborted ? 'cancelled' : 'failed';
      summary.error = err instanceof Error ? err.message : String(err);
      if (summary.status === 'failed') this.failures += 1;
      await this.store.log
        .append(job(summary.status, { detail: summary.error.slice(0, 2_000), progress: { done: summary.embedded, total: tasks.length } }))
        .catch(() => undefined);
    } finally {
      if (this.abort === abort) this.abort = undefined;
    }
    await this.store.projections.waitFor(lastSeq);
    summary.seconds = Math.round((performance.now() - started) / 10) / 100;
    return (this.last = summary);
  }

  private async withRetries<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const attempts = this.options.maxAttempts ?? 3;
    let delay = this.options.retryDelayMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= attempts || signal.aborted)
          throw err instanceof KiokuError ? err : new KiokuError('KIOKU_EMBEDDER_FAILED', `${this.embedder.id}: ${(err as Error).message}`, { cause: err });
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }

  /** Follow the log: after writes settle, embed what is new. Failed jobs back off (up to 5 min). */
  start(debounceMs = 250): void {
    if (this.unsubscribe) return;
    this.cancelled = false;
    const schedule = (): void => {
      if (this.timer) clearTimeout(this.timer);
      const backoff = this.failures ? Math.min(300_000, 1_000 * 2 ** this.failures) : this.last?.follower ? FOLLOWER_RETRY_MS : debounceMs;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        // a refused append (a full disk) fails the run before its try: back off as a failed job does, never an unhandled rejection
        void this.run().then(
          (s) => {
            if (s.status === 'failed' || s.follower) schedule();
          },
          () => {
            this.failures += 1;
            schedule();
          },
        );
      }, backoff);
      this.timer.unref();
    };
    this.schedule = schedule;
    this.unsubscribe = this.store.log.onCommit(() => {
      // our own embedding events also commit; only a plan with work starts a job
      if (this.running) this.dirty = true;
      else schedule();
    });
    schedule();
  }

  /**
   * Stop following the log. A running job is cancelled at once: the model call in flight is
   * abandoned (the bundled model's thread is ended), so a stop never waits for a batch or the
   * backlog; what is left is planned again on the next start.
   */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.schedule = undefined;
    this.cancelled = true;
    this.abort?.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) await this.running;
  }

  status(): { running: boolean; last: JobSummary | undefined } {
    return { running: this.running !== undefined, last: this.last };
  }
}

/** Turns in order cut wherever the next one is seen by other callers than the one before it (sameReaders); a lone one stays a run. */
export function splitAtReaders(sorted: readonly RecordEntry[]): RecordEntry[][] {
  const runs: RecordEntry[][] = [];
  for (const item of sorted) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && sameReaders(last, item)) run.push(item);
    else runs.push([item]);
  }
  return runs;
}

/** A namespace's plain memories (sorted by time) cut into runs wherever two are not neighbours (plainNeighbours: recall's rule); a lone memory has no window. */
export function splitAtGaps(sorted: readonly RecordEntry[], gapMs: number): RecordEntry[][] {
  const runs: RecordEntry[][] = [];
  let run: RecordEntry[] = [];
  const turn = (e: RecordEntry): PlainTurn => ({ t: Date.parse(e.occurred_at) || 0, text: e.text });
  for (const item of sorted) {
    const last = run.at(-1);
    if (last && !plainNeighbours(turn(last), turn(item), gapMs)) {
      if (run.length > 1) runs.push(run);
      run = [];
    }
    run.push(item);
  }
  if (run.length > 1) runs.push(run);
  return runs;
}
