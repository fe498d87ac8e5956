// The hash-chained event log: one writer, group commit, durable appends.
import { EventEmitter } from 'node:events';
import { KiokuError } from '../errors.js';
import type { AckedHeadFile } from './acked-head.js';
import type { LogRecord } from '../events/index.js';
import { GroupCommitStore, RecentFrames, LastOfType, decodeRecord, follow, hexHead, lastIn, notEmpty, planGroup, type PendingWrite } from './chain.js';
import { GENESIS_HASH_HEX, GENESIS_PREV, decodeBody, seqKey, splitFrame } from './codec.js';
import { DURABLE, HEAD_KEY, READ_AHEAD, logSublevels, parseHeadMeta, type LevelStore, type LogSublevels } from './level.js';
import type { EventStore, FrameRange, Head, ReadOptions, TailOptions } from './port.js';
import { inBatches, type ChainFrame } from './transfer.js';
import { verifyChain, type ChainReport, type VerifyChainOptions } from './verify.js';

export type { Appended, AppendOptions, ExpectedHead, Head, ReadOptions, TailOptions } from './port.js';

const READ_CHUNK = 1000;

/** The LevelDB event store (any abstract-level store: classic-level on disk, memory-level in tests). */
export class EventLog extends GroupCommitStore implements EventStore {
  readonly kind = 'leveldb' as const;
  readonly db: LevelStore;
  private readonly sub: LogSublevels;
  private headSeq = 0;
  private headHash: Buffer = Buffer.from(GENESIS_PREV);
  private lastTs = 0;
  private readonly commits = new EventEmitter();
  private readonly lastOfType = new LastOfType();
  /** what was committed last, for the readers that follow each commit */
  private readonly recent = new RecentFrames();
  /** Whether close() should also close the Level store (true when the log opened it). */
  private readonly ownsStore: boolean;
  /** where each durable group's head is recorded before its appends resolve (on-disk stores) */
  private readonly acked: AckedHeadFile | undefined;
  /**
   * Why a LevelDB batch failed, once one has: nothing more is written through this handle. A
   * batch refused on a full disk can leave a torn record in LevelDB's journal (a short write),
   * and LevelDB goes on appending to that journal with its framing off: what it accepted next was
   * dropped at the next open (found by `npm run chaos -- --scenario disk`). A restart reopens the
   * store, which drops the torn tail and starts a new journal.
   */
  private failedBatch: unknown;

  private constructor(db: LevelStore, ownsStore: boolean, acked: AckedHeadFile | undefined) {
    super();
    this.db = db;
    this.sub = logSublevels(db);
    this.ownsStore = ownsStore;
    this.acked = acked;
    this.commits.setMaxListeners(0);
  }

  /**
   * Open a log over an abstract-level store (opened here if it is not open yet). With `acked`,
   * a log that ends before the head it acknowledged is refused (KIOKU_LOG_TRUNCATED), so no
   * acknowledged seq is ever given out again; the log owns the file from then on.
   */
  static async open(db: LevelStore, options: { ownsStore?: boolean; acked?: AckedHeadFile } = {}): Promise<EventLog> {
    if (db.status !== 'open') await db.open();
    const log = new EventLog(db, options.ownsStore ?? false, options.acked);
    await log.loadHead();
    if (options.acked) await log.checkAcknowledged(options.acked);
    return log;
  }

  private async checkAcknowledged(acked: AckedHeadFile): Promise<void> {
    const found = acked.found.head;
    if (found) {
      if (found.seq > this.headSeq) throw logTruncated(found, this.headSeq, acked.path);
      const at = found.seq === 0 ? undefined : await this.sub.records.get(seqKey(found.seq));
      const hash = at === undefined ? GENESIS_HASH_HEX : Buffer.from(at).toString('hex', 1, 33);
      if (hash !== found.hash) throw ackedHashDiffers(found, acked.path);
    }
    // a store from before the file, or one a crash left ahead of it: record the head now
    if (!found || found.seq < this.headSeq) await acked.record(this.headSeq, this.headHash);
  }

  private async loadHead(): Promise<void> {
    const head = parseHeadMeta(await this.sub.meta.get(HEAD_KEY));
    if (head) {
      this.headSeq = head.seq;
      this.headHash = Buffer.from(head.hash, 'hex');
      this.lastTs = head.ts;
      return;
    }
    // No head meta: trust the last record if there is one (verify reports the gap).
    for await (const [key, value] of this.sub.records.iterator({ reverse: true, limit: 1 })) {
      const frame = splitFrame(value);
      if (!frame) break;
      this.headSeq = Number(key);
      this.headHash = Buffer.from(frame.hash);
      this.lastTs = decodeBody(frame.body).ts;
    }
  }

  head(): Head {
    return { seq: this.headSeq, hash: hexHead(this.headSeq, this.headHash) };
  }

