// The Level store the log is written against. Anything implementing abstract-level
// (classic-level on disk, memory-level in tests) is a valid backing store; the
// contract suite in tests/log-contract.test.ts runs against both.
import type { AbstractLevel, AbstractSublevel } from 'abstract-level';

export type LevelFormat = string | Buffer | Uint8Array;
export type LevelStore = AbstractLevel<LevelFormat, string, string>;
export type BytesSublevel = AbstractSublevel<LevelStore, LevelFormat, string, Uint8Array>;
export type TextSublevel = AbstractSublevel<LevelStore, LevelFormat, string, string>;

/** Sublevel names inside one LevelDB: the records, the head meta, and a type index. */
export interface LogSublevels {
  records: BytesSublevel;
  meta: TextSublevel;
  byType: TextSublevel;
}

export function logSublevels(db: LevelStore): LogSublevels {
  return {
    records: db.sublevel<string, Uint8Array>('log', { valueEncoding: 'buffer' }),
    meta: db.sublevel<string, string>('meta', { valueEncoding: 'utf8' }),
    byType: db.sublevel<string, string>('type', { valueEncoding: 'utf8' }),
  };
}

export const HEAD_KEY = 'head';

export interface HeadMeta {
  seq: number;
  hash: string;
  ts: number;
}

export function parseHeadMeta(raw: string | undefined): HeadMeta | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<HeadMeta>;
    if (typeof v.seq === 'number' && Number.isSafeInteger(v.seq) && v.seq >= 0 && typeof v.hash === 'string' && /^[0-9a-f]{64}$/.test(v.hash)) {
      return { seq: v.seq, hash: v.hash, ts: typeof v.ts === 'number' ? v.ts : 0 };
    }
  } catch {
    // fall through: an unparsable head is reported as damage by verify
  }
  return undefined;
}

/**
 * Iterator options for reading the log in chunks: classic-level ends a nextv() once it holds
 * 16 KiB, ~45 records of the usual size, so reading 65,000 events took ~1,800 trips through the
 * thread pool, each a wait on the main thread (a fifth of a full rebuild). Up to 1 MiB a trip
 * reads a whole chunk at once. Other stores ignore the option.
 */
export const READ_AHEAD = { highWaterMarkBytes: 1 << 20 } as unknown as Record<string, never>;

/** Options classic-level honours on batch(); abstract-level's types do not list `sync`. */
export const DURABLE = { sync: true } as unknown as Record<string, never>;
