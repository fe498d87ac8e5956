// The projection runner: loads snapshots that match the log, replays the tail,
// follows new commits, snapshots periodically and on close, rebuilds on demand.
import { KiokuError, isKiokuError } from '../src/errors.js';
import type { LogRecord } from '../src/events/index.js';
import { GENESIS_HASH_HEX, decodeRecord, peekType, type EventStore, type Head } from '../src/log/index.js';
import type { Projection } from './projection.js';
import { VIEW_NAMES, type Views } from './views.js';
import { SLICE_MS } from './slices.js';
import {
  FoldWorker,
  FoldWorkerLost,
  WorkerFold,
  foldWorkerScript,
  foldableOnWorker,
  type FoldWorkerScript,
  type FoldedProjection,
} from './worker-fold/index.js';
import { join } from 'node:path';
import { checkParts, partsMissing, syncParts } from './snapshot-parts.js';
import {
  packState,
  pruneSideFiles,
  readSnapshotFileAsync,
  sideFilesDir,
  unpackState,
  writeSnapshotFile,
  STATE_ENCODING,
  type SnapshotFile,
  type SnapshotRead,
} from './snapshot-file.js';

/** How often (in events) a catch-up reports its progress. */
const PROGRESS_EVERY = 5_000;

export interface RunnerOptions {
  /** where snapshot files live; without it nothing is snapshotted (in-memory stores) */
  snapshotDir?: string;
  /** snapshot a projection once it is this many events past its last snapshot (default 10,000) */
  snapshotEvery?: number;
  /**
   * and once at least this many times the last snapshot's duration has passed since it (default
   * 20: at most ~5% of the time goes to periodic snapshots, whatever the library's size)
   */
  snapshotSpacing?: number;
  onWarning?: (message: string) => void;
  /**
   * Let open() return while projections with side files (the HNSW graphs: a second and a half at
   * 100k, most of a minute's start at 1M) finish reading them. Until then such a projection is
   * `loading`: it is not caught up, `waitFor` waits for it (so a turn's recall, and every write
   * that waits for its own effects, sees it whole), and direct readers of its view see it empty.
   * For the long-running service, whose reads that need vectors also need the model, which is
   * loading meanwhile; tools that read views right after open keep the default (off).
   */
  restoreFilesInBackground?: boolean;
  /**
   * Fold the projections a worker thread can build (keyword, records, graph: see
   * projections/worker-fold/registry.ts) on one when at least this many events are to be folded
   * from genesis — a rebuild, or a first open without snapshots — while this thread folds the
   * rest (default 20,000; Infinity: never). Below it a worker's start-up costs more than it saves.
   */
  foldOnWorkerFrom?: number;
  /** the fold worker's script (default: the one installed with Kioku; tests point it elsewhere) */
  foldWorker?: FoldWorkerScript;
  /**
   * Open a record decoded from raw frames (a rebuild reads frames, not records): sealed texts
   * opened with their data keys (issue 33, src/privacy/seal.ts), as the store opens what it reads.
   */
  openRecord?: (record: LogRecord) => LogRecord;
  /** the data keys a fold worker opens sealed texts with (kid, key) */
  sealKeys?: () => { kid: string; key: Uint8Array }[];
}

export interface ProjectionStatus {
  name: string;
  version: number;
  /** last applied seq */
  seq: number;
  /** how the projection started: from a matching snapshot, or from genesis */
  source: 'snapshot' | 'genesis';
  snapshot_seq: number;
  /** still reading its side files (see RunnerOptions.restoreFilesInBackground) */
  loading?: true;
  /** why its snapshot was discarded at open (it was folded again from the log instead) */
  discarded?: string;
  failed?: { code: string; message: string; seq: number };
}

export type ProgressFn = (done: number, total: number) => void;

interface Slot {
  projection: Projection;
  seq: number;
  hash: string;
  source: 'snapshot' | 'genesis';
  snapshotSeq: number;
  /** a snapshot file matching snapshotSeq exists */
  hasSnapshot: boolean;
  /** when the last snapshot was written, and how long it took (ms) */
  snapshotAt: number;
  snapshotMs: number;
  /** bytes of its last snapshot's packed state (read or written): what the next packing is sized for */
  snapshotBytes: number;
  failed: KiokuError | undefined;
  failedSeq: number;
  /** side files still being read in the background: not caught up until this settles */
  restoring: Promise<void> | undefined;
  /** the state a fold worker packed, at `seq`: written as is by the next snapshot if nothing was applied since */
  packed: { seq: number; state: Uint8Array; checksum: string } | undefined;
  /** why its snapshot was discarded, if it was */
  discarded: string | undefined;
}

