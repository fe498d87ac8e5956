// The in-memory event store: one MemoryChain holds the frames; any number of
// MemoryEventLogs write to it, as several nodes write to one shared store. Each commit
// takes the chain's lock, reads the real head, checks the writer's expected head against
// it, and extends it; every log on the chain hears of every commit. Nothing survives the
// process: tests, and the model the PostgreSQL store follows.
import { EventEmitter } from 'node:events';
import type { LogRecord } from '../events/index.js';
import { GroupCommitStore, follow, hexHead, lastIn, planGroup, type ChainPosition, type EncodedRecord, type PendingWrite } from './chain.js';
import { GENESIS_PREV, seqKey } from './codec.js';
import type { EventStore, FrameRange, Head, ReadOptions, TailOptions } from './port.js';
import { verifySource, type ChainReport, type ChainSource, type VerifyChainOptions } from './verify.js';

/** how many frames readFrames hands over at a time */
const FRAME_BATCH = 1000;

/** The shared storage: frames by seq (index seq − 1), their types, the head, one writer at a time. */
export class MemoryChain {
  readonly frames: Buffer[] = [];
  readonly types: string[] = [];
  position: ChainPosition = { seq: 0, prev: Buffer.from(GENESIS_PREV), ts: 0 };
  private lock: Promise<unknown> = Promise.resolve();
  readonly commits = new EventEmitter().setMaxListeners(0);

  /** Run `task` with the chain to itself (the memory stand-in for a row lock). */
  exclusive<T>(task: () => Promise<T> | T): Promise<T> {
    const run = this.lock.then(task, task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  store(records: readonly EncodedRecord[], end: ChainPosition): void {
    for (const r of records) {
      this.frames.push(r.frame);
      this.types.push(r.type);
    }
    this.position = end;
  }

  /** The last seq holding any of `types`, up to `upTo`, counting records not yet stored. */
  lastOf(types: readonly string[], upTo: number, unstored: readonly EncodedRecord[]): number {
    const planned = lastIn(unstored, types);
    if (planned > 0) return planned;
    const wanted = new Set(types);
    for (let seq = Math.min(upTo, this.types.length); seq >= 1; seq--) if (wanted.has(this.types[seq - 1] as string)) return seq;
    return 0;
  }

  source(): ChainSource {
    let at = 0;
    const head = this.position;
    return {
      readHead: async () => (head.seq === 0 ? undefined : JSON.stringify({ seq: head.seq, hash: head.prev.toString('hex'), ts: head.ts })),
      nextChunk: async (size) => {
        const chunk = this.frames.slice(at, Math.min(at + size, head.seq)).map((f, i): [string, Uint8Array] => [seqKey(at + i + 1), f]);
        at += chunk.length;
        return chunk;
      },
      close: async () => undefined,
    };
  }
}

export class MemoryEventLog extends GroupCommitStore implements EventStore {
  readonly kind = 'memory' as const;
  private readonly listeners = new EventEmitter().setMaxListeners(0);
  private readonly forward = (range: { from: number; to: number }): void => void this.listeners.emit('commit', range);

  constructor(readonly chain: MemoryChain = new MemoryChain()) {
    super();
    chain.commits.on('commit', this.forward);
  }

  head(): Head {
    const { seq, prev } = this.chain.position;
    return { seq, hash: hexHead(seq, prev) };
  }

  /** the chain's lock stands in for a row lock: one commit at a time across every log on it */
  protected commitGroup(group: PendingWrite[]): Promise<void> {
    return this.chain.exclusive(() => this.commitLocked(group));
  }

  private commitLocked(group: PendingWrite[]): void {
    const start = this.chain.position; // the real head, read under the lock
    const { records: stored, accepted, end: at } = planGroup(group, start, (types, planned) => this.chain.lastOf(types, start.seq, planned), Date.now());
    if (accepted.length === 0) return;
    this.chain.store(stored, at);
    for (const { write, appended } of accepted) write.resolve(appended);
    this.chain.commits.emit('commit', { from: start.seq + 1, to: at.seq });
  }

  onCommit(listener: (range: { from: number; to: number }) => void): () => void {
    this.listeners.on('commit', listener);
    return () => this.listeners.off('commit', listener);
  }

  async get(seq: number): Promise<LogRecord | undefined> {
    const frame = Number.isSafeInteger(seq) && seq >= 1 && seq <= this.chain.position.seq ? this.chain.frames[seq - 1] : undefined;
    return frame === undefined ? undefined : this.decode(frame);
  }

  async *read(options: ReadOptions = {}): AsyncGenerator<LogRecord> {
    const from = Math.max(1, options.from ?? 1);
    const to = Math.min(options.to ?? this.chain.position.seq, this.chain.position.seq);
    const types = options.types && options.types.length > 0 ? new Set(options.types) : undefined;
    let remaining = options.limit ?? Infinity;
    for (let seq = from; seq <= to && remaining > 0; seq++) {
      if (types && !types.has(this.chain.types[seq - 1] as string)) continue;
      const record = this.decode(this.chain.frames[seq - 1] as Buffer);
      if (options.ns !== undefined && record.ns !== options.ns) continue;
      remaining -= 1;
      yield record;
    }
  }

  async *readFrames(range: FrameRange): AsyncGenerator<readonly Uint8Array[]> {
    const to = Math.min(range.to, this.chain.position.seq);
    for (let at = Math.max(1, range.from); at <= to; at += FRAME_BATCH) yield this.chain.frames.slice(at - 1, Math.min(at - 1 + FRAME_BATCH, to));
  }

  async *tail(options: TailOptions = {}): AsyncGenerator<LogRecord> {
    const self = this;
    yield* follow(
      {
        head: () => this.chain.position.seq,
        readFrom: (from) => this.read({ from }),
        get closed() {
          return self.closed;
        },
        commits: this.listeners,
      },
      options,
    );
  }

  verify(options: VerifyChainOptions = {}): Promise<ChainReport> {
    return verifySource(this.chain.source(), options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settled();
    this.chain.commits.off('commit', this.forward);
    this.listeners.emit('close');
  }
}
