// Snapshot files: <dir>/<projection>/snapshot.msgpack, written atomically
// (temp file, fsync, rename, fsync dir) so a crash leaves the old or the new one.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import zlib from 'node:zlib';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { asParts, type SnapshotParts } from './snapshot-parts.js';

// variableMapSize: snapshots hold maps with more than 65,535 keys (fast 16-bit map sizes cannot).
const packr = new Packr({ useRecords: false, moreTypes: true, variableMapSize: true });
// States are packed with msgpackr records (each object shape written once): ~35% faster to load and
// objects that take less memory. Files from before say nothing and are read without records
// (a records reader would take their small integers for record ids).
const statePackr = new Packr({ useRecords: true, moreTypes: true, variableMapSize: true });
export const STATE_ENCODING = 'msgpack-records';

export interface SnapshotFile {
  format: 2;
  name: string;
  version: number;
  seq: number;
  hash: string;
  /** `crc32:<hex>` (or, in older files, the sha256 hex) of `state` (the packed bytes): detects a damaged file without a canonical digest */
  checksum: string;
  /** the projection's state, packed separately so it can be checksummed */
  state: Uint8Array;
  /** how `state` is packed: 'msgpack-records', or absent for plain msgpack (older files) */
  encoding?: typeof STATE_ENCODING;
  /** folder (beside the snapshot file) holding the projection's side files, if any */
  files?: string;
  /** each side file's size and checksum, checked before it is read (absent in older files) */
  parts?: SnapshotParts;
}

/**
 * Pack a projection state and checksum it. `sizeHint`: the bytes its last packing took (its
 * snapshot on disk, say). msgpackr packs into one buffer of its own, growing it by copies from
 * what it has: handed a buffer of about the right size instead, it packs in one go (100k records:
 * 250 ms instead of 480 ms, fresh memory being slow to touch on these machines).
 */
export function packState(state: unknown, sizeHint = 0): { state: Uint8Array; checksum: string; encoding: typeof STATE_ENCODING } {
  if (sizeHint > PACK_BUFFER_BYTES) statePackr.useBuffer(Buffer.allocUnsafeSlow(Math.ceil(sizeHint * 1.1) + PACK_BUFFER_BYTES)); // a Buffer, as msgpackr makes its own
  const bytes = statePackr.pack(state);
  // That buffer is also kept for the next pack and only ever grows: after a large state it would
  // hold ~1.25–2× that state for the life of the process (68 MB of RSS after one snapshot at 100k
  // items). Handing it a small fresh one lets the large one go with `bytes`.
  if (bytes.length > PACK_BUFFER_BYTES) statePackr.useBuffer(Buffer.allocUnsafeSlow(PACK_BUFFER_BYTES));
  return { state: bytes, checksum: checksumOf(bytes), encoding: STATE_ENCODING };
}

const PACK_BUFFER_BYTES = 64 * 1024;

// The checksum detects a damaged file (it is no security boundary: whoever can write the file can
// write its checksum). CRC-32 through zlib (Node ≥ 20.15) reads ~5× faster than sha256, which
// was a tenth of start-up at 100k records; files with a sha256 checksum still verify.
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

function checksumOf(bytes: Uint8Array): string {
  return crc32 ? `crc32:${crc32(bytes).toString(16).padStart(8, '0')}` : createHash('sha256').update(bytes).digest('hex');
}

function checksumMatches(bytes: Uint8Array, checksum: string): boolean {
  if (checksum.startsWith('crc32:')) {
    if (!crc32) throw new Error('this snapshot has a CRC-32 checksum and this Node has no zlib.crc32 (Node ≥ 20.15 has)');
    return checksum === `crc32:${crc32(bytes).toString(16).padStart(8, '0')}`;
  }
  return createHash('sha256').update(bytes).digest('hex') === checksum;
}

