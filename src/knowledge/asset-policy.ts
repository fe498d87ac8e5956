// Where an asset's content may come from (issue 29): the service reads a caller-named path
// only under an asset root configured for the caller's namespace (KIOKU_ASSET_ROOTS), after
// symlinks are followed, and never the data dir, keys, auth file or the kernel's files. The
// same check runs when the content is read again (the file may have become a symlink since).
// The only part of the data dir that is ever content is the namespace's own uploads folder.
import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { KiokuError } from '../errors.js';
import { namespaceSchema } from '../events/index.js';

export const ASSET_ROOTS_ENV = 'KIOKU_ASSET_ROOTS';

/** namespace → directories whose files it may register by path */
export type AssetRoots = Readonly<Record<string, readonly string[]>>;

export type RefusalReason = 'no_root' | 'outside_root' | 'other_namespace' | 'protected';

export interface AssetPolicyOptions {
  roots?: AssetRoots;
  /** the data dir: never content, except `<dataDir>/assets/<namespace>` (uploads) */
  dataDir?: string;
  /** further files that are never content wherever they are (auth file, anchor key, anchors) */
  protect?: readonly (string | undefined)[];
}

/** An opened asset file: read it through `fd` (the checked file, whatever the path names now). */
export interface OpenedAsset {
  fd: number;
  real: string;
  size: number;
}

// the kernel's views of processes and devices are never files anyone registers
const SYSTEM_DIRS = ['/proc', '/sys', '/dev'];

const inside = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** `alpha=/srv/assets/alpha:beta=/srv/assets/beta` (entries split by ":" or new lines; a namespace may repeat). */
export function parseAssetRoots(text: string | undefined): AssetRoots {
  const roots: Record<string, string[]> = {};
  for (const entry of (text ?? '').split(new RegExp(`[\\n${delimiter}]`))) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    const ns = trimmed.slice(0, eq).trim();
    const dir = trimmed.slice(eq + 1).trim();
    if (eq < 1 || !namespaceSchema.safeParse(ns).success || !isAbsolute(dir))
      throw new KiokuError(
        'KIOKU_USAGE',
        `${ASSET_ROOTS_ENV}: "${trimmed.slice(0, 120)}" is not namespace=/absolute/dir (entries separated by "${delimiter}")`,
        {
          details: { field: ASSET_ROOTS_ENV },
        },
      );
    (roots[ns] ??= []).push(dir);
  }
  return roots;
}

const refuse = (reason: RefusalReason, message: string): KiokuError =>
  new KiokuError('KIOKU_ASSET_PATH_REFUSED', message, { details: { field: 'path', reason } });

export class AssetPolicy {
  private readonly roots = new Map<string, { given: string; real: string }[]>();
  private readonly denied: string[];
  private readonly protectedFiles: string[];
  /** where uploaded content is kept, one folder per namespace; absent: uploads are refused */
  readonly uploadsDir: string | undefined;

  constructor(options: AssetPolicyOptions = {}) {
    const dataDir = options.dataDir ? realOrResolved(options.dataDir) : undefined;
    this.uploadsDir = dataDir ? join(dataDir, 'assets') : undefined;
    this.protectedFiles = (options.protect ?? []).filter((p): p is string => !!p).map((p) => resolve(p));
    this.denied = [
      ...SYSTEM_DIRS,
      ...(dataDir ? [dataDir, resolve(options.dataDir!)] : []),
      ...this.protectedFiles,
      ...this.protectedFiles.map(realOrResolved),
    ];
    for (const [ns, dirs] of Object.entries(options.roots ?? {})) {
      const list = dirs.map((given) => {
        let real: string;
        try {
          real = realpathSync(given);
          if (!statSync(real).isDirectory()) throw new Error('not a directory');
        } catch (cause) {
          throw new KiokuError('KIOKU_USAGE', `${ASSET_ROOTS_ENV}: the asset root ${given} of namespace ${ns} is not a readable directory`, { cause });
        }
        if (this.denied.some((d) => inside(real, d)))
          throw new KiokuError(
            'KIOKU_USAGE',
            `${ASSET_ROOTS_ENV}: the asset root ${given} of namespace ${ns} lies in the data dir or a system folder, which are never content`,
          );
        return { given: resolve(given), real };
      });
      this.roots.set(ns, list);
    }
  }

