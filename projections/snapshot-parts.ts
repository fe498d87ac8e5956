// A snapshot's side files (an HNSW graph) listed in its file with their size and checksum, taken
// when they are written and checked before anything reads them: a part that is missing, cut short
// or changed discards the snapshot, and the projection is folded again from the log (the only
// truth); a damaged graph is never handed to hnswlib (issue 29 item 7).
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, readdirSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';

export interface SnapshotPart {
  size: number;
  /** `crc32:<hex>`, or `sha256:<hex>` on a Node without zlib.crc32 */
  checksum: string;
}

/** file name (in the snapshot's side-file folder) → its size and checksum */
export type SnapshotParts = Record<string, SnapshotPart>;

// CRC-32 as the snapshot files use it (a damaged file, not an attacker, is what it detects): at
// ~1–1.7 GB/s here against sha256's 0.2–0.44 GB/s, the million-item graph's 2.2 GB take ~1.5 s.
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

const CHUNK_BYTES = 4 * 1024 * 1024;

/** A checksum taken a chunk at a time: CRC-32 where zlib has it, else sha256 (or the kind a listed part names). */
class RunningChecksum {
  private crc = 0;
  private readonly sha: ReturnType<typeof createHash> | undefined;
  constructor(kind: 'crc32' | 'sha256' = crc32 ? 'crc32' : 'sha256') {
    if (kind === 'crc32' && !crc32) throw new Error('this snapshot lists CRC-32 checksums and this Node has no zlib.crc32 (Node ≥ 20.15 has)');
    this.sha = kind === 'sha256' ? createHash('sha256') : undefined;
  }
  add(bytes: Uint8Array): void {
    if (this.sha) this.sha.update(bytes);
    else this.crc = (crc32 as NonNullable<typeof crc32>)(bytes, this.crc);
  }
  value(): string {
    return this.sha ? `sha256:${this.sha.digest('hex')}` : `crc32:${this.crc.toString(16).padStart(8, '0')}`;
  }
}

/**
 * Sync every file of `folder` (written by a projection's persistFiles) and list it with its size
 * and checksum, read back from the synced file: the bytes a later load will read.
 */
export function syncParts(folder: string): SnapshotParts {
  const parts: SnapshotParts = {};
  const buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  for (const name of readdirSync(folder).sort()) {
    const fd = openSync(join(folder, name), 'r');
    try {
      fsyncSync(fd);
      const sum = new RunningChecksum();
      let size = 0;
      for (let n = readSync(fd, buffer, 0, CHUNK_BYTES, size); n > 0; n = readSync(fd, buffer, 0, CHUNK_BYTES, size)) {
        sum.add(buffer.subarray(0, n));
        size += n;
      }
      parts[name] = { size, checksum: sum.value() };
    } finally {
      closeSync(fd);
    }
  }
  const dir = openSync(folder, 'r'); // the files' names too
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return parts;
}

/**
 * Why the parts cannot be used, found by their sizes alone (no reading), or undefined: a missing
 * folder or file, or one cut short. A snapshot from before parts were listed (`parts` undefined)
 * needs its folder at least.
 */
export async function partsMissing(folder: string, parts: SnapshotParts | undefined): Promise<string | undefined> {
  if (!parts) {
    return readdir(folder).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => `side files ${folder}: ${err.code ?? err.message}`,
    );
  }
  const sizes = await Promise.all(
    Object.keys(parts).map((name) =>
      stat(join(folder, name)).then(
        (s) => s.size,
        (err: NodeJS.ErrnoException) => err.code ?? err.message,
      ),
    ),
  );
  for (const [i, [name, part]] of Object.entries(parts).entries()) {
    const size = sizes[i];
    if (typeof size === 'string') return `side file ${join(folder, name)} ${size === 'ENOENT' ? 'missing' : `unreadable (${size})`}`;
    if (size !== part.size) return `side file ${join(folder, name)} is ${size} bytes, ${part.size} were written`;
  }
  return undefined;
}

/**
 * Check every part's bytes against its checksum (reads in chunks off this thread, each chunk's
 * checksum taken here between other work); rejects naming the first part that differs.
 */
export async function checkParts(folder: string, parts: SnapshotParts): Promise<void> {
  const buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  for (const [name, part] of Object.entries(parts)) {
    const path = join(folder, name);
    const file = await open(path, 'r');
    const sum = new RunningChecksum(part.checksum.startsWith('sha256:') ? 'sha256' : 'crc32');
    let size = 0;
    try {
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, size);
        if (bytesRead === 0) break;
        sum.add(buffer.subarray(0, bytesRead));
        size += bytesRead;
      }
    } finally {
      await file.close();
    }
    if (size !== part.size) throw new Error(`side file ${path} is ${size} bytes, ${part.size} were written`);
    if (sum.value() !== part.checksum) throw new Error(`side file ${path}: checksum mismatch (file damaged)`);
  }
}

/** A listing read from a snapshot file: well formed, or undefined. */
export function asParts(value: unknown): SnapshotParts | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const part of Object.values(value)) {
    const p = part as Partial<SnapshotPart> | null;
    if (!p || typeof p.size !== 'number' || typeof p.checksum !== 'string') return undefined;
  }
  return value as SnapshotParts;
}
