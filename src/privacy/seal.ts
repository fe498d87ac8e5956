// Sealing (issue 33, crypto-shredding): the content fields of memories (text, terms, entities, tags,
// attachments, speaker), traces (a turn's query, conversation, speaker, answer and tool data, and the
// queries and tag filters recall planned from them), episodes and assets (description, tags, path)
// are stored encrypted, each string with the data key of its erasure unit (a memory,
// a session, an episode, an asset: seal-keys.ts). The chain hashes the ciphertext, so verify and
// anchors hold whatever happens to the keys. Two steps, each in one place:
//   seal   a write guard, after secret redaction (src/store.ts installs both, in that order)
//   open   every record a store decodes for a reader (GroupCommitStore.openRecord), the runner's
//          rebuild and the fold worker: projections, replay and reports see plaintext, or
//          PURGED_TEXT where the key was deleted. Raw frames (export, backup, verify) stay sealed.
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { LogRecord, ValidatedEvent } from '../events/index.js';
import { mapTextFields, type TextPath } from './fields.js';
import type { WriteGuard } from './redact-event.js';
import { KID_LENGTH, type DataKey, type SealKeyStore } from './seal-keys.js';

const OPEN = '⟦sealed:';
const CLOSE = '⟧';
/** What a sealed text reads as once its key was purged. */
export const PURGED_TEXT = '⟦purged⟧';

type Data = Record<string, unknown>;
interface SealedType {
  paths: readonly TextPath[];
  /** the erasure unit an event's texts belong to: `<kind>:<namespace>:<id>` */
  unit: (ns: string, data: Data) => string;
}

const sessionUnit = (ns: string, d: Data): string => `session:${ns}:${String(d['session_id'])}`;

/** Which texts are sealed, per event type, and under whose key. */
export const SEALED_FIELDS: Readonly<Record<string, SealedType>> = {
  'memory.written': { paths: ['text', 'terms[]', 'entities[]', 'tags[]', 'attachments[]', 'speaker'], unit: (ns, d) => `memory:${ns}:${String(d['id'])}` },
  'turn.started': { paths: ['query', 'conversation[].text', 'speaker'], unit: sessionUnit },
  'turn.completed': { paths: ['answer', 'tool_data**'], unit: sessionUnit },
  'recall.performed': {
    paths: ['queries[].text', 'options.tags[]'],
    // a recall outside any session (MCP recall, POST /v1/recall) shares a key with the namespace's
    // other session-less recalls of that UTC day: a key per call grew the key file by a line per call.
    // Such a trace belongs to no memory or session, so only a namespace purge erases it (README).
    unit: (ns, d) => (d['session_id'] !== undefined ? sessionUnit(ns, d) : `recall:${ns}:${new Date().toISOString().slice(0, 10)}`),
  },
  'episode.logged': { paths: ['messages[].text'], unit: (ns, d) => `episode:${ns}:${String(d['episode_id'])}` },
  // the path names an upload's file (its name is the user's): sealed, and the file itself goes with a namespace purge
  'asset.registered': { paths: ['description', 'tags[]', 'path'], unit: (ns, d) => `asset:${ns}:${String(d['id'])}` },
  // a notice's text goes with the memory it is about (a purge of that memory erases it), else with the
  // namespace; a sign-off's note has its notice's own unit, which a purge of that memory deletes too (purge.ts)
  'notice.sent': { paths: ['text'], unit: (ns, d) => noticeUnit(ns, d['evidence_key']) },
  'notice.acked': { paths: ['note'], unit: (ns, d) => `notice:${ns}:${String(d['notice_id'])}` },
};

