// The event-store port: what the rest of Kioku may ask of a log. Implementations:
// LevelDB (the embedded default, event-log.ts) and memory (memory.ts, one chain shared
// by any number of logs, the model of a store written by several nodes) and PostgreSQL
// (postgres.ts). Every one passes the public contract, src/log/contract.ts; a store written
// elsewhere imports what it needs from src/log/public.ts. See docs/architecture.md.
import type { AppendInput, LogRecord } from '../events/index.js';
import type { SealKeyStore } from '../privacy/index.js';
import type { ChainReport, VerifyChainOptions } from './verify.js';

export interface Head {
  seq: number;
  /** hex sha256 of the last record; 64 zeros for an empty log */
  hash: string;
}

/**
 * Optimistic concurrency: the head the writer last saw. Give seq, hash, or both. With `types`,
 * only records of those types count: "nothing of these types was appended after seq" (the
 * stream a command decided on), so unrelated appends (turns, verdicts) are no conflict.
 */
export interface ExpectedHead {
  seq?: number;
  hash?: string;
  types?: readonly string[];
}

export interface AppendOptions {
  expectedHead?: ExpectedHead;
}

/** One record encoded for storage: its frame (format, hash, prev, body) and what stores index it by. */
export interface EncodedRecord {
  seq: number;
  type: string;
  ns: string;
  ts: number;
  frame: Buffer;
  hash: Buffer;
}

/** One stored frame with what a store indexes it by, and its parts. */
export interface ChainFrame extends EncodedRecord {
  prev: Buffer;
  body: Buffer;
}

export interface Appended {
  seq: number;
  hash: string;
}

export interface ReadOptions {
  /** first seq, inclusive (default 1) */
  from?: number;
  /** last seq, inclusive (default: the head when reading starts) */
  to?: number;
  /** only these types */
  types?: readonly string[];
  /** only this namespace */
  ns?: string;
  /** stop after this many records */
  limit?: number;
}

export interface FrameRange {
  from: number;
  to: number;
}

export interface TailOptions {
  from?: number;
  signal?: AbortSignal;
}

export type StoreKind = 'leveldb' | 'memory' | 'postgres';

/** How a shared store looks from this node (reported by /v1/health and `kioku doctor`). */
export interface StoreHealth {
  kind: StoreKind;
  /** whether the store answered the last time it was asked */
  connected: boolean;
  /** the last seq this node knows committed */
  node_head: number;
  /** the last seq the store itself reported */
  table_head: number;
  /** table_head − node_head */
  replication_lag: number;
  disconnected_ms?: number;
  error?: string;
  /** where the store is, without secrets */
  where: string;
}

export interface EventStore {
  readonly kind: StoreKind;
  /** the last committed record this log knows of */
  head(): Head;
  /**
   * Validate and append one event; resolves once it is durable. Invalid events are refused
   * (nothing written); with `expectedHead`, a head that moved is a LogConflictError.
   */
  append(event: AppendInput, options?: AppendOptions): Promise<Appended>;
  /** Several events atomically: all land contiguous, or none do. */
  appendAll(events: readonly AppendInput[], options?: AppendOptions): Promise<Appended[]>;
  get(seq: number): Promise<LogRecord | undefined>;
  /** Committed records in seq order. */
  read(options?: ReadOptions): AsyncGenerator<LogRecord>;
  /**
   * The stored frames of committed records `from`..`to` (inclusive, clamped to the head), in seq
   * order and in batches as the store reads them: undecoded, so they can be handed to another
   * thread (a rebuild folds its largest projections on the second core from them).
   */
  readFrames(range: FrameRange): AsyncGenerator<readonly Uint8Array[]>;
  /** Every record from `from` on, then each new one as it commits (from any writer), until aborted or closed. */
  tail(options?: TailOptions): AsyncGenerator<LogRecord>;
  /** Committed ranges, from any writer of the store; returns an unsubscribe function. */
  onCommit(listener: (range: { from: number; to: number }) => void): () => void;
  /** Walk the stored chain and report the first damage. */
  verify(options?: VerifyChainOptions): Promise<ChainReport>;
  /**
   * The data keys of sealing when the store keeps them itself, shared by every node (PostgreSQL: a
   * table beside the events, issue 33). Absent: the keys live in the data dir (src/store.ts).
   */
  readonly dataKeys?: SealKeyStore | undefined;
  /** A shared store's connection and lag (absent for embedded stores: always connected). */
  health?(): StoreHealth;
  /**
   * Whether this process holds `role` among every process writing the store (one embedding
   * job per shared library). Absent: the process is alone, so it always does.
   */
  holdsRole?(role: string): Promise<boolean>;
  /**
   * Run `task` holding a lock named `name` shared by every process writing the store, with
   * head() brought up to the store's real head first (commands that decide on the knowledge
   * stream take turns across nodes instead of racing). Absent: one process, nothing to share.
   */
  exclusive?<T>(name: string, task: () => Promise<T>): Promise<T>;
  /**
   * Write an exported chain verbatim into this store, which must be empty (kioku log import).
   * The frames come checked (src/log/transfer.ts); the store keeps them byte for byte.
   */
  importChain?(frames: AsyncIterable<ChainFrame>): Promise<Head>;
  /** Wait for queued appends to become durable, then close. */
  close(): Promise<void>;
  readonly isClosed: boolean;
}
