// Operations on a library while its service runs (issue 31): verify, log stats, one record,
// the stored frames for an export or a backup, and a backup point. LevelDB lets one process
// own a store, so these run inside the process that owns it and reach clients through the
// facade (src/kioku.ts) and the service routes (src/server/routes/operations.ts).
// Every one reads up to a head fixed when it starts, in chunks that give the event loop back
// between them: writers go on while a long chain is walked.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { KiokuError } from './errors.js';
import type { LogRecord } from './events/index.js';
import { ackedHeadFile, seqKey, verifyStore, type Head, type VerifyReport } from './log/index.js';
import type { ChainSource } from './log/verify.js';
import type { StatsState } from '../projections/stats.js';
import type { KiokuStore } from './store.js';

/** Records walked per chunk: about 4 ms of hashing, then writers get their turn. */
const CHUNK = 1000;

/** The most frames one page of `logFrames` carries (a page of ~1,000-byte frames is a few MB of JSON). */
export const FRAMES_PAGE_MAX = 5_000;

export interface LogStatsAnswer extends StatsState {
  head: Head;
}

export interface LogFramesAnswer {
  /** the head this page was read under: an export reads up to the head of its first page */
  head: Head;
  from: number;
  /** the stored frames of records from..from+n-1, base64, byte for byte */
  frames: string[];
}

export interface BackupPoint {
  /** every projection applied up to here, and nothing after */
  head: Head;
  /** the projections' canonical digests at `head` (what a rebuild of the log up to `head` must give) */
  digests: Record<string, string>;
}

/**
 * The chain up to the head this source reads first, as verify walks it: read in chunks, a turn of the
 * event loop given back after each. The head is read when verify asks for it, after the
 * acknowledged head file, so the acknowledged head is never past it.
 */
export function liveChainSource(store: KiokuStore): ChainSource {
  let head: Head | undefined;
  let frames: AsyncGenerator<readonly Uint8Array[]> | undefined;
  let pending: Uint8Array[] = [];
  let next = 1;
  return {
    readHead: async () => {
      head = store.log.head();
      return head.seq === 0 ? undefined : JSON.stringify({ seq: head.seq, hash: head.hash });
    },
    nextChunk: async (size) => {
      await nextTurn();
      const to = head?.seq ?? 0;
      frames ??= store.log.readFrames({ from: 1, to });
      while (pending.length < size) {
        const batch = await frames.next();
        if (batch.done) break;
        pending = pending.concat(batch.value as Uint8Array[]);
      }
      const chunk = pending.slice(0, size);
      pending = pending.slice(size);
      return chunk.map((frame): [string, Uint8Array] => [seqKey(next++), frame]);
    },
    close: async () => {
      await frames?.return(undefined);
    },
  };
}

/** Verify the chain of a library this process serves, up to its head now, with its anchors; optionally sign that head. */
export async function verifyLive(store: KiokuStore, options: { writeAnchor?: boolean } = {}): Promise<VerifyReport> {
  const { paths } = store;
  return verifyStore(liveChainSource(store), {
    anchorsFile: paths.anchorsFile,
    anchorKeyFile: paths.anchorKeyFile,
    writeAnchor: options.writeAnchor ?? false,
    ...(paths.store.kind === 'postgres' ? {} : { ackedHeadFile: ackedHeadFile(paths.dataDir) }),
    progressEvery: CHUNK,
  });
}

/** Event counts and bytes per type and namespace, with the head they were counted to. */
export async function logStats(store: KiokuStore): Promise<LogStatsAnswer> {
  const head = store.log.head();
  await store.projections.waitFor(head.seq);
  const stats = store.projections.views.stats.current();
  // the counts may have moved on past the head read above: name the head they stand at
  const at = stats.last?.seq === head.seq ? head : await headAt(store, stats.last?.seq ?? 0);
  return { head: at, ...stats };
}

/** One record, decoded; bytes (vectors) as base64. */
export async function logRecord(store: KiokuStore, seq: number): Promise<LogRecord> {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new KiokuError('KIOKU_INPUT_INVALID', `seq must be a positive integer, got "${seq}"`, { details: { field: 'seq' } });
  const record = await store.log.get(seq);
  if (!record) throw new KiokuError('KIOKU_RECORD_NOT_FOUND', `no record ${seq} (the log ends at ${store.log.head().seq})`, { details: { seq } });
  return jsonSafe(record) as LogRecord;
}

/** A page of stored frames from `from`, at most `limit`, never past `to` (default: the head now). */
export async function logFrames(store: KiokuStore, input: { from: number; to?: number; limit?: number }): Promise<LogFramesAnswer> {
  const head = store.log.head();
  const limit = input.limit ?? 1_000;
  for (const [field, v] of [
    ['from', input.from],
    ['to', input.to ?? 1],
    ['limit', limit],
  ] as const)
    if (!Number.isSafeInteger(v) || v < 1) throw new KiokuError('KIOKU_INPUT_INVALID', `${field} must be a positive integer`, { details: { field } });
  if (limit > FRAMES_PAGE_MAX) throw new KiokuError('KIOKU_INPUT_INVALID', `limit is at most ${FRAMES_PAGE_MAX}`, { details: { field: 'limit' } });
  const to = Math.min(input.to ?? head.seq, head.seq, input.from + limit - 1);
  const frames: string[] = [];
  if (input.from <= to)
    for await (const batch of store.log.readFrames({ from: input.from, to })) for (const f of batch) frames.push(Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64'));
  const asked = input.to === undefined ? head : await headAt(store, Math.min(input.to, head.seq));
  return { head: asked, from: input.from, frames };
}

/**
 * A point a backup can stand on: the head every projection has applied, and their digests there,
 * taken in one turn of the event loop (nothing is applied in between). Digesting reads every
 * projection whole: a pause of the service's writes for that long (a backup, not a routine read).
 */
export async function backupPoint(store: KiokuStore): Promise<BackupPoint> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const head = store.log.head();
    await store.projections.waitFor(head.seq);
    const seqs = store.projections.status().map((s) => s.seq);
    const seq = Math.min(...seqs);
    if (seqs.every((s) => s === seq)) {
      const digests = store.projections.digests();
      return { head: seq === head.seq ? head : await headAt(store, seq), digests };
    }
  }
  throw new KiokuError('KIOKU_SERVICE_UNAVAILABLE', 'the projections did not stand at one head long enough for a backup point; retry', {});
}

async function headAt(store: KiokuStore, seq: number): Promise<Head> {
  if (seq === 0) return { seq: 0, hash: '0'.repeat(64) };
  const record = await store.log.get(seq);
  if (!record) throw new KiokuError('KIOKU_RECORD_NOT_FOUND', `no record ${seq}`, { details: { seq } });
  return { seq, hash: record.hash };
}

/** Bytes as `{ $bytes: base64, length }`, as `kioku log show` prints them. */
export function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => {
      if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString('base64'), length: v.length };
      if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
        const data = (v as { data: number[] }).data;
        return { $bytes: Buffer.from(data).toString('base64'), length: data.length };
      }
      return v;
    }),
  );
}