  protected async commitGroup(group: PendingWrite[]): Promise<void> {
    if (this.failedBatch !== undefined) {
      const message = 'a batch could not be written earlier, so the log takes no more writes until the service restarts (the LevelDB journal may end in a torn record)';
      for (const write of group) write.reject(writeFailed(write.events.length, this.failedBatch, message));
      return;
    }
    await this.learnTypes(group);
    const plan = planGroup(
      group,
      { seq: this.headSeq, prev: this.headHash, ts: this.lastTs },
      (types, planned) => Math.max(this.lastOfType.of(types), lastIn(planned, types)),
      Date.now(),
    );
    const { accepted } = plan;
    if (accepted.length === 0) return;
    const records = plan.records.map((r) => ({ type: 'put' as const, key: seqKey(r.seq), value: r.frame }));
    const index = plan.records.map((r) => ({ type: 'put' as const, key: `${r.type}!${seqKey(r.seq)}`, value: '' }));
    const at = plan.end;
    const { seq, prev, ts } = at;
    const headValue = JSON.stringify({ seq, hash: prev.toString('hex'), ts });
    try {
      await this.db.batch<string, Uint8Array | string>(
        [
          ...records.map((op) => ({ ...op, sublevel: this.sub.records })),
          ...index.map((op) => ({ ...op, sublevel: this.sub.byType })),
          { type: 'put' as const, key: HEAD_KEY, value: headValue, sublevel: this.sub.meta },
        ],
        DURABLE,
      );
    } catch (cause) {
      this.failedBatch = cause ?? new Error('batch refused');
      for (const { write } of accepted) write.reject(writeFailed(records.length, cause));
      return;
    }
    const from = this.headSeq + 1;
    for (const r of plan.records) this.lastOfType.learn(r.type, r.seq);
    this.recent.add(plan.records);
    this.headSeq = seq;
    this.headHash = prev;
    this.lastTs = ts;
    this.commits.emit('commit', { from, to: seq });
    if (!this.acked) {
      for (const { write, appended } of accepted) write.resolve(appended);
      return;
    }
    // Acknowledged only once the head file holds this group too. Not awaited: the next group's
    // LevelDB write runs while this one's head is synced (the file coalesces what queues).
    this.acked.record(seq, prev).then(
      () => {
        for (const { write, appended } of accepted) write.resolve(appended);
      },
      (cause: unknown) => {
        // the records are in LevelDB (readers see them), but without the head file they are not acknowledged
        const err = writeFailed(
          records.length,
          cause,
          `the batch of ${records.length} events was written but its head could not be recorded in ${this.acked?.path}`,
        );
        for (const { write } of accepted) write.reject(err);
      },
    );
  }

  /** Load the last seq of every type a type-scoped expected head in `group` asks about (once per type, from the type index). */
  private async learnTypes(group: readonly PendingWrite[]): Promise<void> {
    for (const write of group) {
      for (const type of write.expected?.types ?? []) {
        if (this.lastOfType.isKnown(type)) continue;
        let last = 0;
        for await (const key of this.sub.byType.keys({ gte: `${type}!`, lt: `${type}!~`, reverse: true, limit: 1 })) last = Number(key.slice(type.length + 1));
        this.lastOfType.learn(type, last);
      }
    }
  }

  /** Subscribe to committed ranges; returns an unsubscribe function. */
  /** Write an exported chain verbatim into this empty log: records and type index in batches, the head last. */
  async importChain(frames: AsyncIterable<ChainFrame>): Promise<Head> {
    if (this.headSeq > 0 || this.closed) throw notEmpty(this.headSeq);
    const last = await inBatches(frames, (batch) =>
      this.db.batch<string, Uint8Array | string>(
        [
          ...batch.map((f) => ({ type: 'put' as const, key: seqKey(f.seq), value: f.frame, sublevel: this.sub.records })),
          ...batch.map((f) => ({ type: 'put' as const, key: `${f.type}!${seqKey(f.seq)}`, value: '', sublevel: this.sub.byType })),
        ],
        DURABLE,
      ),
    );
    if (!last) return this.head();
    await this.sub.meta.put(HEAD_KEY, JSON.stringify({ seq: last.seq, hash: last.hash.toString('hex'), ts: last.ts }), DURABLE);
    await this.acked?.record(last.seq, last.hash);
    this.headSeq = last.seq;
    this.headHash = last.hash;
    this.lastTs = last.ts;
    this.recent.reset(last.seq + 1);
    this.commits.emit('commit', { from: 1, to: last.seq });
    return this.head();
  }

  onCommit(listener: (range: { from: number; to: number }) => void): () => void {
    this.commits.on('commit', listener);
    return () => this.commits.off('commit', listener);
  }

