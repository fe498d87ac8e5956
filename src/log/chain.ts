// The chain rules every store shares: how a write becomes frames, when an expected head
import type { EventEmitter } from 'node:events';
// matches, and how a stored frame reads back. Stores differ only in where the bytes go.
import { KiokuError, LogConflictError } from '../errors.js';
import { upcast, validateEvent, type AppendInput, type LogRecord, type ValidatedEvent } from '../events/index.js';
import { FRAME_FORMAT, GENESIS_HASH_HEX, HASH_BYTES, HEADER_BYTES, decodeBody, encodeBody, encodeFrame } from './codec.js';
import type { WriteGuard } from '../privacy/index.js';
import type { Appended, AppendOptions, EncodedRecord, ExpectedHead } from './port.js';

export type { EncodedRecord } from './port.js';

export interface ChainPosition {
  seq: number;
  /** hash of the record at seq (GENESIS_PREV at 0) */
  prev: Buffer;
  /** timestamp of the record at seq */
  ts: number;
}

/** Encode one write's events after `at`; timestamps never decrease, so time ranges map to seq ranges. */
export function encodeWrite(events: readonly ValidatedEvent[], at: ChainPosition, now: number): { records: EncodedRecord[]; end: ChainPosition } {
  let { seq, prev, ts } = at;
  const records: EncodedRecord[] = [];
  for (const e of events) {
    seq += 1;
    ts = Math.max(ts, now);
    const body = encodeBody({ seq, ts, type: e.type, v: e.v, ns: e.ns, actor: e.actor, data: e.data });
    const { frame, hash } = encodeFrame(prev, body);
    records.push({ seq, type: e.type, ns: e.ns, ts, frame, hash });
    prev = hash;
  }
  return { records, end: { seq, prev, ts } };
}

export function hexHead(seq: number, hash: Buffer): string {
  return seq === 0 ? GENESIS_HASH_HEX : hash.toString('hex');
}

/**
 * Whether the chain still is where the writer saw it. `lastOfTypes` is the seq of the last
 * record of any of `expected.types` (only asked when types are given).
 */
export function headMatches(expected: ExpectedHead, seq: number, hash: Buffer, lastOfTypes?: (types: readonly string[]) => number): boolean {
  if (expected.types && expected.types.length > 0) {
    if (expected.seq === undefined) return true;
    return (lastOfTypes?.(expected.types) ?? seq) <= expected.seq;
  }
  if (expected.seq !== undefined && expected.seq !== seq) return false;
  if (expected.hash !== undefined && expected.hash.toLowerCase() !== hexHead(seq, hash)) return false;
  return true;
}

export function decodeRecord(value: Uint8Array): LogRecord {
  // the hot path of every read: no frame object, no copy of the envelope (a fresh object here)
  if (value.length <= HEADER_BYTES || value[0] !== FRAME_FORMAT)
    throw new KiokuError('KIOKU_CHAIN_DAMAGED', 'a stored record is not a valid frame; run `kioku verify`');
  const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.length);
  const record = upcast(decodeBody(buf.subarray(HEADER_BYTES))) as LogRecord;
  record.hash = buf.toString('hex', 1, 1 + HASH_BYTES);
  record.bytes = value.length;
  return record;
}

