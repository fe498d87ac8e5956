// Long string lists in snapshots (a projection's keys) packed as msgpack bins — chunks a warm-up
// slice can unpack each (older snapshots: one bin) — and unpacked when first read: a million keys unpacked at
// start-up were a million strings for the young generation to promote, though nothing reads them
// until the warm-up or the HNSW graphs' arrival.
import { Packr } from 'msgpackr';
import { releaseUnpackedBytes } from './snapshot-file.js';

const listPackr = new Packr({ useRecords: false, variableMapSize: true });

/** A list packed `perChunk` strings to a bin (see unpackStringChunk). */
export function packStringChunks(list: readonly (string | null)[], perChunk: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < list.length; i += perChunk) chunks.push(listPackr.pack(list.slice(i, i + perChunk)));
  return chunks;
}

/** Chunk c of a list of `count` strings packed by packStringChunks. */
export function unpackStringChunk(chunks: readonly Uint8Array[], c: number, count: number, perChunk: number): string[] {
  const list = listPackr.unpack(chunks[c] as Uint8Array) as unknown;
  const expected = Math.min(perChunk, count - c * perChunk);
  if (!isStringList(list, false) || list.length !== expected)
    throw new Error(`snapshot: key chunk ${c} holds ${Array.isArray(list) ? list.length : 'no'} keys, expected ${expected}`);
  return list as string[];
}

function isStringList(value: unknown, nullsToo: boolean): value is (string | null)[] {
  return Array.isArray(value) && value.every((k) => typeof k === 'string' || (nullsToo && k === null));
}

/** Holders whose chunked keys are still being read: the next chunks, a slice at a time (see readKeysSome). */
const chunkedReads = new WeakMap<object, (until: number) => boolean>();

/**
 * Give `holder` a `keys` property read from its `keysPacked` bytes on first access (then a plain
 * value: later reads cost nothing, and writes replace it). Packed as one bin (older snapshots) the
 * list is read whole then; packed in chunks, readKeysSome() can read it a slice at a time before
 * (a million keys in one piece held the event loop ~0.4–1 s), and the first access reads the rest.
 */
export function keysOnFirstRead(holder: { keysPacked?: Uint8Array | Uint8Array[] }): void {
  const packed = holder.keysPacked;
  const chunked = Array.isArray(packed) && packed.every((c) => c instanceof Uint8Array);
  if (!(packed instanceof Uint8Array) && !chunked) throw new Error('snapshot: packed keys are not bytes');
  delete holder.keysPacked;
  let keys: (string | null)[] = [];
  const chunks = packed instanceof Uint8Array ? [packed] : packed;
  let next = 0;
  const settle = (): void => {
    chunkedReads.delete(holder);
    releaseUnpackedBytes(); // msgpackr would hold the bytes' whole file until its next unpack
    Object.defineProperty(holder, 'keys', { value: keys, writable: true, enumerable: true, configurable: true });
  };
  const readSome = (until: number): boolean => {
    while (next < chunks.length) {
      const list = listPackr.unpack(chunks[next] as Uint8Array) as unknown;
      if (!isStringList(list, true))
        throw new Error(chunked ? `snapshot: packed key chunk ${next} is not a list of strings` : 'snapshot: packed keys are not a list of strings');
      next += 1;
      if (chunks.length === 1) keys = list;
      else for (const key of list) keys.push(key);
      if (next < chunks.length && performance.now() >= until) return false;
    }
    settle();
    return true;
  };
  chunkedReads.set(holder, readSome);
  Object.defineProperty(holder, 'keys', {
    configurable: true,
    enumerable: true,
    get(): (string | null)[] {
      readSome(Infinity);
      return keys;
    },
  });
}

/**
 * Read more of `holder`'s chunked keys (see keysOnFirstRead) until `until` (performance.now());
 * true once all are read (at once for keys already read, or never packed).
 */
export function readKeysSome(holder: object, until: number): boolean {
  const readSome = chunkedReads.get(holder);
  return readSome ? readSome(until) : true;
}
