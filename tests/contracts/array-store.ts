// A store written as one outside this repository would write it: it imports only the public
// module (src/log/public.ts) and keeps its frames in an array. Single writer, nothing on disk;
// it also imports an exported chain. tests/log-contract-outside.test.ts runs the public
// contract on it. `flaw` breaks one rule on purpose, to show the contract catches it.
import { EventEmitter } from 'node:events';
import {
  GENESIS_PREV,
  GroupCommitStore,
  decodeRecord,
  follow,
  hexHead,
  importTargetNotEmpty,
  lastIn,
  planGroup,
  seqKey,
  verifySource,
  type ChainFrame,
  type ChainPosition,
  type ChainReport,
  type ChainSource,
  type EventStore,
  type FrameRange,
  type Head,
  type LogRecord,
  type PendingWrite,
  type ReadOptions,
  type TailOptions,
} from '../../src/log/public.js';

/** What the store keeps: frames in seq order (index seq − 1) and where the chain ends. Survives a close. */
export class ArrayChain {
  readonly rows: { type: string; frame: Buffer }[] = [];
  position: ChainPosition = { seq: 0, prev: Buffer.from(GENESIS_PREV), ts: 0 };
}

export type Flaw = 'none' | 'ignores-expected-head';

export class ArrayEventStore extends GroupCommitStore implements EventStore {
  readonly kind = 'memory' as const;
  private readonly commits = new EventEmitter().setMaxListeners(0);

  constructor(
    readonly chain: ArrayChain = new ArrayChain(),
    private readonly flaw: Flaw = 'none',
  ) {
    super();
  }

  head(): Head {
    return { seq: this.chain.position.seq, hash: hexHead(this.chain.position.seq, this.chain.position.prev) };
  }

  protected async commitGroup(group: PendingWrite[]): Promise<void> {
    const writes = this.flaw === 'ignores-expected-head' ? group.map((w) => ({ ...w, expected: undefined })) : group;
    const start = this.chain.position;
    const { records, accepted, end } = planGroup(writes, start, (types, planned) => lastIn(planned, types) || this.lastStored(types), Date.now());
    if (accepted.length === 0) return;
    this.keep(records, end);
    for (const { write, appended } of accepted) write.resolve(appended);
  }

  private keep(records: readonly { seq: number; type: string; frame: Buffer }[], end: ChainPosition): void {
    const from = this.chain.position.seq + 1;
    for (const r of records) this.chain.rows.push({ type: r.type, frame: r.frame });
    this.chain.position = end;
    this.commits.emit('commit', { from, to: end.seq });
  }

  private lastStored(types: readonly string[]): number {
    for (let seq = this.chain.rows.length; seq >= 1; seq--) if (types.includes((this.chain.rows[seq - 1] as { type: string }).type)) return seq;
    return 0;
  }

  onCommit(listener: (range: { from: number; to: number }) => void): () => void {
    this.commits.on('commit', listener);
    return () => this.commits.off('commit', listener);
  }

  async get(seq: number): Promise<LogRecord | undefined> {
    const row = Number.isSafeInteger(seq) && seq >= 1 ? this.chain.rows[seq - 1] : undefined;
    return row && decodeRecord(row.frame);
  }

  async *read(options: ReadOptions = {}): AsyncGenerator<LogRecord> {
    const to = Math.min(options.to ?? this.chain.position.seq, this.chain.position.seq);
    let left = options.limit ?? Infinity;
    for (let seq = Math.max(1, options.from ?? 1); seq <= to && left > 0; seq++) {
      const row = this.chain.rows[seq - 1] as { type: string; frame: Buffer };
      if (options.types?.length && !options.types.includes(row.type)) continue;
      const record = decodeRecord(row.frame);
      if (options.ns !== undefined && record.ns !== options.ns) continue;
      left -= 1;
      yield record;
    }
  }

  async *readFrames(range: FrameRange): AsyncGenerator<readonly Uint8Array[]> {
    const frames = this.chain.rows.slice(Math.max(1, range.from) - 1, Math.min(range.to, this.chain.position.seq)).map((r) => r.frame);
    if (frames.length > 0) yield frames;
  }

  tail(options: TailOptions = {}): AsyncGenerator<LogRecord> {
    const store = this;
    return follow(
      {
        head: () => store.chain.position.seq,
        readFrom: (from) => store.read({ from }),
        get closed() {
          return store.isClosed;
        },
        commits: store.commits,
      },
      options,
    );
  }

  verify(): Promise<ChainReport> {
    return verifySource(this.source());
  }

  /** verify walks the stored rows, not the log's view of them */
  private source(): ChainSource {
    const { rows, position } = this.chain;
    let at = 0;
    return {
      readHead: async () => (position.seq === 0 ? undefined : JSON.stringify({ seq: position.seq, hash: position.prev.toString('hex'), ts: position.ts })),
      nextChunk: async (size) => {
        const chunk = rows.slice(at, Math.min(at + size, position.seq)).map((r, i): [string, Uint8Array] => [seqKey(at + i + 1), r.frame]);
        at += chunk.length;
        return chunk;
      },
      close: async () => undefined,
    };
  }

  async importChain(frames: AsyncIterable<ChainFrame>): Promise<Head> {
    if (this.chain.position.seq > 0) throw importTargetNotEmpty(this.chain.position.seq);
    const records: ChainFrame[] = [];
    for await (const f of frames) records.push(f);
    const last = records.at(-1);
    if (last) this.keep(records, { seq: last.seq, prev: last.hash, ts: last.ts });
    return this.head();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settled();
    this.commits.emit('close');
  }
}
