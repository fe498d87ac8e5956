// Long string lists in snapshots (a projection's keys) packed as msgpack bins — one, or chunks a
// warm-up slice can unpack each — and unpacked when first read: a million keys unpacked at
// start-up were a million strings for the young generation to promote, though nothing reads them
// until the warm-up or the HNSW graphs' arrival.
import { Packr } from 'msgpackr';
import { releaseUnpackedBytes } from './snapshot-file.js';

const listPackr = new Packr({ useRecords: false, variableMapSize: true });

export function packStrings(list: readonly (string | null)[]): Uint8Array {
  return listPackr.pack(list);
}

/** A list packed `perChunk` strings to a bin (see unpackStringChunk). */
export function packStringChunks(list: readonly string[], perChunk: number): Uint8Array[] {
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

/**
 * Give `holder` a `keys` property read from its `keysPacked` bytes on first access (then a plain
 * value: later reads cost nothing, and writes replace it).
 */
export function keysOnFirstRead(holder: { keysPacked?: Uint8Array }): void {
  const bytes = holder.keysPacked;
  if (!(bytes instanceof Uint8Array)) throw new Error('snapshot: packed keys are not bytes');
  delete holder.keysPacked;
  Object.defineProperty(holder, 'keys', {
    configurable: true,
    enumerable: true,
    get(): (string | null)[] {
      const keys = listPackr.unpack(bytes) as unknown;
      releaseUnpackedBytes(); // msgpackr would hold the bytes' whole file until its next unpack
      if (!isStringList(keys, true)) throw new Error('snapshot: packed keys are not a list of strings');
      Object.defineProperty(holder, 'keys', { value: keys, writable: true, enumerable: true, configurable: true });
      return keys;
    },
  });
}
