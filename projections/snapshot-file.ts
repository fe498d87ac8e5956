// Snapshot files: <dir>/<projection>/snapshot.msgpack, written atomically
// (temp file, fsync, rename, fsync dir) so a crash leaves the old or the new one.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';

const packr = new Packr({ useRecords: false, moreTypes: true });

export interface SnapshotFile {
  format: 1;
  name: string;
  version: number;
  seq: number;
  hash: string;
  digest: string;
  state: unknown;
}

export function snapshotPath(dir: string, name: string): string {
  return join(dir, name, 'snapshot.msgpack');
}

export function writeSnapshotFile(dir: string, snap: SnapshotFile): void {
  const folder = join(dir, snap.name);
  mkdirSync(folder, { recursive: true });
  const target = snapshotPath(dir, snap.name);
  const tmp = `${target}.tmp-${process.pid}`;
  const bytes = packr.pack(snap);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, bytes);
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

/** The snapshot, or a reason it cannot be used (missing is not a warning). */
export function readSnapshotFile(dir: string, name: string): SnapshotFile | { missing: true } | { invalid: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(snapshotPath(dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { invalid: (err as Error).message };
  }
  try {
    const snap = packr.unpack(bytes) as Partial<SnapshotFile>;
    if (snap?.format !== 1 || typeof snap.seq !== 'number' || typeof snap.hash !== 'string' || typeof snap.digest !== 'string') {
      return { invalid: 'not a snapshot file' };
    }
    return snap as SnapshotFile;
  } catch (err) {
    return { invalid: `undecodable: ${(err as Error).message}` };
  }
}