export class ProjectionRunner {
  private readonly log: EventStore;
  private readonly slots = new Map<string, Slot>();
  private readonly options: RunnerOptions;
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private waiters: { seq: number; resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** why following the log stopped (a record that does not decode, a store out of reach), while it stays stopped */
  private stalled: { error: string; after_seq: number; since: number } | undefined;
  private opened = false;
  private retry: NodeJS.Timeout | undefined;
  private lastFailure: string | undefined;

  constructor(log: EventStore, projections: readonly Projection[], options: RunnerOptions = {}) {
    this.log = log;
    this.options = options;
    for (const projection of projections) {
      if (this.slots.has(projection.name)) throw new Error(`projection registered twice: ${projection.name}`);
      this.slots.set(projection.name, {
        projection,
        seq: 0,
        hash: GENESIS_HASH_HEX,
        source: 'genesis',
        snapshotSeq: 0,
        hasSnapshot: false,
        snapshotAt: 0,
        snapshotMs: 0,
        snapshotBytes: 0,
        failed: undefined,
        failedSeq: 0,
        restoring: undefined,
        packed: undefined,
        discarded: undefined,
      });
    }
  }

  /** Load usable snapshots, replay the tail, then follow the log. */
  async open(onProgress?: ProgressFn): Promise<ProjectionStatus[]> {
    await this.loadSnapshots();
    this.unsubscribe = this.log.onCommit(() => this.schedule(() => this.catchUp()).catch(() => undefined));
    await this.schedule(() => this.catchUp(onProgress));
    this.opened = true;
    // what a snapshot load left unbuilt (records' lookups, the vector projection's live map): built in
    // slices between requests, not in the first query, and while the HNSW graphs are still being read
    // (at a million items the graphs' arrival re-derives every label's group from the live map)
    this.warmUp();
    return this.status();
  }

  /** One slice of every projection's warm-up on an idle turn, then the next, until none is left. */
  private warmUp(): void {
    setTimeout(() => {
      if (!this.opened) return;
      this.schedule(async () => {
        let left = false;
        for (const slot of this.slots.values()) if (!slot.failed && slot.projection.warm && !slot.projection.warm(SLICE_MS)) left = true;
        if (left) this.warmUp();
      }).catch(() => undefined);
    }, 0).unref();
  }

  /**
   * Every usable snapshot, loaded. All files are read at once, off this thread; each is checked and
   * loaded as soon as it arrives, so the large ones' reads overlap the others' unpacking. Side files
   * (an HNSW graph: over a second at 100k, most of the start at 1M) start reading as soon as their
   * snapshot is checked, before any other snapshot is unpacked on this thread.
   */
  private async loadSnapshots(): Promise<void> {
    const dir = this.options.snapshotDir;
    if (!dir) return;
    const slots = [...this.slots.values()];
    const partsChecked = new Map<Slot, Promise<void>>();
    const checks = slots.map((slot) =>
      this.usableSnapshot(slot, readSnapshotFileAsync(dir, slot.projection.name)).then((snap) => {
        if (snap?.files && slot.projection.restoreFiles) partsChecked.set(slot, this.sideFilesChecked(slot.projection, join(dir, slot.projection.name, snap.files), snap));
        return snap;
      }),
    );
    const filesStarted = Promise.all(slots.map((slot, i) => (slot.projection.restoreFiles ? checks[i] : undefined)));
    filesStarted.catch(() => undefined); // a failed check is reported through its own slot's load below
    await Promise.all(
      slots.map(async (slot, i) => {
        const snap = await checks[i];
        if (!snap) return;
        if (!slot.projection.restoreFiles) await filesStarted;
        await this.loadSnapshot(slot, snap, partsChecked.get(slot));
      }),
    );
  }

  /**
   * Start checking the side files' bytes against the snapshot's list of them (older snapshots
   * list none) and, meanwhile, reading them (prefetchFiles: hnswlib's own thread). The check's
   * chunks take ~1.5 s of this thread at a million items, spread between other work; it runs
   * beside the graph's read (~20 s there), not before it, so the files arrive no later. What was
   * read is only used once the check passes (restoreFiles waits for it): a damaged graph is
   * never searched.
   */
  private sideFilesChecked(projection: Projection, folder: string, snap: SnapshotFile): Promise<void> {
    const checked = snap.parts ? checkParts(folder, snap.parts) : Promise.resolve();
    checked.catch(() => undefined); // reported by the load that waits for it
    try {
      projection.prefetchFiles?.(folder);
    } catch {
      // a read that cannot start early is started again, or reported, by restoreFiles
    }
    return checked;
  }

  private discard(slot: Slot, why: string): void {
    this.toGenesis(slot);
    slot.discarded = why;
    this.warn(`projection ${slot.projection.name}: snapshot discarded (${why}); rebuilding from genesis`);
  }

  /** The projection back to its empty state, to be folded again from the log's first record. */
  private toGenesis(slot: Slot): void {
    slot.projection.reset();
    Object.assign(slot, { seq: 0, hash: GENESIS_HASH_HEX, source: 'genesis', failed: undefined, failedSeq: 0, hasSnapshot: false, packed: undefined });
  }

  /** The slot's snapshot when it matches this log, else undefined (a reason is warned unless it is simply missing). */
  private async usableSnapshot(slot: Slot, reading: Promise<SnapshotRead>): Promise<SnapshotFile | undefined> {
    const name = slot.projection.name;
    const snap = await reading;
    if ('missing' in snap) return undefined;
    const discard = (why: string): undefined => void this.discard(slot, why);
    if ('invalid' in snap) return discard(snap.invalid);
    if (snap.name !== name || snap.version !== slot.projection.version)
      return discard(`written by ${snap.name} v${snap.version}, need v${slot.projection.version}`);
    const head = this.log.head();
    if (snap.seq > head.seq) return discard(`snapshot is at ${snap.seq}, the log ends at ${head.seq}`);
    const at = snap.seq === 0 ? GENESIS_HASH_HEX : (await this.log.get(snap.seq))?.hash;
    if (at !== snap.hash) return discard(`the log holds a different record at ${snap.seq}`);
    // side files gone or cut short: found by their sizes before anything is loaded (their bytes are checked as they are read)
    const missing = snap.files && slot.projection.restoreFiles && (await partsMissing(join(this.options.snapshotDir as string, name, snap.files), snap.parts));
    if (missing) return discard(`load failed: ${missing}`);
    return snap;
  }

  private async loadSnapshot(slot: Slot, snap: SnapshotFile, partsChecked: Promise<void> | undefined): Promise<void> {
    const dir = this.options.snapshotDir as string;
    const name = slot.projection.name;
    try {
      slot.projection.load(unpackState(snap));
      slot.snapshotBytes = snap.state.length;
      snap.state = new Uint8Array(0); // let the packed bytes go while the rest loads
      if (slot.projection.restoreFiles) {
        if (!snap.files) throw new Error('snapshot has no side files');
        const folder = join(dir, name, snap.files);
        const restoreFiles = slot.projection.restoreFiles.bind(slot.projection);
        const restored = partsChecked ? partsChecked.then(() => restoreFiles(folder)) : restoreFiles(folder);
        if (this.options.restoreFilesInBackground && restored instanceof Promise) slot.restoring = this.inBackground(slot, restored);
        else await restored;
      }
    } catch (err) {
      return this.discard(slot, `load failed: ${(err as Error).message}`);
    }
    slot.seq = snap.seq;
    slot.hash = snap.hash;
    slot.source = 'snapshot';
    slot.snapshotSeq = snap.seq;
    // a snapshot in an older format (or whose side files are not listed) is written again in the current one at the next snapshot
    slot.hasSnapshot = snap.encoding === STATE_ENCODING && !slot.projection.loadedOlderFormat && (!snap.files || snap.parts !== undefined);
  }

  /** A projection whose side files are still being read: caught up once they are, rebuilt from genesis if they fail. */
  private inBackground(slot: Slot, restored: Promise<void>): Promise<void> {
    const arrived = restored.then(
      () => {
        slot.restoring = undefined;
      },
      (err: unknown) => {
        slot.restoring = undefined;
        this.discard(slot, `load failed: ${(err as Error).message}`);
        slot.snapshotSeq = 0;
      },
    );
    this.restorations.push(arrived.then(() => this.schedule(() => this.catchUp())).catch(() => undefined));
    return arrived;
  }

  /** files being read in the background, each followed by its projection's catch-up */
  private restorations: Promise<void>[] = [];

  /** Resolves once no projection is still reading its side files and each has caught up (at once when none was). */
  async restored(): Promise<void> {
    await Promise.all(this.restorations);
  }

  // All reads and applies run one at a time, in seq order. A read that fails (a shared store
  // out of reach) is retried while the runner follows the log, so waiters and tails resume
  // when the store comes back, with no new commit needed to wake them.
  private schedule(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch((err: unknown) => {
      const message = `projection runner: ${(err as Error).message}`;
      if (message !== this.lastFailure) this.warn(message);
      this.lastFailure = message;
      this.stalled ??= { error: (err as Error).message, after_seq: this.minSeq(), since: Date.now() };
      // a store out of reach comes back; a record that cannot be read does not: its waiters are told, not left hanging
      if (!isKiokuError(err, 'KIOKU_STORE_UNAVAILABLE')) this.failWaiters(err);
      if (this.unsubscribe && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          void this.schedule(() => this.catchUp()).then(
            () => (this.lastFailure = undefined),
            () => undefined,
          );
        }, 500);
        this.retry.unref();
      }
    });
    return run;
  }

  /**
   * Fold every active projection up to the head. `snapshotFolded`: write the snapshot of each one
   * folded on this thread as soon as it is done (a rebuild's), while a fold worker finishes.
   */
  private async catchUp(onProgress?: ProgressFn, only?: ReadonlySet<string>, snapshotFolded = false): Promise<void> {
    const active = [...this.slots.values()].filter((s) => !s.failed && !s.restoring && (!only || only.has(s.projection.name)));
    if (active.length === 0) return this.settleWaiters();
    const head = this.log.head();
    const from = Math.min(...active.map((s) => s.seq)) + 1;
    if (from > head.seq) return this.settleWaiters();
    const elsewhere = this.foldableElsewhere(active, head.seq);
    const worker = elsewhere.length > 0 ? this.startWorkerFold(elsewhere) : undefined;
    let taken = false;
    try {
      const here = worker ? active.filter((slot) => !elsewhere.includes(slot)) : active;
      await this.fold(here, from, head.seq, onProgress, worker && { fold: worker, types: typesOf(elsewhere) });
      if (worker) {
        const folded = worker.finish();
        if (snapshotFolded) for (const slot of here) this.writeSnapshot(slot);
        await this.takeFolded(folded, elsewhere, head);
      }
      taken = true;
    } finally {
      if (worker && !taken) this.stopFoldWorker(); // a fold left half way: its worker is not reused
    }
    this.maybeSnapshot();
    if (this.purgeFolded) this.rewriteSnapshots();
    this.settleWaiters();
  }

  /** a `purged` event was folded since the snapshots were last rewritten */
  private purgeFolded = false;

  /**
   * After a purge was folded, from whichever node of a shared store it came (issue 33): every
   * snapshot on disk is written again from the projections, which dropped the purged text, so no
   * plaintext stays in a file here.
   */
  private rewriteSnapshots(): void {
    this.purgeFolded = false;
    for (const slot of this.slots.values()) {
      if (slot.seq === slot.snapshotSeq && slot.hasSnapshot) continue;
      try {
        this.writeSnapshot(slot);
      } catch (err) {
        this.warn(`projection ${slot.projection.name}: snapshot at ${slot.seq} after a purge failed: ${(err as Error).message}`);
      }
    }
  }

  /**
   * Apply records from..to to `slots` on this thread, and hand `worker` the frames of the types
   * its projections act on (read from each record decoded here, else peeked from the frame).
   */
  private async fold(
    slots: Slot[],
    from: number,
    to: number,
    onProgress?: ProgressFn,
    worker?: { fold: WorkerFold; types: ReadonlySet<string> | undefined },
  ): Promise<void> {
    const total = to - from + 1;
    const types = worker?.types;
    let done = 0;
    for await (const frames of this.log.readFrames({ from, to })) {
      const wanted: Uint8Array[] = []; // the worker's share, by the type of each record decoded here
      if (slots.length > 0)
        for (const frame of frames) {
          const record = this.unsealed(decodeRecord(frame));
          if (record.type === 'purged') this.purgeFolded = true;
          if (types?.has(record.type)) wanted.push(frame);
          for (const slot of slots) {
            if (slot.failed || slot.seq >= record.seq) continue;
            this.applyTo(slot, record);
          }
        }
      // no types named: every frame; nothing decoded here: the frames' types peeked
      const handed = !types ? frames : slots.length > 0 ? wanted : frames.filter((frame) => types.has(peekType(frame)));
      const room = worker?.fold.push(handed);
      const before = done;
      done += frames.length;
      if (onProgress && Math.floor(done / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) onProgress(done, total);
      await room;
    }
    onProgress?.(done, total);
  }

  /** Slots to fold on a worker: foldable there, starting from genesis, with enough events to be worth a thread. */
  private foldableElsewhere(active: Slot[], head: number): Slot[] {
    if (head < (this.options.foldOnWorkerFrom ?? 20_000)) return [];
    return active.filter((slot) => slot.seq === 0 && foldableOnWorker(slot.projection));
  }

  private startWorkerFold(slots: Slot[]): WorkerFold | undefined {
    try {
      if (!this.foldWorker || this.foldWorker.lost) {
        const where = this.options.foldWorker ?? foldWorkerScript();
        if (!where) return undefined;
        this.foldWorker = new FoldWorker(where);
      }
      return this.foldWorker.start(
        slots.map((slot) => slot.projection.name),
        this.options.sealKeys?.().map((k): [string, Uint8Array] => [k.kid, k.key]),
      );
    } catch (err) {
      this.warn(`projection runner: no fold worker (${(err as Error).message}); folding on this thread`);
      return undefined;
    }
  }

  private unsealed(record: LogRecord): LogRecord {
    return this.options.openRecord ? this.options.openRecord(record) : record;
  }

  /** kept between folds (see FoldWorker) */
  private foldWorker: FoldWorker | undefined;

  private stopFoldWorker(): void {
    this.foldWorker?.close();
    this.foldWorker = undefined;
  }

  /**
   * Load what the worker folded: each projection is where the fold ended (`head`), or just
   * before the record it failed at. A worker lost on the way costs time, not correctness: its
   * projections are folded again here, from genesis.
   */
  private async takeFolded(finished: Promise<FoldedProjection[]>, slots: Slot[], head: Head): Promise<void> {
    let folded: FoldedProjection[];
    try {
      folded = await finished;
    } catch (err) {
      if (!(err instanceof FoldWorkerLost)) throw err;
      this.stopFoldWorker();
      this.warn(`projection runner: ${err.message}; folding ${slots.map((s) => s.projection.name).join(', ')} on this thread`);
      return this.fold(slots, 1, head.seq);
    }
    for (const slot of slots) {
      const result = folded.find((f) => f.name === slot.projection.name);
      if (!result) throw new Error(`the fold worker did not return ${slot.projection.name}`);
      const at = result.failed ? await this.position(result.failed.seq - 1) : head;
      this.takeState(slot, result, at);
    }
    if (this.opened) this.warmUp(); // what the loads left unbuilt, as after an open
  }

  /** The log's position after record `seq` (its hash), genesis at 0. */
  private async position(seq: number): Promise<Head> {
    if (seq === 0) return { seq, hash: GENESIS_HASH_HEX };
    const record = await this.log.get(seq);
    if (!record) throw new Error(`the log has no record ${seq}`);
    return { seq, hash: record.hash };
  }

  private takeState(slot: Slot, result: FoldedProjection, at: Head): void {
    const { name, version } = slot.projection;
    slot.projection.load(
      unpackState({ format: 2, name, version, seq: at.seq, hash: at.hash, state: result.state, checksum: result.checksum, encoding: STATE_ENCODING }),
    );
    slot.seq = at.seq;
    slot.hash = at.hash;
    slot.snapshotBytes = result.state.length;
    if (result.failed) this.fail(slot, result.failed.seq, result.failed.type, new Error(result.failed.message));
    else slot.packed = { seq: at.seq, state: result.state, checksum: result.checksum };
  }

  private applyTo(slot: Slot, record: LogRecord): void {
    try {
      slot.projection.apply(record);
      slot.seq = record.seq;
      slot.hash = record.hash;
    } catch (cause) {
      this.fail(slot, record.seq, record.type, cause);
    }
  }

  /** The projection threw at record `seq`: it stops at the last good position, and says why. */
  private fail(slot: Slot, seq: number, type: string, cause: unknown): void {
    slot.failed = new KiokuError('KIOKU_PROJECTION_FAILED', `projection ${slot.projection.name} failed at seq ${seq} (${type})`, {
      cause,
      details: { projection: slot.projection.name, seq, type },
    });
    slot.failedSeq = seq;
    this.warn(`${slot.failed.message}: ${(cause as Error).message}`);
  }

  /**
   * Periodic snapshots are an optimisation: a failure is reported, never fatal (the log still holds
   * everything). A snapshot costs time in proportion to the library (a second at 100k records,
   * several at a million, the event loop blocked meanwhile), so one waits, beyond `snapshotEvery`
   * events, for `snapshotSpacing` times the last one's duration: every 10,000 events made bulk writes
   * quadratic (bench:index at a million records fell to ~220 writes/s).
   */
  private maybeSnapshot(): void {
    const every = this.options.snapshotEvery ?? 10_000;
    const spacing = this.options.snapshotSpacing ?? 20;
    const now = performance.now();
    for (const slot of this.slots.values()) {
      if (slot.failed || slot.seq - slot.snapshotSeq < every) continue;
      if (slot.hasSnapshot && now - slot.snapshotAt < spacing * slot.snapshotMs) continue;
      try {
        this.writeSnapshot(slot);
      } catch (err) {
        slot.snapshotSeq = slot.seq; // do not retry on every event; the next period tries again
        this.warn(`projection ${slot.projection.name}: snapshot at ${slot.seq} failed: ${(err as Error).message}`);
      }
    }
  }

  private writeSnapshot(slot: Slot): void {
    const dir = this.options.snapshotDir;
    if (!dir || slot.failed || slot.restoring) return; // a projection without its files yet is not its state
    const name = slot.projection.name;
    const started = performance.now();
    let files: string | undefined;
    let parts: SnapshotFile['parts'];
    if (slot.projection.persistFiles) {
      const side = sideFilesDir(dir, name, slot.seq);
      slot.projection.persistFiles(side.folder);
      parts = syncParts(side.folder); // each file synced, then listed with its size and checksum
      files = side.name;
    }
    // A checksum of the packed bytes guards the file; the canonical digest() is for
    // comparing states (rebuild vs catch-up) and is too slow to compute on every snapshot.
    const packed =
      slot.packed?.seq === slot.seq
        ? { state: slot.packed.state, checksum: slot.packed.checksum, encoding: STATE_ENCODING as typeof STATE_ENCODING }
        : packState(slot.projection.snapshot(), slot.snapshotBytes);
    slot.packed = undefined;
    writeSnapshotFile(dir, { format: 2, name, version: slot.projection.version, seq: slot.seq, hash: slot.hash, ...packed, ...(files ? { files, parts } : {}) });
    slot.snapshotBytes = packed.state.length;
    pruneSideFiles(dir, name, files);
    slot.snapshotSeq = slot.seq;
    slot.hasSnapshot = true;
    slot.snapshotAt = performance.now();
    slot.snapshotMs = slot.snapshotAt - started;
  }

  private failWaiters(cause: unknown): void {
    const at = this.minSeq();
    const stuck = this.waiters.filter((w) => w.seq > at);
    this.waiters = this.waiters.filter((w) => w.seq <= at);
    const err = new KiokuError('KIOKU_PROJECTION_FAILED', `projections stopped after seq ${at}: ${(cause as Error).message}`, {
      cause,
      details: { after_seq: at },
    });
    for (const w of stuck) w.reject(err);
  }

  /** Why the runner is not following the log, while it is not (health shows it: issue 29). */
  stall(): { error: string; after_seq: number; since_ms: number } | undefined {
    return this.stalled && { error: this.stalled.error, after_seq: this.stalled.after_seq, since_ms: Date.now() - this.stalled.since };
  }

  /** After a catch-up that reached the head: whoever waits for what it applied goes on; a stall is over. */
  private settleWaiters(): void {
    this.stalled = undefined;
    const reached = this.minSeq();
    const ready = this.waiters.filter((w) => w.seq <= reached);
    this.waiters = this.waiters.filter((w) => w.seq > reached);
    for (const w of ready) w.resolve();
  }

  private minSeq(): number {
    const seqs = [...this.slots.values()].filter((s) => !s.failed).map((s) => s.seq);
    return seqs.length ? Math.min(...seqs) : Infinity;
  }

  /** Resolves once every healthy projection has applied `seq` (read-your-writes). */
  waitFor(seq: number): Promise<void> {
    if (this.minSeq() >= seq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.schedule(() => this.catchUp()).catch(() => undefined); // retried (schedule)
    });
  }

  /** Reset the named projections (all when none given) and replay them from genesis. */
  async rebuild(names?: readonly string[], onProgress?: ProgressFn): Promise<ProjectionStatus[]> {
    const selected = new Set(names && names.length ? names : this.slots.keys());
    for (const name of selected) if (!this.slots.has(name)) throw unknownProjection(name, [...this.slots.keys()]);
    await this.schedule(async () => {
      for (const name of selected) await this.slots.get(name)?.restoring; // a reset must not race the files' arrival
      for (const name of selected) this.toGenesis(this.slots.get(name) as Slot);
      await this.catchUp(onProgress, selected, true);
      for (const name of selected) {
        const slot = this.slots.get(name) as Slot;
        if (!slot.hasSnapshot || slot.snapshotSeq !== slot.seq) this.writeSnapshot(slot);
      }
    });
    return this.status().filter((s) => selected.has(s.name));
  }

  /** The registered projections by name, typed (touching one that is not registered throws). */
  readonly views: Views = VIEW_NAMES.reduce((views, name) => Object.defineProperty(views, name, { get: () => this.get(name), enumerable: true }), {} as Views);

  get<P extends Projection>(name: string): P {
    const slot = this.slots.get(name);
    if (!slot) throw unknownProjection(name, [...this.slots.keys()]);
    return slot.projection as P;
  }

  names(): string[] {
    return [...this.slots.keys()];
  }

  digests(): Record<string, string> {
    return Object.fromEntries([...this.slots.values()].map((s) => [s.projection.name, s.projection.digest()]));
  }

  status(): ProjectionStatus[] {
    return [...this.slots.values()].map((s) => ({
      name: s.projection.name,
      version: s.projection.version,
      seq: s.seq,
      source: s.source,
      snapshot_seq: s.snapshotSeq,
      ...(s.restoring ? { loading: true as const } : {}),
      ...(s.discarded ? { discarded: s.discarded } : {}),
      ...(s.failed ? { failed: { code: s.failed.code, message: s.failed.message, seq: s.failedSeq } } : {}),
    }));
  }

  /** Write a snapshot of every projection that moved since its last one; one that cannot be written (a full disk) is warned, not thrown: the log holds everything. */
  async snapshotAll(): Promise<void> {
    await this.schedule(async () => {
      for (const slot of this.slots.values()) {
        if (slot.seq === slot.snapshotSeq && slot.hasSnapshot) continue;
        try {
          this.writeSnapshot(slot);
        } catch (err) {
          this.warn(`projection ${slot.projection.name}: snapshot at ${slot.seq} failed: ${(err as Error).message}`);
        }
      }
    });
  }

  /** Stop following, finish pending work, snapshot. Does not close the log. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.retry);
    this.retry = undefined;
    // files still being read: let them arrive (and catch up) before the final snapshots
    await Promise.all([...this.slots.values()].map((s) => s.restoring));
    if (this.opened) await this.snapshotAll();
    this.opened = false;
    this.stopFoldWorker();
  }

  private warn(message: string): void {
    (this.options.onWarning ?? ((m: string) => process.emitWarning(m, 'KiokuProjection')))(message);
  }
}

/** The types a worker folding `slots` needs handed over, or undefined when any type may matter to one of them. */
function typesOf(slots: readonly Slot[]): ReadonlySet<string> | undefined {
  const types = new Set<string>();
  for (const slot of slots) {
    if (!slot.projection.types) return undefined;
    for (const type of slot.projection.types) types.add(type);
  }
  return types;
}

function unknownProjection(name: string, known: string[]): KiokuError {
  return new KiokuError('KIOKU_PROJECTION_UNKNOWN', `no projection named "${name}" (known: ${known.join(', ')})`, { details: { name, known } });
}