  /** Policy from the environment (KIOKU_ASSET_ROOTS) unless roots are given. */
  static fromEnv(options: AssetPolicyOptions, env: NodeJS.ProcessEnv = process.env): AssetPolicy {
    return new AssetPolicy({ ...options, roots: options.roots ?? parseAssetRoots(env[ASSET_ROOTS_ENV]) });
  }

  /** The folder holding a namespace's uploads (inside the data dir). */
  uploadsOf(ns: string): string | undefined {
    return this.uploadsDir ? join(this.uploadsDir, ns) : undefined;
  }

  /**
   * The real path of `path` if namespace `ns` may have it read, else KIOKU_ASSET_PATH_REFUSED.
   * Nothing outside the namespace's roots is touched on disk (no oracle for other files).
   */
  authorize(ns: string, path: string): string {
    if (!isAbsolute(path) || path.includes('\0'))
      throw new KiokuError('KIOKU_INPUT_INVALID', 'register asset: path: must be an absolute path without NUL bytes', { details: { field: 'path' } });
    const lexical = resolve(path);
    const uploads = this.uploadsOf(ns);
    const own = [...(this.roots.get(ns) ?? []), ...(uploads ? [{ given: uploads, real: realOrResolved(uploads) }] : [])];
    const configured = this.roots.get(ns) ?? [];
    if (!own.some((r) => inside(lexical, r.given) || inside(lexical, r.real))) {
      if (configured.length === 0)
        throw refuse(
          'no_root',
          `namespace "${ns}" has no asset root, so the service reads no file for it: an operator can set ${ASSET_ROOTS_ENV}="${ns}=/srv/kioku-assets/${ns}" (files under that folder may then be registered), or send the bytes themselves as "content"`,
        );
      throw refuse('outside_root', `${path} is outside namespace "${ns}"'s asset roots (${configured.map((r) => r.given).join(', ')})`);
    }
    let real: string;
    try {
      // the path as the system reads it ("ok.txt/" is no file; ".." after a symlink leaves from its target)
      real = realpathSync(path);
    } catch (cause) {
      throw new KiokuError('KIOKU_INPUT_INVALID', `register asset: path: ${path} is not a readable file`, { cause, details: { field: 'path' } });
    }
    // symlinks followed: the file itself must lie under one of the namespace's roots
    const container = own.filter((r) => inside(real, r.real)).sort((a, b) => b.real.length - a.real.length)[0];
    if (!container) throw refuse('outside_root', `${path} leads outside namespace "${ns}"'s asset roots (a symlink or ".." points elsewhere)`);
    const isUpload = uploads !== undefined && container.given === uploads;
    if (!isUpload && this.denied.some((d) => inside(real, d)))
      throw refuse('protected', `${path} is in the data dir, a key, the auth file or a system folder: never asset content`);
    // a deeper root of another namespace inside this one's belongs to that namespace
    for (const [other, list] of this.roots)
      if (other !== ns && list.some((r) => inside(real, r.real) && inside(r.real, container.real) && r.real !== container.real))
        throw refuse('other_namespace', `${path} is under another namespace's asset root`);
    return real;
  }

  /** Authorize, then open the checked file itself and check again what was opened (it may have been swapped meanwhile). */
  open(ns: string, path: string): OpenedAsset {
    const real = this.authorize(ns, path);
    let fd: number;
    try {
      // O_NOFOLLOW: the last step cannot have become a symlink; O_NONBLOCK: a FIFO cannot hang the open
      fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (cause) {
      throw new KiokuError('KIOKU_INPUT_INVALID', `register asset: path: ${path} is not a readable file`, { cause, details: { field: 'path' } });
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new KiokuError('KIOKU_INPUT_INVALID', `register asset: path: ${path} is not a regular file`, { details: { field: 'path' } });
      if (openedPath(fd, real, st) !== real) throw refuse('outside_root', `${path} changed while it was opened (a symlink swapped in?)`);
      if (this.protectedFiles.some((p) => sameFile(p, st))) throw refuse('protected', `${path} is a key or the auth file (a link to it): never asset content`);
      return { fd, real, size: st.size };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }
}

/** What the kernel says an open fd is (Linux), else the real path if it still names the same file. */
function openedPath(fd: number, real: string, st: Stats): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    try {
      const now = statSync(real);
      return now.dev === st.dev && now.ino === st.ino ? real : `${real} (replaced)`;
    } catch {
      return `${real} (gone)`;
    }
  }
}

function sameFile(path: string, st: Stats): boolean {
  try {
    const other = statSync(path);
    return other.dev === st.dev && other.ino === st.ino;
  } catch {
    return false;
  }
}
