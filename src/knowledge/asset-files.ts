// Reading an asset file the policy opened (hash, size, the first bytes) and keeping content a
// client uploaded. Uploads are content-addressed under `<data>/assets/<ns>/<sha256>/<name>`:
// the asset.registered event keeps its shape (an absolute path, size, sha256), the bytes
// stay out of the log (events stay lean), and a repeat upload writes nothing new.
import { createHash, randomBytes } from 'node:crypto';
import { close, closeSync, existsSync, fsyncSync, mkdirSync, openSync, read, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir, rm, rmdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname, join } from 'node:path';
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

/** Entries removed at once: rmSync of 20,000 uploads held the event loop 377 ms; fs.promises.rm's own recursion 247 ms; 32 at a time 23 ms. */
const REMOVE_AT_ONCE = 32;

/**
 * Delete a namespace's uploads folder off the event loop (a namespace purge). The folder is first
 * renamed aside in one step, so an upload arriving during the deletion lands in a fresh folder and
 * is kept, as it was when the deletion blocked the loop; then the renamed tree is deleted, a few
 * entries at a time. Resolves once every byte is gone; a missing folder is nothing to do.
 */
export async function removeUploads(folder: string): Promise<void> {
  const aside = join(dirname(folder), `${PURGED_PREFIX}${basename(folder)}-${randomBytes(6).toString('hex')}`);
  try {
    renameSync(folder, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // with what an earlier purge left (the service died, or a file refused, while it was deleting)
  await removePurgedUploads(dirname(folder));
}

/** A folder renamed aside by a purge; no namespace can be named so (namespaces start with a letter or digit). */
const PURGED_PREFIX = '.purged-';

/**
 * Delete every folder a namespace purge renamed aside in `uploadsDir` (<data>/assets) and did not
 * finish deleting: its namespace's purged event is in the log, so its bytes must go. Run by every
 * namespace purge and when a service starts; a missing uploads folder is nothing to do.
 */
export async function removePurgedUploads(uploadsDir: string): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(uploadsDir)).filter((n) => n.startsWith(PURGED_PREFIX));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
    throw err;
  }
  for (const name of names) {
    const aside = join(uploadsDir, name);
    // a folder that is a link (or a file) goes as itself, as rmSync took it: what it points to is never read
    const stat = await lstat(aside).catch(() => undefined);
    if (stat?.isDirectory()) await removeTree(aside);
    else await rm(aside, { force: true });
  }
}

async function removeTree(dir: string): Promise<void> {
  // another purge's sweep may be deleting the same tree: what it removed first is not an error
  const entries = await readdir(dir, { withFileTypes: true }).catch(goneIsEmpty);
  for (let i = 0; i < entries.length; i += REMOVE_AT_ONCE)
    // a link is removed as a link, never followed
    await Promise.all(entries.slice(i, i + REMOVE_AT_ONCE).map((e) => (e.isDirectory() ? removeTree(join(dir, e.name)) : rm(join(dir, e.name), { force: true }))));
  await rmdir(dir).catch(goneIsEmpty);
}

function goneIsEmpty(err: unknown): [] {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
  throw err;
}
