// The data keys of crypto-shredding (issue 33), outside the chain: one AES-256 key per erasure
// unit (a memory, a session, an episode, an asset), in a file under the data dir that can be
// rewritten — the log cannot. `<data>/keys/data-keys.jsonl` (directory 0700, file 0600), one line
// per key: { kid, unit, key }. A purge rewrites the file without the unit's keys (a new file
// renamed over the old one, both fsynced), so the sealed bytes in the log can no longer be opened.
// A unit written after its purge gets a new key (a new kid): old ciphertexts stay unreadable.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'data-keys.jsonl';
/** hex characters of a key id (64 bits) */
export const KID_LENGTH = 16;
/** How a sealed text begins, its key id next (src/privacy/seal.ts writes them). */
export const SEALED_PREFIX = '⟦sealed:';

/** The key ids of the sealed texts anywhere in `value` (a store checks a write's keys still exist: src/log/postgres-keys.ts). */
export function kidsIn(value: unknown): string[] {
  const kids: string[] = [];
  const text = JSON.stringify(value) ?? '';
  for (let at = text.indexOf(SEALED_PREFIX); at >= 0; at = text.indexOf(SEALED_PREFIX, at + SEALED_PREFIX.length))
    kids.push(text.slice(at + SEALED_PREFIX.length, at + SEALED_PREFIX.length + KID_LENGTH));
  return kids;
}

export interface DataKey {
  kid: string;
  unit: string;
  key: Buffer;
}

/** Where data keys live: the file store below (LevelDB), the PostgreSQL table (src/log/postgres-keys.ts), or a test's in memory. */
export interface SealKeyStore {
  /** the key `kid` names, or undefined once it was purged (or never existed here) */
  key(kid: string): Buffer | undefined;
  /** the unit's current key, made when it has none (durable at the next flush) */
  current(unit: string): DataKey;
  /** make the keys made since the last flush durable (the log calls it before each group commit) */
  flush(): void;
  /**
   * delete every key of the units `match` accepts; the units deleted. The file store deletes at
   * once; the PostgreSQL table (src/log/postgres-keys.ts) with the transaction of the `purged` event
   * that follows, so on every node a key is gone exactly when the log says so.
   */
  purge(match: (unit: string) => boolean): string[];
  /** every key held (what `kioku log export` carries, and what a rebuild's fold worker is handed) */
  all(): DataKey[];
  /** keys from another store's export (import): added unless a key of that id is held */
  adopt(keys: readonly DataKey[]): number;
}

export class FileKeyStore implements SealKeyStore {
  private byKid: Map<string, DataKey> | undefined;
  private byUnit = new Map<string, DataKey>();
  /** keys made since the last flush: in memory (they open what they sealed), on disk at the flush */
  private unflushed: DataKey[] = [];

  /** `dir` undefined: keys held in memory only (a store over an in-memory log, tests) */
  constructor(readonly dir: string | undefined) {}

  key(kid: string): Buffer | undefined {
    return this.load().get(kid)?.key;
  }

  current(unit: string): DataKey {
    this.load();
    const held = this.byUnit.get(unit);
    if (held) return held;
    const made: DataKey = { kid: randomBytes(KID_LENGTH / 2).toString('hex'), unit, key: randomBytes(32) };
    this.byKid?.set(made.kid, made);
    this.byUnit.set(unit, made);
    this.unflushed.push(made);
    return made;
  }

  flush(): void {
    if (this.unflushed.length === 0) return;
    const keys = this.unflushed;
    this.unflushed = [];
    try {
      this.append(keys);
    } catch (err) {
      this.unflushed = [...keys, ...this.unflushed]; // kept for the next flush: never a key in use that is not on disk
      throw err;
    }
  }

  purge(match: (unit: string) => boolean): string[] {
    const keys = this.load();
    this.flush();
    const gone = [...keys.values()].filter((k) => match(k.unit));
    if (gone.length === 0) return [];
    for (const k of gone) {
      keys.delete(k.kid);
      if (this.byUnit.get(k.unit)?.kid === k.kid) this.byUnit.delete(k.unit);
    }
    this.rewrite([...keys.values()]);
    return [...new Set(gone.map((k) => k.unit))];
  }

  all(): DataKey[] {
    this.flush();
    return [...this.load().values()];
  }

  adopt(keys: readonly DataKey[]): number {
    const held = this.load();
    const fresh = keys.filter((k) => !held.has(k.kid));
    if (fresh.length > 0) this.append(fresh);
    return fresh.length;
  }

  private load(): Map<string, DataKey> {
    if (this.byKid) return this.byKid;
    const keys = new Map<string, DataKey>();
    const file = this.dir === undefined ? undefined : join(this.dir, FILE);
    if (file !== undefined && existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const k = parseLine(line);
        if (!k) continue;
        keys.set(k.kid, k);
        this.byUnit.set(k.unit, k);
      }
    }
    this.byKid = keys;
    return keys;
  }

  private append(keys: readonly DataKey[]): void {
    if (this.dir !== undefined) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const fd = openSync(join(this.dir, FILE), 'a', 0o600);
      try {
        writeSync(fd, keys.map(line).join(''));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    for (const k of keys) {
      this.byKid?.set(k.kid, k);
      this.byUnit.set(k.unit, k);
    }
  }

  /** The file again without the purged keys: written beside, fsynced, renamed over the old one, the directory fsynced. */
  private rewrite(keys: readonly DataKey[]): void {
    if (this.dir === undefined) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, `${FILE}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, keys.map(line).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, FILE));
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}

function line(k: DataKey): string {
  return `${JSON.stringify({ kid: k.kid, unit: k.unit, key: k.key.toString('base64') })}\n`;
}

/** A line of the file, or undefined for a torn last line (a crash mid-append). */
function parseLine(text: string): DataKey | undefined {
  if (!text.trim()) return undefined;
  try {
    const k = JSON.parse(text) as { kid?: unknown; unit?: unknown; key?: unknown };
    if (typeof k.kid !== 'string' || typeof k.unit !== 'string' || typeof k.key !== 'string') return undefined;
    const key = Buffer.from(k.key, 'base64');
    return key.length === 32 ? { kid: k.kid, unit: k.unit, key } : undefined;
  } catch {
    return undefined;
  }
}

/** Where a data dir keeps its data keys. */
export function keysDir(dataDir: string): string {
  return join(dataDir, 'keys');
}

/**
 * Write every data key of `dataDir` to `file` (mode 0600) beside an export or a backup, so the
 * copy opens what the library opens — and nothing it purged. No file when there are none.
 */
export function exportKeys(dataDir: string, file: string): number {
  return writeKeysFile(new FileKeyStore(keysDir(dataDir)).all(), file);
}

/** Write `keys` to `file` (mode 0600), the format of the key store's file; none: no file. How many. */
export function writeKeysFile(keys: readonly DataKey[], file: string): number {
  if (keys.length === 0) return 0;
  writeFileSync(file, keys.map(line).join(''), { mode: 0o600 });
  return keys.length;
}

/** The keys of an export's or a backup's key file (none without a file). */
export function readKeysFile(file: string): DataKey[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map(parseLine)
    .filter((k): k is DataKey => k !== undefined);
}

/** Add the keys of an export's or a backup's key file to `dataDir`'s store; how many were new (0 without a file). */
export function importKeys(file: string, dataDir: string): number {
  return new FileKeyStore(keysDir(dataDir)).adopt(readKeysFile(file));
}