export function unpackState(snap: SnapshotFile): unknown {
  const readWith = checksumRead.get(snap.state);
  if (readWith !== undefined ? readWith !== snap.checksum : !checksumMatches(snap.state, snap.checksum)) throw new Error('checksum mismatch (file damaged?)');
  try {
    return snap.encoding === STATE_ENCODING ? statePackr.unpack(snap.state) : packr.unpack(snap.state);
  } finally {
    releaseUnpackedBytes();
  }
}

// msgpackr keeps a DataView of the last buffer it unpacked (module state, shared by every unpacker)
// until something else is unpacked: after a start-up that was the last snapshot file's bytes, held
// for nothing (35 MB of RSS at 100k items, 345 MB at 1M). Unpacking one byte (nil) lets them go.
const NIL = Uint8Array.of(0xc0);
export function releaseUnpackedBytes(): void {
  packr.unpack(NIL);
}

export function snapshotPath(dir: string, name: string): string {
  return join(dir, name, 'snapshot.msgpack');
}

export function writeSnapshotFile(dir: string, snap: SnapshotFile): void {
  const folder = join(dir, snap.name);
  mkdirSync(folder, { recursive: true });
  const target = snapshotPath(dir, snap.name);
  const tmp = `${target}.tmp-${process.pid}`;
  const [head, state] = fileParts(snap);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, head);
    writeSync(fd, state);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, target);
  const dfd = openSync(folder, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/**
 * The file as two parts, so the packed state (megabytes) is written as it is, not copied into a
 * second packing of the whole file: the fields packed with `state` last and empty (msgpack bin8,
 * c4 00), that bin header widened to bin32 (c6 + length), then the state's bytes. It unpacks to
 * the same object as packing the whole (only the key order differs).
 */
export function fileParts(snap: SnapshotFile): [Uint8Array, Uint8Array] {
  const { state, ...fields } = snap;
  // the fields' own checksum, as `checksum` is the state's: a byte changed in the head is caught too
  const packed = packr.pack({ ...fields, fieldsChecksum: checksumOf(packr.pack(fields)), state: Buffer.alloc(0) });
  if (packed[packed.length - 2] !== 0xc4 || packed[packed.length - 1] !== 0) throw new Error('snapshot file: unexpected packing of the empty state');
  const head = Buffer.alloc(packed.length + 3);
  head.set(packed.subarray(0, packed.length - 2));
  head[packed.length - 2] = 0xc6;
  head.writeUInt32BE(state.length, packed.length - 1);
  return [head, state];
}

export type SnapshotRead = SnapshotFile | { missing: true } | { invalid: string };

/** The snapshot, or a reason it cannot be used (missing is not a warning). */
export function readSnapshotFile(dir: string, name: string): SnapshotRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(snapshotPath(dir, name));
  } catch (err) {
    return unreadable(err);
  }
  return parseSnapshotFile(bytes);
}

/**
 * readSnapshotFile, reading off the main thread (start-up reads every projection's file at once),
 * a chunk at a time, with the state's CRC-32 taken from each chunk as it arrives: checksumming
 * is mostly the first touch of freshly read memory (1.7–2 s of a million items' 640 MB of
 * snapshots on these machines), and done this way it fills the main thread's wait for the
 * reads instead of following them. unpackState then compares the checksum it was read with.
 */
export async function readSnapshotFileAsync(dir: string, name: string): Promise<SnapshotRead> {
  let bytes: Buffer;
  let state = -1;
  let crc = 0;
  try {
    const file = await open(snapshotPath(dir, name), 'r');
    try {
      const size = (await file.stat()).size;
      bytes = Buffer.allocUnsafeSlow(size);
      for (let at = 0; at < size;) {
        const { bytesRead } = await file.read(bytes, at, Math.min(READ_CHUNK_BYTES, size - at), at);
        if (bytesRead === 0) throw new Error('snapshot file: shorter than its size');
        const end = at + bytesRead;
        if (at === 0) state = crc32 ? stateStart(bytes.subarray(0, end), size) : -1;
        if (state >= 0 && end > state) crc = (crc32 as NonNullable<typeof crc32>)(bytes.subarray(Math.max(at, state), end), crc);
        at = end;
      }
    } finally {
      await file.close();
    }
  } catch (err) {
    return unreadable(err);
  }
  const snap = parseSnapshotFile(bytes);
  if (state >= 0 && 'state' in snap && snap.state.buffer === bytes.buffer && snap.state.byteOffset === state)
    checksumRead.set(snap.state, `crc32:${crc.toString(16).padStart(8, '0')}`);
  return snap;
}

