// Walk the chain and report the first damage. Works on the raw store, not on an
// open EventLog, so a damaged store can still be inspected.
import { GENESIS_HASH_HEX, GENESIS_PREV, parseSeqKey, peekSeq, sha256, splitFrame } from './codec.js';
import { HEAD_KEY, READ_AHEAD, logSublevels, parseHeadMeta, type LevelStore } from './level.js';

export const DAMAGE_KINDS = ['modified', 'missing', 'reordered', 'truncated', 'foreign', 'anchor_mismatch', 'unreadable'] as const;
export type DamageKind = (typeof DAMAGE_KINDS)[number];

export interface Damage {
  seq: number;
  kind: DamageKind;
  detail: string;
}

export interface ChainReport {
  ok: boolean;
  head: { seq: number; hash: string };
  /** records whose hash and link were checked */
  checked: number;
  /** bytes of stored record values walked */
  bytes: number;
  damage?: Damage;
}

export interface VerifyChainOptions {
  onProgress?: (checked: number, headSeq: number) => void;
  /** call onProgress every this many records (default 10,000) */
  progressEvery?: number;
}

const CHUNK = 1000;

/** Map from seq to the hex hash the chain holds there, for anchor checks; filled only for requested seqs. */
export type HashProbe = Map<number, string | undefined>;

/**
 * What verify walks: the raw head meta and the stored (key, frame) pairs in key order, in chunks.
 * A store gives its own; reading must not go through the log, so a damaged store can be inspected.
 */
export interface ChainSource {
  /** the head meta as stored (JSON), undefined when absent */
  readHead(): Promise<string | undefined>;
  /** the next chunk of stored entries (empty at the end) */
  nextChunk(size: number): Promise<[string, Uint8Array][]>;
  close(): Promise<void>;
  /** what the store keeps beside a frame disagreeing with its hashed body (PostgreSQL's type/ns/ts columns), else undefined */
  checkStored?(seq: number, body: Uint8Array): string | undefined;
}

/** A LevelDB (any abstract-level) store as a chain source. */
export function levelChainSource(db: LevelStore): ChainSource {
  const sub = logSublevels(db);
  let it: ReturnType<typeof sub.records.iterator> | undefined;
  return {
    readHead: () => sub.meta.get(HEAD_KEY),
    nextChunk: (size) => (it ??= sub.records.iterator(READ_AHEAD)).nextv(size) as Promise<[string, Uint8Array][]>,
    close: async () => {
      await it?.close();
    },
  };
}

export async function verifyChain(db: LevelStore, options: VerifyChainOptions & { probe?: HashProbe } = {}): Promise<ChainReport> {
  return verifySource(levelChainSource(db), options);
}

export async function verifySource(source: ChainSource, options: VerifyChainOptions & { probe?: HashProbe } = {}): Promise<ChainReport> {
  let rawHead: string | undefined;
  try {
    rawHead = await source.readHead();
  } catch (err) {
    return unreadable(0, err, { seq: 0, hash: GENESIS_HASH_HEX });
  }
  const headMeta = parseHeadMeta(rawHead);
  const head = headMeta ? { seq: headMeta.seq, hash: headMeta.hash } : { seq: 0, hash: GENESIS_HASH_HEX };
  const every = options.progressEvery ?? 10_000;
  const probe = options.probe;

  let expected = 1;
  let prev: Buffer = Buffer.from(GENESIS_PREV);
  let checked = 0;
  let bytes = 0;
  const fail = (seq: number, kind: DamageKind, detail: string): ChainReport => ({ ok: false, head, checked, bytes, damage: { seq, kind, detail } });

  // Ask the store for the next chunk before hashing this one: LevelDB's thread reads while we hash.
  let nextChunk = source.nextChunk(CHUNK);
  try {
    for (;;) {
      let entries: [string, Uint8Array][];
      try {
        entries = await nextChunk;
      } catch (err) {
        return unreadable(expected, err, head, checked, bytes);
      }
      if (entries.length === 0) break;
      nextChunk = source.nextChunk(CHUNK);
      nextChunk.catch(() => undefined); // observed on the next turn of the loop
      for (const [key, value] of entries) {
        const seq = parseSeqKey(key);
        if (seq === undefined) return fail(expected, 'foreign', `a key that is not a sequence number (${JSON.stringify(key).slice(0, 40)}) sits in the log`);
        if (seq > expected) return fail(expected, 'missing', `record ${expected} is absent (next present is ${seq})`);
        bytes += value.length;
        const frame = splitFrame(value);
        if (!frame) return fail(seq, 'modified', 'stored value is not a record frame');
        if (!sha256(frame.hashed).equals(frame.hash)) return fail(seq, 'modified', 'stored hash does not match the record bytes');
        const bodySeq = peekSeq(frame.body);
        if (bodySeq !== seq) {
          return bodySeq === undefined
            ? fail(seq, 'modified', 'record body does not decode')
            : fail(seq, 'reordered', `record ${bodySeq} is stored at position ${seq}`);
        }
        if (!frame.prev.equals(prev))
          return fail(seq, 'modified', `link broken: prev does not match record ${seq - 1}'s hash (record ${seq - 1} or ${seq} was rewritten)`);
        const stored = source.checkStored?.(seq, frame.body);
        if (stored) return fail(seq, 'modified', stored);
        if (probe?.has(seq)) probe.set(seq, frame.hash.toString('hex'));
        prev = frame.hash;
        checked += 1;
        expected = seq + 1;
        if (options.onProgress && checked % every === 0) options.onProgress(checked, head.seq);
      }
    }
  } finally {
    await nextChunk.catch(() => undefined);
    await source.close().catch(() => undefined);
  }
  const last = expected - 1;
  const lastHash = last === 0 ? GENESIS_HASH_HEX : prev.toString('hex');
  if (!headMeta) {
    if (rawHead !== undefined) return fail(last, 'modified', 'head meta is unreadable');
    if (last > 0) return fail(last, 'modified', 'head meta is missing although records exist');
  } else if (headMeta.seq > last) {
    return fail(last + 1, 'truncated', `head meta says ${headMeta.seq} records, the log ends at ${last}`);
  } else if (headMeta.seq < last) {
    return fail(headMeta.seq + 1, 'foreign', `records ${headMeta.seq + 1}..${last} lie beyond the head meta`);
  } else if (headMeta.hash !== lastHash) {
    return fail(last, 'modified', 'head meta hash does not match the last record');
  }
  options.onProgress?.(checked, head.seq);
  return { ok: true, head: { seq: last, hash: lastHash }, checked, bytes };
}

function unreadable(seq: number, err: unknown, head: ChainReport['head'], checked = 0, bytes = 0): ChainReport {
  const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  return { ok: false, head, checked, bytes, damage: { seq, kind: 'unreadable', detail: reason } };
}