/** Resolve at the next 'commit' or 'close' on `emitter`, or when `signal` aborts (how tails wait). */
export function nextCommit(emitter: EventEmitter, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      emitter.off('commit', done);
      emitter.off('close', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    emitter.on('commit', done);
    emitter.on('close', done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Last seq per type, kept by a store as it commits (what type-scoped expected heads are checked against). */
export class LastOfType {
  private readonly last = new Map<string, number>();
  /** types whose last seq is known (loaded from the store or seen committed since) */
  private readonly known = new Set<string>();

  isKnown(type: string): boolean {
    return this.known.has(type);
  }

  learn(type: string, seq: number): void {
    this.known.add(type);
    if (seq > (this.last.get(type) ?? 0)) this.last.set(type, seq);
  }

  of(types: readonly string[]): number {
    let max = 0;
    for (const t of types) max = Math.max(max, this.last.get(t) ?? 0);
    return max;
  }
}

/**
 * Plan one group commit from `start`: refuse each write whose expected head no longer holds and
 * each that cannot be encoded (alone), encode the rest contiguously. `lastOf(types, planned)` is
 * the last seq of any of `types` in the store, counting the records planned so far. The store
 * then persists `records` and resolves `accepted`, or rejects them all if the write fails.
 */
export function planGroup(
  group: readonly PendingWrite[],
  start: ChainPosition,
  lastOf: (types: readonly string[], planned: readonly EncodedRecord[]) => number,
  now: number,
): { records: EncodedRecord[]; accepted: { write: PendingWrite; appended: Appended[] }[]; end: ChainPosition } {
  let at = start;
  const records: EncodedRecord[] = [];
  const accepted: { write: PendingWrite; appended: Appended[] }[] = [];
  for (const write of group) {
    if (write.expected && !headMatches(write.expected, at.seq, at.prev, (types) => lastOf(types, records))) {
      write.reject(new LogConflictError(write.expected, { seq: at.seq, hash: hexHead(at.seq, at.prev) }));
      continue;
    }
    let encoded: ReturnType<typeof encodeWrite>;
    try {
      encoded = encodeWrite(write.events, at, now);
    } catch (cause) {
      write.reject(new KiokuError('KIOKU_EVENT_INVALID', `event cannot be encoded: ${(cause as Error).message}`, { cause }));
      continue;
    }
    records.push(...encoded.records);
    accepted.push({ write, appended: encoded.records.map((r) => ({ seq: r.seq, hash: r.hash.toString('hex') })) });
    at = encoded.end;
  }
  return { records, accepted, end: at };
}

/** The last seq among `records` holding any of `types` (0 when none). */
export function lastIn(records: readonly EncodedRecord[], types: readonly string[]): number {
  for (let i = records.length - 1; i >= 0; i--) if (types.includes((records[i] as EncodedRecord).type)) return (records[i] as EncodedRecord).seq;
  return 0;
}

export interface PendingWrite {
  events: ValidatedEvent[];
  expected: ExpectedHead | undefined;
  resolve: (appended: Appended[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit, the same for every store: appends are validated up front (an invalid one is
 * refused alone, nothing written), and everything that queues while a group is being
 * committed goes into the next group, so concurrent writers share one durable write.
 */
const NO_SPACE = /ENOSPC|No space left on device/i;

/**
 * A guard or a pre-commit hook that failed writing beside the log (the vault, the data keys) on a
 * full disk is the same refusal as the log's own: 507 KIOKU_STORAGE_FULL, reads still answer.
 */
export function diskFullOr(err: unknown): unknown {
  if (err instanceof KiokuError) return err;
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++, e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === 'ENOSPC' || (typeof message === 'string' && NO_SPACE.test(message))) {
      return new KiokuError('KIOKU_STORAGE_FULL', 'the disk holding the store is full: the write could not be made durable; reads still answer; free space, then restart the service', {
        cause: err,
      });
    }
  }
  return err;
}

export class CommitQueue {
  private pending: PendingWrite[] = [];
  private writing: Promise<void> | undefined;
  /** run in order over each write's validated events before it is queued (issue 33: secrets redacted, then sealing) */
  readonly guards: WriteGuard[] = [];

  constructor(private readonly commitGroup: (group: PendingWrite[]) => Promise<void>) {}

  submit(events: readonly AppendInput[], options: AppendOptions): Promise<Appended[]> {
    let validated: ValidatedEvent[];
    try {
      validated = events.map((e) => validateEvent(e));
      // synchronous, so writes keep the order they were submitted in
      for (const guard of this.guards) validated = guard(validated);
    } catch (err) {
      return Promise.reject(diskFullOr(err));
    }
    if (validated.length === 0) return Promise.resolve([]);
    // a guard may add events after the caller's (secret.redacted): the caller gets its own events' seqs
    const own = events.length;
    return new Promise<Appended[]>((resolve, reject) => {
      const answer = validated.length === own ? resolve : (appended: Appended[]) => resolve(appended.slice(0, own));
      this.pending.push({ events: validated, expected: options.expectedHead, resolve: answer, reject });
      this.writing ??= this.drain();
    });
  }

  /** run before each group is committed (issue 33: the data keys its events were sealed with made durable, once per group) */
  readonly beforeCommit: (() => void)[] = [];

  private async drain(): Promise<void> {
    try {
      // yield first: a group refused before any await (a pre-commit hook failing on a full disk)
      // would otherwise run the finally below before `writing` is assigned, leaving `writing` set
      // to a settled promise for good, and every later write would queue and never be committed
      await Promise.resolve();
      while (this.pending.length > 0) {
        const group = this.pending;
        this.pending = [];
        try {
          for (const hook of this.beforeCommit) hook();
        } catch (err) {
          const refused = diskFullOr(err);
          for (const write of group) write.reject(refused);
          continue;
        }
        await this.commitGroup(group);
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Resolves once every submitted write has been committed or refused. */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }
}

/** The live tail every store shares: records from `from` on, then each new commit as the emitter reports it, until aborted or closed. */
export async function* follow(
  source: { head(): number; readFrom(from: number): AsyncIterable<LogRecord>; readonly closed: boolean; commits: EventEmitter },
  options: { from?: number; signal?: AbortSignal },
): AsyncGenerator<LogRecord> {
  let next = Math.max(1, options.from ?? 1);
  const signal = options.signal;
  while (!signal?.aborted && !source.closed) {
    if (next <= source.head()) {
      for await (const record of source.readFrom(next)) {
        yield record;
        next = record.seq + 1;
        if (signal?.aborted) return;
      }
      continue;
    }
    await nextCommit(source.commits, signal);
  }
}

/**
 * What every store's write side shares: validated appends queued for group commit, refused
 * once the store is closed. A store gives `commitGroup` (persist one group) and closes itself.
 */
export abstract class GroupCommitStore {
  protected closed = false;
  protected readonly queue = new CommitQueue((group) => this.commitGroup(group));

  protected abstract commitGroup(group: PendingWrite[]): Promise<void>;

  async append(event: AppendInput, options: AppendOptions = {}): Promise<Appended> {
    const [appended] = await this.appendAll([event], options);
    return appended as Appended;
  }

  appendAll(events: readonly AppendInput[], options: AppendOptions = {}): Promise<Appended[]> {
    if (this.closed) return Promise.reject(new KiokuError('KIOKU_LOG_CLOSED', 'the event log is closed'));
    return this.queue.submit(events, options);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Run `guard` over every write from now on, after the guards added before it (the store assembly
   * adds secret redaction, src/store.ts): what a guard returns is what the chain stores.
   */
  addWriteGuard(guard: WriteGuard): void {
    this.queue.guards.push(guard);
  }

  /** Run `hook` before each group commit from now on (what the write guards need durable first: new data keys). */
  addBeforeCommit(hook: () => void): void {
    this.queue.beforeCommit.push(hook);
  }

  private readonly readGuards: ((record: LogRecord) => LogRecord)[] = [];

  /**
   * Run `open` over every record this store decodes for a reader from now on (issue 33: the store
   * assembly opens sealed texts, src/privacy/seal.ts). Raw frames (readFrames: export, backup,
   * verify, a rebuild) are handed out as stored.
   */
  addReadGuard(open: (record: LogRecord) => LogRecord): void {
    this.readGuards.push(open);
  }

  /** A stored frame as readers see it: decoded, then opened by each read guard. */
  protected decode(frame: Uint8Array): LogRecord {
    let record = decodeRecord(frame);
    for (const open of this.readGuards) record = open(record);
    return record;
  }
}

/**
 * The frames a single-writer store committed last, contiguous up to its head: the projections
 * (and tails) that follow each commit read them from memory instead of opening a store iterator
 * per commit. Bounded by count and bytes; older ranges are read from the store.
 */
export class RecentFrames {
  private frames: Buffer[] = [];
  /** seq of frames[0] */
  private first = 1;
  private bytes = 0;

  constructor(
    private readonly maxFrames = 4096,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  /** Frames committed right after the last one kept (a gap resets the cache). */
  add(records: readonly { seq: number; frame: Buffer }[]): void {
    for (const r of records) {
      if (r.seq !== this.first + this.frames.length) this.reset(r.seq);
      this.frames.push(r.frame);
      this.bytes += r.frame.length;
    }
    let drop = 0;
    while (this.frames.length - drop > this.maxFrames || (this.bytes > this.maxBytes && this.frames.length - drop > 1)) {
      this.bytes -= (this.frames[drop] as Buffer).length;
      drop += 1;
    }
    if (drop > 0) {
      this.frames = this.frames.slice(drop);
      this.first += drop;
    }
  }

  reset(nextSeq: number): void {
    this.frames = [];
    this.first = nextSeq;
    this.bytes = 0;
  }

  /** The frames from..to when all of them are kept, else undefined. */
  range(from: number, to: number): Buffer[] | undefined {
    if (from < this.first || to > this.first + this.frames.length - 1 || from > to) return undefined;
    return this.frames.slice(from - this.first, to - this.first + 1);
  }
}

/** What importChain refuses with when the target already holds events (`kioku log import` needs an empty store). */
export function notEmpty(seq: number): KiokuError {
  return new KiokuError('KIOKU_USAGE', `the target store already holds ${seq} events; an import needs an empty store (a new data dir or database)`, {
    details: { head_seq: seq },
  });
}