const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/** The CRC-32 checksum a state's bytes were read with (see readSnapshotFileAsync). */
const checksumRead = new WeakMap<Uint8Array, string>();

/**
 * Where the state starts in a file of `size` bytes that fileParts wrote, found in its first
 * chunk: the key "state" packed last, then its bin32 header whose length ends at the file's end
 * (no other reading fits both). -1 otherwise (older files, packed whole: checked after the read).
 */
function stateStart(head: Uint8Array, size: number): number {
  const view = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 64 * 1024));
  for (let p = view.indexOf(STATE_KEY_BIN32); p >= 0; p = view.indexOf(STATE_KEY_BIN32, p + 1)) {
    const start = p + STATE_KEY_BIN32.length + 4;
    if (start <= view.length && start + view.readUInt32BE(p + STATE_KEY_BIN32.length) === size) return start;
  }
  return -1;
}

/** fixstr "state" and a bin32 header's first byte */
const STATE_KEY_BIN32 = Buffer.from([0xa5, ...Buffer.from('state'), 0xc6]);

function unreadable(err: unknown): { missing: true } | { invalid: string } {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
  return { invalid: (err as Error).message };
}

function parseSnapshotFile(bytes: Buffer): SnapshotRead {
  try {
    const { fieldsChecksum, ...snap } = packr.unpack(bytes) as Partial<SnapshotFile> & { fieldsChecksum?: unknown };
    if (fieldsChecksum !== undefined && !fieldsMatch(snap, fieldsChecksum)) return { invalid: 'fields checksum mismatch (file damaged?)' };
    if (
      snap?.format !== 2 ||
      typeof snap.seq !== 'number' ||
      typeof snap.hash !== 'string' ||
      typeof snap.checksum !== 'string' ||
      !(snap.state instanceof Uint8Array) ||
      (snap.parts !== undefined && !asParts(snap.parts))
    ) {
      return { invalid: 'not a snapshot file (or an older format)' };
    }
    return snap as SnapshotFile;
  } catch (err) {
    return { invalid: `undecodable: ${(err as Error).message}` };
  } finally {
    releaseUnpackedBytes(); // the file's bytes stay reachable through `state` only, until it is unpacked
  }
}

/** The fields (all but the state, in the file's order) packed as fileParts packed them, against their checksum. */
function fieldsMatch(snap: Partial<SnapshotFile>, checksum: unknown): boolean {
  const { state: _state, ...fields } = snap;
  return typeof checksum === 'string' && checksumMatches(packr.pack(fields), checksum);
}

/** A fresh folder for side files of the snapshot at `seq` (written before the snapshot file points at it). */
export function sideFilesDir(dir: string, name: string, seq: number): { folder: string; name: string } {
  const folderName = `files-${seq}-${process.pid}-${Date.now()}`;
  const folder = join(dir, name, folderName);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return { folder, name: folderName };
}

/** Remove side-file folders the current snapshot does not use (after it was renamed into place). */
export function pruneSideFiles(dir: string, name: string, keep: string | undefined): void {
  let entries: string[];
  try {
    entries = readdirSync(join(dir, name));
  } catch {
    return;
  }
  for (const entry of entries) if (entry.startsWith('files-') && entry !== keep) rmSync(join(dir, name, entry), { recursive: true, force: true });
}
