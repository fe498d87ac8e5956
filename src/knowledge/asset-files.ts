// Reading an asset file the policy opened (hash, size, the first bytes) and keeping content a
// client uploaded. Uploads are content-addressed under `<data>/assets/<ns>/<sha256>/<name>`:
// the asset.registered event keeps its shape (an absolute path, size, sha256), the bytes
// stay out of the log (events stay lean), and a repeat upload writes nothing new.
import { createHash, randomBytes } from 'node:crypto';
import { close, closeSync, existsSync, fsyncSync, mkdirSync, openSync, read, renameSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { KiokuError } from '../errors.js';
import type { AssetPolicy, OpenedAsset } from './asset-policy.js';

/** The most bytes a client may upload as one asset's content (base64 in JSON stays under the 2 MiB body limit). */
export const ASSET_UPLOAD_MAX = 1024 * 1024;

const CHUNK = 64 * 1024;

const readAt = promisify(read);
const closeFd = promisify(close);

/** Hash the whole opened file and keep its first `keep` bytes; closes the fd. Read in chunks off the event loop. */
export async function readOpened(file: OpenedAsset, keep: number): Promise<{ size: number; sha256: string; head: Buffer }> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let kept = 0;
  let size = 0;
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    for (;;) {
      const { bytesRead: n } = await readAt(file.fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      size += n;
      if (kept < keep) {
        const part = Buffer.from(chunk.subarray(0, keep - kept));
        head.push(part);
        kept += part.length;
      }
    }
  } finally {
    await closeFd(file.fd);
  }
  return { size, sha256: hash.digest('hex'), head: Buffer.concat(head) };
}

/** A file name for an upload: one path segment, no control characters, not "." or "..". */
export const UPLOAD_NAME = /^(?!\.{1,2}$)[^/\\\u0000-\u001f]{1,200}$/;

/** Keep uploaded bytes in the namespace's uploads folder; the path the asset is registered under. */
export function storeUpload(policy: AssetPolicy, ns: string, name: string, bytes: Buffer): string {
  const base = policy.uploadsOf(ns);
  if (!base)
    throw new KiokuError('KIOKU_INPUT_INVALID', 'register asset: content: this store has no data dir to keep uploads in', { details: { field: 'content' } });
  const dir = join(base, createHash('sha256').update(bytes).digest('hex'));
  const file = join(dir, name);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // written whole, then renamed: a reader never sees half a file
  const tmp = join(dir, `.upload-${randomBytes(6).toString('hex')}`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeFileSync(fd, bytes);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  return file;
}
