// Long string lists in snapshots (a projection's keys) packed as one msgpack bin, unpacked when
// first read: a million keys unpacked at start-up were a million strings for the young
// generation to promote, though nothing reads them until the warm-up or the HNSW graphs' arrival.
import { Packr } from 'msgpackr';
import { releaseUnpackedBytes } from './snapshot-file.js';

const listPackr = new Packr({ useRecords: false, variableMapSize: true });

export function packStrings(list: readonly (string | null)[]): Uint8Array {
  return listPackr.pack(list);
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
      if (!Array.isArray(keys) || !keys.every((k) => k === null || typeof k === 'string')) throw new Error('snapshot: packed keys are not a list of strings');
      Object.defineProperty(holder, 'keys', { value: keys, writable: true, enumerable: true, configurable: true });
      return keys as (string | null)[];
    },
  });
}
