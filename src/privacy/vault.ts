// The local vault (issue 33): the values redaction took out of events, encrypted at rest and never
// in the log. One directory under the data dir (`<data>/vault/`, mode 0700):
//   vault.key       32 random bytes (mode 0600), created on the first secret
//   secrets.jsonl   one line per value: namespace, placeholder id, kind, AES-256-GCM iv/tag/ciphertext
// Two keys are derived from vault.key (HKDF-SHA256): one encrypts, one names values (the keyed hash
// that becomes a placeholder's id), so a placeholder in a log someone else can read does not let
// them test guesses of a weak password. The ciphertext is bound to its namespace, id and kind (AAD):
// a line moved to another namespace does not decrypt. Each node of a shared PostgreSQL store has
// its own data dir and so its own vault: it can reveal only what it redacted itself.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isSecretKind } from './detect.js';
import type { SecretKind } from './rules.js';

const KEY_FILE = 'vault.key';
const ENTRIES_FILE = 'secrets.jsonl';
/** hex characters of a placeholder id: 48 bits, unique among far more secrets than a library holds */
const ID_LENGTH = 12;

interface StoredEntry {
  ns: string;
  id: string;
  kind: SecretKind;
  iv: string;
  tag: string;
  ct: string;
  /** the actors whose writes held the value (`http:<token>`): in an org, its writers may reveal it (issue 34) */
  by?: string[];
}

export interface VaultEntry {
  namespace: string;
  id: string;
  kind: SecretKind;
  value: string;
  /** who wrote it (the actors of the writes it was found in) */
  by: string[];
}

export class SecretVault {
  private keys: { enc: Buffer; ids: Buffer } | undefined;
  private entries: Map<string, StoredEntry> | undefined;

  constructor(readonly dir: string) {}

  /** The placeholder id of a value in a namespace: the same value always gets the same id (dedupe), another namespace another one. */
  idOf(namespace: string, value: string): string {
    return createHmac('sha256', this.key().ids).update(namespace).update('\0').update(value).digest('hex').slice(0, ID_LENGTH);
  }

  /** Keep a value (durable before it returns: the event that names its placeholder is appended after), and who wrote it. Storing one twice only adds its writer. */
  put(namespace: string, id: string, kind: SecretKind, value: string, by?: string): void {
    const entries = this.load();
    const k = entryKey(namespace, id);
    const known = entries.get(k);
    if (known) {
      if (by === undefined || known.by?.includes(by)) return;
      // the same line again with one more writer: the last line of an id wins when the file is read
      const more = { ...known, by: [...(known.by ?? []), by] };
      appendDurably(join(this.dir, ENTRIES_FILE), `${JSON.stringify(more)}\n`);
      entries.set(k, more);
      return;
    }
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key().enc, iv);
    cipher.setAAD(aad(namespace, id, kind));
    const ct = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    const entry: StoredEntry = {
      ns: namespace,
      id,
      kind,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ct: ct.toString('base64'),
      ...(by !== undefined ? { by: [by] } : {}),
    };
    appendDurably(join(this.dir, ENTRIES_FILE), `${JSON.stringify(entry)}\n`);
    entries.set(k, entry);
  }

  /** The value of a placeholder id in a namespace, or undefined when this vault never kept it. */
  get(namespace: string, id: string): VaultEntry | undefined {
    const entry = this.load().get(entryKey(namespace, id));
    if (!entry) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', this.key().enc, Buffer.from(entry.iv, 'base64'));
    decipher.setAAD(aad(entry.ns, entry.id, entry.kind));
    decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
    const value = Buffer.concat([decipher.update(Buffer.from(entry.ct, 'base64')), decipher.final()]).toString('utf8');
    return { namespace: entry.ns, id: entry.id, kind: entry.kind, value, by: entry.by ?? [] };
  }

  /** How many values the vault keeps (all namespaces). */
  size(): number {
    return this.load().size;
  }

  private key(): { enc: Buffer; ids: Buffer } {
    if (this.keys) return this.keys;
    const master = readOrCreateKey(this.dir);
    const derive = (info: string): Buffer => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
    this.keys = { enc: derive('kioku vault aes-256-gcm'), ids: derive('kioku placeholder ids') };
    return this.keys;
  }

  private load(): Map<string, StoredEntry> {
    if (this.entries) return this.entries;
    const entries = new Map<string, StoredEntry>();
    const file = join(this.dir, ENTRIES_FILE);
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const entry = parseEntry(line);
        if (entry) entries.set(entryKey(entry.ns, entry.id), entry);
      }
    }
    this.entries = entries;
    return entries;
  }
}

function entryKey(namespace: string, id: string): string {
  return `${namespace}\0${id}`;
}

function aad(namespace: string, id: string, kind: string): Buffer {
  return Buffer.from(`${namespace}\0${id}\0${kind}`, 'utf8');
}

/** A line of secrets.jsonl, or undefined for a torn last line (a crash mid-append) or anything else unreadable. */
function parseEntry(line: string): StoredEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const e = JSON.parse(line) as Partial<StoredEntry>;
    if (typeof e.ns !== 'string' || typeof e.id !== 'string' || typeof e.kind !== 'string' || !isSecretKind(e.kind)) return undefined;
    if (typeof e.iv !== 'string' || typeof e.tag !== 'string' || typeof e.ct !== 'string') return undefined;
    if (e.by !== undefined && !(Array.isArray(e.by) && e.by.every((b) => typeof b === 'string'))) return undefined;
    return e as StoredEntry;
  } catch {
    return undefined;
  }
}

function readOrCreateKey(dir: string): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, KEY_FILE);
  if (!existsSync(file)) {
    try {
      // 'wx': two processes creating the vault at once keep one key
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, randomBytes(32));
      fsyncSync(fd);
      closeSync(fd);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`the vault key ${file} is not 32 bytes; restore it from a backup or move the vault aside`);
  return key;
}

function appendDurably(file: string, text: string): void {
  const fd = openSync(file, 'a', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Where a data dir keeps its vault. */
export function vaultDir(dataDir: string): string {
  return join(dataDir, 'vault');
}

/** The vault of a data dir (nothing is created until the first secret). */
export function openVault(dataDir: string): SecretVault {
  return new SecretVault(vaultDir(dataDir));
}