  async get(seq: number): Promise<LogRecord | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > this.headSeq) return undefined;
    const value = await this.sub.records.get(seqKey(seq));
    return value === undefined ? undefined : this.decode(value);
  }

  /** Read committed records in seq order. Filters by type use the type index. */
  async *read(options: ReadOptions = {}): AsyncGenerator<LogRecord> {
    const from = Math.max(1, options.from ?? 1);
    const to = Math.min(options.to ?? this.headSeq, this.headSeq);
    if (from > to) return;
    let remaining = options.limit ?? Infinity;
    const source = options.types && options.types.length > 0 ? this.readTypes(options.types, from, to) : this.readRange(from, to);
    for await (const record of source) {
      if (options.ns !== undefined && record.ns !== options.ns) continue;
      yield record;
      if (--remaining <= 0) return;
    }
  }

  private async *readRange(from: number, to: number): AsyncGenerator<LogRecord> {
    for await (const frames of this.frameBatches(from, to)) for (const frame of frames) yield this.decode(frame);
  }

  async *readFrames(range: FrameRange): AsyncGenerator<readonly Uint8Array[]> {
    const from = Math.max(1, range.from);
    const to = Math.min(range.to, this.headSeq);
    if (from <= to) yield* this.frameBatches(from, to);
  }

  private async *frameBatches(from: number, to: number): AsyncGenerator<readonly Uint8Array[]> {
    const kept = this.recent.range(from, to);
    if (kept) {
      yield kept;
      return;
    }
    const it = this.sub.records.values({ gte: seqKey(from), lte: seqKey(to), ...READ_AHEAD });
    // Prefetch: LevelDB's thread reads the next chunk while the consumer handles this one.
    let next = it.nextv(READ_CHUNK);
    try {
      for (;;) {
        const values = await next;
        if (values.length === 0) return;
        next = it.nextv(READ_CHUNK);
        next.catch(() => undefined); // observed on the next turn of the loop
        yield values;
      }
    } finally {
      await next.catch(() => undefined);
      await it.close();
    }
  }

  private async *readTypes(types: readonly string[], from: number, to: number): AsyncGenerator<LogRecord> {
    // Collect matching seqs per type from the index, merge, then fetch in chunks.
    const seqs: number[] = [];
    for (const type of new Set(types)) {
      for await (const key of this.sub.byType.keys({ gte: `${type}!${seqKey(from)}`, lte: `${type}!${seqKey(to)}` })) {
        seqs.push(Number(key.slice(type.length + 1)));
      }
    }
    seqs.sort((a, b) => a - b);
    for (let i = 0; i < seqs.length; i += READ_CHUNK) {
      const chunk = seqs.slice(i, i + READ_CHUNK);
      const values = await this.sub.records.getMany(chunk.map(seqKey));
      for (const value of values) if (value !== undefined) yield this.decode(value);
    }
  }

  /** Follow the log: every record from `from` on, then each new one as it commits, until aborted or closed. */
  async *tail(options: TailOptions = {}): AsyncGenerator<LogRecord> {
    const self = this;
    yield* follow(
      {
        head: () => this.headSeq,
        readFrom: (from) => this.readRange(from, this.headSeq),
        get closed() {
          return self.closed;
        },
        commits: this.commits,
      },
      options,
    );
  }

  verify(options: VerifyChainOptions = {}): Promise<ChainReport> {
    return verifyChain(this.db, options);
  }

  /** Wait for queued appends to become durable, then close (and close the store if the log opened it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settled();
    await this.acked?.close();
    this.commits.emit('close');
    if (this.ownsStore) await this.db.close();
  }

  /** Raw access for verify and fault-injection tests. */
  get sublevels(): LogSublevels {
    return this.sub;
  }
}

export { decodeRecord };

const NO_SPACE = /ENOSPC|No space left on device/i;

/** A refused batch: 507 KIOKU_STORAGE_FULL when the disk is full (reads still answer), else KIOKU_LOG_WRITE_FAILED. */
function writeFailed(events: number, cause: unknown, message = `the batch of ${events} events could not be written`): KiokuError {
  let e: unknown = cause;
  for (let depth = 0; e && depth < 4; depth++, e = (e as { cause?: unknown }).cause) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code === 'ENOSPC' || (typeof err.message === 'string' && NO_SPACE.test(err.message))) {
      return new KiokuError('KIOKU_STORAGE_FULL', `the disk holding the store is full: ${message}; reads still answer; free space, then restart the service`, {
        cause,
      });
    }
  }
  return new KiokuError('KIOKU_LOG_WRITE_FAILED', message, { cause });
}

const HOW_TO_PROCEED =
  'Kioku will not write to this store, since new writes would reuse acknowledged sequence numbers. Keep the data dir as it is (`kioku verify` shows the damage; `kioku log export` saves the records that remain) and restore the log from a backup that reaches the acknowledged head';

function logTruncated(acked: { seq: number; hash: string }, head: number, file: string): KiokuError {
  return new KiokuError(
    'KIOKU_LOG_TRUNCATED',
    `the log ends at seq ${head}, but seq ${acked.seq} was acknowledged (recorded in ${file}): LevelDB lost acknowledged records ${head + 1}..${acked.seq} (a damaged write-ahead log?). ${HOW_TO_PROCEED}.`,
    { details: { acknowledged_seq: acked.seq, acknowledged_hash: acked.hash, head_seq: head, file } },
  );
}

function ackedHashDiffers(acked: { seq: number; hash: string }, file: string): KiokuError {
  return new KiokuError(
    'KIOKU_CHAIN_DAMAGED',
    `the log holds a different record at seq ${acked.seq} than the one acknowledged (recorded in ${file}). ${HOW_TO_PROCEED}.`,
    { details: { seq: acked.seq, kind: 'modified', acknowledged_hash: acked.hash, file } },
  );
}