/** The unit of a notice's text: its memory's (`ev1:<ns>:memory:<id>`), else the namespace's notices. */
export function noticeUnit(ns: string, evidenceKey: unknown): string {
  const m = typeof evidenceKey === 'string' ? /^ev1:([^:]+):memory:([^#]+)$/.exec(evidenceKey) : null;
  return m && m[1] === ns ? `memory:${ns}:${m[2] as string}` : `notices:${ns}`;
}

/** The unit names a purge deletes: a memory's, a session's, or everything of a namespace. */
export function unitMatcher(scope: 'memory' | 'session' | 'namespace', ns: string, target: string): (unit: string) => boolean {
  if (scope === 'namespace') return (unit) => unit.split(':', 2)[1] === ns;
  const name = `${scope}:${ns}:${target}`;
  return (unit) => unit === name;
}

export function isSealed(text: string): boolean {
  return text.startsWith(OPEN) && text.endsWith(CLOSE);
}

/**
 * IVs come from a pool of random bytes refilled 512 IVs at a time, each 12 bytes handed out once:
 * the same random 96-bit IVs as a randomBytes(12) per text, which cost more than the cipher itself
 * (≈ 60 % of sealText in bench:recall's CPU profile; 2.3× faster per text alone). IVs are public (they
 * are stored beside the ciphertext), so keeping the next ones in memory discloses nothing.
 */
const IV_BYTES = 12;
const ivPool = Buffer.alloc(IV_BYTES * 512);
let ivAt = ivPool.length;

function nextIv(): Buffer {
  if (ivAt + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivAt = 0;
  }
  // a copy: the pool's bytes are overwritten at the next refill
  const iv = Buffer.from(ivPool.subarray(ivAt, ivAt + IV_BYTES));
  ivAt += IV_BYTES;
  return iv;
}

function sealText(text: string, key: DataKey): string {
  if (text === '' || isSealed(text)) return text;
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(key.kid, 'latin1'));
  const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `${OPEN}${key.kid}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}${CLOSE}`;
}

/** A sealed text opened with `keyOf(kid)`; PURGED_TEXT when the key is gone (or the bytes do not open with it). */
export function openText(text: string, keyOf: (kid: string) => Buffer | undefined): string {
  if (!isSealed(text)) return text;
  const kid = text.slice(OPEN.length, OPEN.length + KID_LENGTH);
  const key = keyOf(kid);
  if (!key) return PURGED_TEXT;
  try {
    const bytes = Buffer.from(text.slice(OPEN.length + KID_LENGTH + 1, -CLOSE.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(kid, 'latin1'));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return PURGED_TEXT;
  }
}

export interface SealOptions {
  /** namespaces whose events are stored in plain text (opt-out, see the README's trade-off) */
  plainNamespaces?: readonly string[];
  /** false: nothing is sealed from now on (what was sealed still opens) */
  enabled?: boolean;
}

export interface Sealer {
  /** the write guard: seals each event's content fields with its unit's key */
  guard: WriteGuard;
  /** a decoded record with its sealed texts opened (the same object when it has none) */
  open: (record: LogRecord) => LogRecord;
  keys: SealKeyStore;
}

/**
 * Open the sealed texts of `record` with `keyOf`: the one unsealing step (stores, the runner's rebuild,
 * the fold worker). `kept`: a text's plain form when the caller holds it (a sealer's JustSealed), else undefined.
 */
export function openRecord(record: LogRecord, keyOf: (kid: string) => Buffer | undefined, kept?: (text: string) => string | undefined): LogRecord {
  const spec = SEALED_FIELDS[record.type];
  if (!spec) return record;
  const { data, changed } = mapTextFields(record.data, spec.paths, (text) => kept?.(text) ?? openText(text, keyOf));
  return changed.length === 0 ? record : { ...record, data };
}

export function sealer(keys: SealKeyStore, options: SealOptions = {}): Sealer {
  const plain = new Set(options.plainNamespaces ?? []);
  const enabled = options.enabled !== false;
  const keyOf = (kid: string): Buffer | undefined => keys.key(kid);
  const sealed = new JustSealed();
  const guard: WriteGuard = (events) =>
    events.map((event): ValidatedEvent => {
      const spec = SEALED_FIELDS[event.type];
      if (!spec || !enabled || plain.has(event.ns)) return event;
      const key = keys.current(spec.unit(event.ns, event.data as Data));
      const { data, changed } = mapTextFields(event.data, spec.paths, (text) => sealed.keep(sealText(text, key), text));
      return changed.length === 0 ? event : { ...event, data };
    });
  const kept = (text: string): string | undefined => sealed.take(text, keyOf);
  const open = (record: LogRecord): LogRecord => openRecord(record, keyOf, kept);
  // a purge through this sealer's keys forgets every text kept (take checks the key anyway: another
  // node's purge reaches a PostgreSQL key store without passing here)
  const held: SealKeyStore = {
    key: (kid) => keys.key(kid),
    current: (unit) => keys.current(unit),
    flush: () => keys.flush(),
    purge: (match) => {
      sealed.clear();
      return keys.purge(match);
    },
    all: () => keys.all(),
    adopt: (adopted) => keys.adopt(adopted),
  };
  return { guard, open, keys: held };
}

/** at most this many characters of plain text are kept by JustSealed (and at most JUST_SEALED_TEXTS texts) */
const JUST_SEALED_CHARS = 4_000_000;
const JUST_SEALED_TEXTS = 8_192;

/**
 * The texts this sealer sealed and no reader has opened yet, by their sealed form. The projection
 * runner opens every record right after its append: decrypting what was sealed a moment before
 * cost as much as sealing it (bench:recall's turns). `take` answers the text once, and only while
 * its key is still held — the same check openText makes, so a purged unit reads as purged here
 * too (and its entry is dropped); anything not kept (evicted, another process's, a rebuild) is
 * decrypted as before. It holds plain text another part of this process had a moment ago.
 */
class JustSealed {
  private readonly texts = new Map<string, string>();
  private chars = 0;

  keep(sealedText: string, text: string): string {
    if (sealedText === text) return sealedText; // '' or a text that was already sealed
    this.texts.set(sealedText, text);
    this.chars += text.length;
    while (this.chars > JUST_SEALED_CHARS || this.texts.size > JUST_SEALED_TEXTS) {
      const [oldest, plainText] = this.texts.entries().next().value as [string, string];
      this.texts.delete(oldest);
      this.chars -= plainText.length;
    }
    return sealedText;
  }

  clear(): void {
    this.texts.clear();
    this.chars = 0;
  }

  /** the plain text of `sealedText` when this sealer sealed it and its key is held, else undefined (decrypt it) */
  take(sealedText: string, keyOf: (kid: string) => Buffer | undefined): string | undefined {
    if (this.texts.size === 0) return undefined;
    const text = this.texts.get(sealedText);
    if (text === undefined) return undefined;
    this.texts.delete(sealedText);
    this.chars -= text.length;
    return keyOf(sealedText.slice(OPEN.length, OPEN.length + KID_LENGTH)) ? text : PURGED_TEXT;
  }
}

/** KIOKU_SEAL=0 turns sealing off; KIOKU_PLAIN_NAMESPACES=a,b keeps those namespaces in plain text. */
export function sealOptionsFromEnv(env: NodeJS.ProcessEnv): SealOptions {
  const plain = (env['KIOKU_PLAIN_NAMESPACES'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { enabled: env['KIOKU_SEAL'] !== '0', ...(plain.length ? { plainNamespaces: plain } : {}) };
}
