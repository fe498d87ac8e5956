// records: every item by evidence key — current and retired — with supersede chains,
// tombstones and fingerprints; lookups by id, entity, time range, session and kind.
import type { LogRecord } from '../../src/events/index.js';
import { documentKey, evidenceKey, type Layer } from '../../src/knowledge/evidence.js';
import { FOLDED_TYPES, KnowledgeFold, type KnowledgeFoldState } from '../../src/knowledge/fold.js';
import { remembered } from '../../src/text/remembered.js';
import { lowerNfkc } from '../../src/text/script.js';
import type { Item, ItemChange, ItemStatus, RecordEntry, Tombstone } from '../../src/knowledge/item.js';
import { canonicalDigest, type Projection } from '../projection.js';
import { releaseUnpackedBytes } from '../snapshot-file.js';
import { packStringChunks, unpackStringChunk } from '../packed-strings.js';
import { entryOfRow, KEYS_PER_CHUNK, PackedRows, RowWriter, ROWS_PER_CHUNK } from './rows.js';

export type { ItemStatus, RecordEntry } from '../../src/knowledge/item.js';

/**
 * Format 3: `count` entries: their keys packed in chunks of KEYS_PER_CHUNK (`keys`), the entries as
 * rows packed in chunks of ROWS_PER_CHUNK (`rows`, see rows.ts), so that a load keeps them packed
 * and unpacks each when first needed.
 * Within a row, as in format 2: repeated strings (namespace, layer, kind, status, session, owner,
 * source path, document hash, time, and the strings of term/entity/tag/attachment lists) are
 * indices into `strings`, an empty list is 0, and a fingerprint or title equal to content_fp or
 * text is 0. Formats 2 (such rows as maps, all in `entries`) and 1 (plain entries) still load.
 */
interface RecordsSnapshot {
  fold: KnowledgeFoldState;
  format?: 2 | 3;
  strings?: string[];
  entries?: RecordEntry[] | SnapshotRow[];
  count?: number;
  keys?: Uint8Array[];
  rows?: Uint8Array[];
}

/** What a format 3 load left packed: row i is keys[i]'s entry while the Map holds i for it. */
interface Packed {
  rows: PackedRows;
  count: number;
  keyChunks: Uint8Array[];
  /** the keys unpacked so far (all of them once mapped) */
  keys: string[];
  strings: string[];
  /** keys put in the Map so far (a million take over a second: warm() does it in slices, see mapKeys) */
  mapped: number;
  /** the warm-up's place: the next chunk of rows */
  next: number;
  /** rows still packed (known once every key is mapped) */
  left: number;
}

/** A RecordEntry as format 2 stores it (see RecordsSnapshot). */
type SnapshotRow = Record<string, unknown>;

/** A format 2 list back to strings: 0 is the shared empty list; indices are replaced in place. */
function listOf(list: unknown, strings: string[]): unknown {
  if (list === 0) return EMPTY;
  if (Array.isArray(list)) for (let i = 0; i < list.length; i++) if (typeof list[i] === 'number') list[i] = strings[list[i] as number];
  return list;
}

/**
 * The fields entries share (see StringPool and RecordsSnapshot), rewritten through `str` (repeated
 * strings) and `list` (string lists): pooling on upsert, indices into the string table on snapshot,
 * and back on load all go through this one list. Named fields, not a loop over names: it runs per
 * upsert and per loaded row (keyed access over 100k rows showed in start-up).
 */
function mapShared(e: Record<string, unknown>, str: (v: unknown) => unknown, list: (v: unknown) => unknown): void {
  e['ns'] = str(e['ns']);
  e['layer'] = str(e['layer']);
  e['status'] = str(e['status']);
  e['occurred_at'] = str(e['occurred_at']);
  if (e['kind'] !== undefined) e['kind'] = str(e['kind']);
  if (e['session_id'] !== undefined) e['session_id'] = str(e['session_id']);
  if (e['owner'] !== undefined) e['owner'] = str(e['owner']);
  if (e['source_path'] !== undefined) e['source_path'] = str(e['source_path']);
  if (e['doc_hash'] !== undefined) e['doc_hash'] = str(e['doc_hash']);
  e['terms'] = list(e['terms']);
  e['entities'] = list(e['entities']);
  e['tags'] = list(e['tags']);
  if (e['attachments'] !== undefined) e['attachments'] = list(e['attachments']);
}

/**
 * An entry as a format 3 row: its fields in ROW_FIELDS order (rows.ts), the strings mapShared
 * shares made indices by `str` and `list`, a fingerprint or title equal to content_fp or text 0.
 * Named fields, not a loop over ROW_FIELDS: keyed access to 29 names was a third of the
 * snapshot's time. (The round-trip test covers every field, so a field out of place fails it.)
 */
function rowOf(e: RecordEntry, str: (v: unknown) => unknown, list: (v: unknown) => unknown): unknown[] {
  return [
    str(e.ns),
    str(e.layer),
    e.id,
    e.title === e.text ? 0 : e.title,
    e.text,
    str(e.occurred_at),
    e.seq,
    list(e.terms),
    list(e.entities),
    list(e.tags),
    e.content_fp,
    str(e.status),
    e.kind === undefined ? undefined : str(e.kind),
    e.fingerprint !== undefined && e.fingerprint === e.content_fp ? 0 : e.fingerprint,
    e.attachments === undefined ? undefined : list(e.attachments),
    e.session_id === undefined ? undefined : str(e.session_id),
    e.section,
    e.position,
    e.heading,
    e.owner === undefined ? undefined : str(e.owner),
    e.source_path === undefined ? undefined : str(e.source_path),
    e.doc_hash === undefined ? undefined : str(e.doc_hash),
    e.audience,
    e.meta,
    e.relations,
    e.supersedes,
    e.asset,
    e.superseded_by,
    e.retired_seq,
    e.tombstone,
  ];
}

/**
 * An item as an entry, copied key by key: an object spread of an item made every entry a hidden
 * class of its own (21,651 for 21,667 entries after a rebuild), so every access to an entry
 * went through V8's slow megamorphic path — a third of the records' rebuild.
 */
/** Empty what a forgotten entry said (title, text, heading, terms, entities, tags, attachments, an asset's file); keep who and when. */
function blank(entry: RecordEntry, tombstone: Tombstone): void {
  entry.title = '';
  entry.text = '';
  entry.terms = [];
  entry.entities = [];
  entry.tags = [];
  if (entry.heading !== undefined) entry.heading = '';
  if (entry.attachments !== undefined) entry.attachments = [];
  // an asset's path names its file (an upload's name is the user's): a tombstone keeps none (issue 33)
  delete entry.asset;
  // a fingerprint of a short text lets anyone test a guess of it
  entry.content_fp = '';
  delete entry.fingerprint;
  entry.tombstone = tombstone;
}

function entryOf(item: Item, status: ItemStatus): RecordEntry {
  const entry = copyKeys(item);
  entry['status'] = status;
  return entry as unknown as RecordEntry;
}

/** A shallow copy made key by key (see entryOf for why not a spread). */
function copyKeys(from: object): Record<string, unknown> {
  const to: Record<string, unknown> = {};
  for (const k in from) to[k] = (from as Record<string, unknown>)[k];
  return to;
}

export interface ListOptions {
  includeRetired?: boolean;
  layers?: readonly Layer[];
}

const lower = (s: string): string => lowerNfkc(s).trim();

/** lower() of memory terms, remembered: the same few thousand terms are compared on every write. */
const lowerTerm = remembered(lower, 100_000);

/**
 * Memories visited at most when looking for supersede candidates (see supersedeCandidates): a
 * visit costs 1–3 µs in a large heap, and a profile of bench:index at 500k records showed 1,000
 * visits per write taking three quarters of the write path.
 */
export const SUPERSEDE_SCAN = 200;

// Entries share what repeats: one empty array, one string per distinct short value (namespace,
// layer, kind, status, session, timestamps…), one string when both fingerprints are equal.
// At 100k memories this takes an entry from ≈ 1.4 KB to well under 1 KB.
const EMPTY: string[] = Object.freeze([]) as unknown as string[];

class StringPool {
  private readonly pool = new Map<string, string>();
  get(s: string): string {
    if (s.length > 256) return s;
    const kept = this.pool.get(s);
    if (kept !== undefined) return kept;
    this.pool.set(s, s);
    return s;
  }
  clear(): void {
    this.pool.clear();
  }
}

/** Multimap helper: key → set of evidence keys. Most keys hold one value, kept as the string itself (a Set per key costs ≈ 200 bytes). */
class Multi {
  private readonly map = new Map<string, string | Set<string>>();
  add(k: string, v: string): void {
    const s = this.map.get(k);
    if (s === undefined) this.map.set(k, v);
    else if (typeof s === 'string') {
      if (s !== v) this.map.set(k, new Set([s, v]));
    } else s.add(v);
  }
  delete(k: string, v: string): void {
    const s = this.map.get(k);
    if (s === undefined) return;
    if (typeof s === 'string') {
      if (s === v) this.map.delete(k);
      return;
    }
    s.delete(v);
    if (s.size === 1) this.map.set(k, s.values().next().value as string);
    else if (s.size === 0) this.map.delete(k);
  }
  get(k: string): readonly string[] {
    const s = this.map.get(k);
    return s === undefined ? [] : typeof s === 'string' ? [s] : [...s];
  }
  /** the values without a copy (do not change the index while iterating) */
  values(k: string): Iterable<string> {
    const s = this.map.get(k);
    return s === undefined ? [] : typeof s === 'string' ? [s] : s;
  }
  count(k: string): number {
    const s = this.map.get(k);
    return s === undefined ? 0 : typeof s === 'string' ? 1 : s.size;
  }
  clear(): void {
    this.map.clear();
  }
}

/** Multi per namespace: no `ns + key` string made per entry and lookup. */
class NsMulti {
  private readonly byNs = new Map<string, Multi>();
  add(ns: string, k: string, v: string): void {
    let m = this.byNs.get(ns);
    if (!m) this.byNs.set(ns, (m = new Multi()));
    m.add(k, v);
  }
  delete(ns: string, k: string, v: string): void {
    this.byNs.get(ns)?.delete(k, v);
  }
  get(ns: string, k: string): readonly string[] {
    return this.byNs.get(ns)?.get(k) ?? [];
  }
  values(ns: string, k: string): Iterable<string> {
    return this.byNs.get(ns)?.values(k) ?? [];
  }
  count(ns: string, k: string): number {
    return this.byNs.get(ns)?.count(k) ?? 0;
  }
  clear(): void {
    this.byNs.clear();
  }
}

export class RecordsProjection implements Projection {
  readonly name = 'records';
  // 2 (issue 33): forgotten entries keep no text (a version-1 snapshot may hold some: rebuilt)
  // 3: a session memory opening with a label ("Note: …") has no speaker entity (memoryEntities)
  // 4: a session memory's speaker before a full-width colon; "Re:", "HTTP:" name no one (src/text/turn-shape.ts)
  readonly version = 4;
  /** it only folds knowledge */
  readonly types = FOLDED_TYPES;
  private readonly fold = new KnowledgeFold();
  /** every entry by key; a number is the row of a loaded snapshot not unpacked yet (see entry()) */
  private entries = new Map<string, RecordEntry | number>();
  /** the rows a format 3 load kept packed, until every one is unpacked */
  private packed: Packed | undefined;
  private readonly strings = new StringPool();
  // Derived lookups, never snapshotted: after a snapshot load they are built on first use
  // (start-up does not wait for them), then kept up to date change by change.
  private readonly idx = {
    byDoc: new Multi(),
    byEntity: new NsMulti(),
    bySession: new Multi(),
    byKind: new NsMulti(),
    byTerm: new NsMulti(),
    /** per namespace, newer id → keys of the versions it superseded */
    supersededBy: new NsMulti(),
  };
  /**
   * The lookups are derived: a snapshot load and a rebuild leave them unbuilt, and the first
   * query builds them in one pass (cheaper than filing every trace again at each re-upsert).
   */
  private indexed = true;

  /** A lookup build under way in slices (see warm): the entries it has still to file. */
  private building: Iterator<RecordEntry> | undefined;

  /**
   * Whether changes file themselves in the lookups: once built, and while a build is under way.
   * Filing is idempotent and taking back what was never filed does nothing, so a change in the
   * middle of a build is right whether or not the build has reached its entry yet (an updated
   * entry keeps its place in the Map; a new one is filed now and again when the build reaches it).
   */
  private get filing(): boolean {
    return this.indexed || this.building !== undefined;
  }

  /** Unpack what a snapshot load left packed, then build the lookups, for about `budgetMs`; true once done. */
  warm(budgetMs = Infinity): boolean {
    const until = performance.now() + budgetMs;
    if (this.packed && !(this.mapKeys(until) && this.unpackRows(until))) return false;
    if (this.indexed) return true;
    this.building ??= this.entries.values() as IterableIterator<RecordEntry>;
    const entries = this.building;
    for (let n = 1; ; n++) {
      const next = entries.next();
      if (next.done) {
        this.building = undefined;
        this.indexed = true;
        return true;
      }
      this.index(next.value);
      if ((n & 1023) === 0 && performance.now() >= until) return false;
    }
  }

  /**
   * Put a loaded snapshot's keys in the Map (each mapped to its row), in row order, until `until`
   * (performance.now()); true once all are. Nothing reads or changes an entry before they all are
   * (see entry), so the Map's order is the snapshot's and every other entry comes after.
   */
  private mapKeys(until = Infinity): boolean {
    const packed = this.packed;
    if (!packed || packed.mapped === packed.count) return true;
    const { keys } = packed;
    let i = packed.mapped;
    for (; i < packed.count; i++) {
      if (i === keys.length) for (const key of unpackStringChunk(packed.keyChunks, i / KEYS_PER_CHUNK, packed.count, KEYS_PER_CHUNK)) keys.push(key);
      this.entries.set(keys[i] as string, i);
      if ((i & 4095) === 4095 && performance.now() >= until) {
        packed.mapped = i + 1;
        return false;
      }
    }
    packed.mapped = i;
    packed.left = this.entries.size; // a key twice in a damaged file: its last row counts
    return true;
  }

  /** Unpack packed chunks in order until `until` (performance.now()); true once no row is left packed. */
  private unpackRows(until: number): boolean {
    for (let n = 1; this.packed; n++) {
      const c = this.packed.next++;
      if (c * ROWS_PER_CHUNK >= this.packed.count) throw new Error('records: rows left packed past the last chunk'); // cannot happen: left counts the Map's numbers
      this.unpackChunk(c);
      if ((n & 15) === 0 && performance.now() >= until) return this.packed === undefined;
    }
    return true;
  }

  /** The entry for a key, unpacked first if a snapshot load left it packed. */
  private entry(key: string): RecordEntry | undefined {
    if (this.packed) this.mapKeys();
    const e = this.entries.get(key);
    if (typeof e !== 'number') return e;
    this.unpackChunk(Math.floor(e / ROWS_PER_CHUNK));
    return this.entries.get(key) as RecordEntry;
  }

  /** bumps when the entries are replaced wholesale (reset, load): a reader that kept keys from `keysFrom` starts again */
  epoch = 0;

  /** how many keys the projection holds (current and retired; a key once written is never dropped but by reset or load) */
  get size(): number {
    if (this.packed) this.mapKeys();
    return this.entries.size;
  }

  /** The keys from position `start` of the Map's order on: a new key always comes last, so a reader can follow what was added. */
  keysFrom(start: number): string[] {
    if (this.packed) this.mapKeys();
    const out: string[] = [];
    let i = 0;
    for (const key of this.entries.keys()) if (i++ >= start) out.push(key);
    return out;
  }

  private readonly knownNamespaces = new Set<string>();

  /** Whether any item (current or retired) was ever written in `ns`: a mistyped namespace names none (issue 31). Keys only, no rows unpacked. */
  hasNamespace(ns: string): boolean {
    if (this.knownNamespaces.has(ns)) return true;
    if (this.packed) this.mapKeys();
    const prefix = `ev1:${ns}:`;
    for (const key of this.entries.keys())
      if (key.startsWith(prefix)) {
        this.knownNamespaces.add(ns);
        return true;
      }
    return false;
  }

  /** Every entry, in the Map's order (unpacking first whatever is still packed). */
  private allEntries(): IterableIterator<RecordEntry> {
    if (this.packed) this.mapKeys() && this.unpackRows(Infinity);
    return this.entries.values() as IterableIterator<RecordEntry>;
  }

  /**
   * Chunk c's rows that are still packed as their entries, each put in the Map in its row's place
   * (a set on a key keeps its place).
   */
  private unpackChunk(c: number): void {
    const packed = this.packed as Packed;
    const { keys, strings } = packed;
    const str = (v: unknown): unknown => strings[v as number];
    const list = (v: unknown): unknown => listOf(v, strings);
    const rows = packed.rows.chunk(c);
    const first = c * ROWS_PER_CHUNK;
    for (let j = 0; j < rows.length; j++) {
      const key = keys[first + j] as string;
      if (this.entries.get(key) !== first + j) continue; // unpacked already, or a later row has this key
      const e = entryOfRow(key, rows[j] as unknown[]);
      mapShared(e, str, list);
      if (e['fingerprint'] === 0) e['fingerprint'] = e['content_fp'];
      if (e['title'] === 0) e['title'] = e['text'];
      this.entries.set(key, e as unknown as RecordEntry);
      packed.left -= 1;
    }
    if (packed.left === 0) {
      this.packed = undefined;
      releaseUnpackedBytes(); // msgpackr held a view of the rows' file
      for (const s of strings) this.strings.get(s); // later upserts share these too
    }
  }

  /** whether the derived lookups are built (a snapshot load and a rebuild leave them for warm() or the first query) */
  get lookupsBuilt(): boolean {
    return this.indexed;
  }

  /** The derived lookups, built now if a snapshot load or a rebuild left them unbuilt. */
  private lookups(): typeof this.idx {
    if (!this.indexed) this.warm();
    return this.idx;
  }
  /** per session, its traces in conversation order with each one's position; absent = changed since last asked (derived) */
  private readonly turnOrder = new Map<string, { keys: string[]; at: Map<string, number> }>();

  apply(record: LogRecord): void {
    for (const change of this.fold.changes(record)) this.applyChange(change);
  }

  /** bumps on every item change (derived, never snapshotted): tells planners when to look again */
  revision = 0;

  private applyChange(change: ItemChange): void {
    this.revision += 1;
    if (change.op === 'upsert') {
      const prev = this.entry(change.item.key);
      // A memory's tombstone is final: a write with a retired id does not revive it; nor does a
      // forgotten trace's answer (turn.completed after the forget) bring its text back.
      const keepRetired = prev && prev.status !== 'active' && (prev.layer === 'memory' || prev.status === 'forgotten');
      if (prev && this.filing) this.unindex(prev);
      const entry = entryOf(change.item, keepRetired ? prev.status : 'active');
      if (keepRetired) {
        if (prev.superseded_by) entry.superseded_by = prev.superseded_by;
        if (prev.retired_seq) entry.retired_seq = prev.retired_seq;
        if (prev.tombstone) blank(entry, prev.tombstone);
      }
      this.entries.set(entry.key, this.compact(entry));
      if (this.filing) this.index(entry);
      return;
    }
    const entry = this.entry(change.key);
    if (!entry) return;
    if (change.op === 'audience') {
      entry.audience = change.audience;
      return;
    }
    if (change.tombstone) {
      this.tombstone(entry, change.seq, change.tombstone);
      return;
    }
    if (entry.status === 'forgotten') return;
    entry.status = change.status;
    entry.retired_seq = change.seq;
    if (change.by !== undefined) {
      if (entry.superseded_by !== undefined && this.filing) this.idx.supersededBy.delete(entry.ns, entry.superseded_by, entry.key);
      entry.superseded_by = change.by;
      if (this.filing) this.idx.supersededBy.add(entry.ns, change.by, entry.key);
    }
  }

  /** Forget (or purge) an entry: its content fields are emptied, its tombstone kept (issue 33). */
  private tombstone(entry: RecordEntry, seq: number, tombstone: Tombstone): void {
    if (entry.tombstone && (entry.tombstone.purged || !tombstone.purged)) return;
    if (this.filing) this.unindex(entry);
    if (entry.status !== 'forgotten') entry.retired_seq = seq;
    entry.status = 'forgotten';
    blank(entry, entry.tombstone ? { ...entry.tombstone, purged: true } : tombstone);
    if (this.filing) this.index(entry);
  }

  private index(e: RecordEntry): void {
    this.fileUnder(e, (m, ns, k) => (ns === undefined ? (m as Multi).add(k, e.key) : (m as NsMulti).add(ns, k, e.key)));
  }

  private unindex(e: RecordEntry): void {
    this.fileUnder(e, (m, ns, k) => (ns === undefined ? (m as Multi).delete(k, e.key) : (m as NsMulti).delete(ns, k, e.key)));
  }

  /** Every (index, key) an entry is filed under: index and unindex walk the same list, so they cannot drift apart. */
  private fileUnder(e: RecordEntry, visit: (index: Multi | NsMulti, ns: string | undefined, key: string) => void): void {
    const idx = this.idx;
    visit(idx.byDoc, undefined, documentKey(e.key));
    for (const en of e.entities) visit(idx.byEntity, e.ns, lower(en));
    if (e.session_id) {
      visit(idx.bySession, undefined, e.session_id);
      this.turnOrder.delete(`${e.ns}\u0000${e.session_id}`); // the session's order is re-derived when next asked
    }
    if (e.kind) visit(idx.byKind, e.ns, e.kind);
    if (e.layer === 'memory') for (const t of e.terms) visit(idx.byTerm, e.ns, lowerTerm(t));
    if (e.superseded_by !== undefined) visit(idx.supersededBy, e.ns, e.superseded_by);
  }

  snapshot(): RecordsSnapshot {
    const strings: string[] = [];
    const ids = new Map<string, number>();
    const ref = (value: string): number => {
      let id = ids.get(value);
      if (id === undefined) ids.set(value, (id = strings.push(value) - 1));
      return id;
    };
    const str = (v: unknown): unknown => (typeof v === 'string' ? ref(v) : v);
    const list = (v: unknown): unknown => (!Array.isArray(v) || !v.every((x) => typeof x === 'string') ? v : v.length === 0 ? 0 : v.map(ref));
    const keys: string[] = [];
    const writer = new RowWriter();
    for (const e of this.allEntries()) {
      keys.push(e.key);
      writer.add(rowOf(e, str, list));
    }
    const rows = writer.finish();
    return { fold: this.fold.state, format: 3, strings, count: keys.length, keys: packStringChunks(keys, KEYS_PER_CHUNK), rows };
  }

  load(state: unknown): void {
    const snap = state as RecordsSnapshot;
    this.reset();
    this.fold.load(snap.fold);
    if (snap.format === 3) this.keepPacked(snap);
    else if (snap.format === 2) this.loadRows(snap.entries as SnapshotRow[], snap.strings ?? []);
    else for (const e of snap.entries as RecordEntry[]) this.entries.set(e.key, this.compact(e));
    this.loadedOlderFormat = snap.format !== 3;
    this.indexed = this.entries.size === 0 && this.packed === undefined;
  }

  /** A format 3 load: each key maps to its row (see mapKeys), unpacked when first needed (or by warm()). */
  private keepPacked(snap: RecordsSnapshot): void {
    const count = snap.count ?? 0;
    const keyChunks = snap.keys ?? [];
    if (keyChunks.length !== Math.ceil(count / KEYS_PER_CHUNK)) throw new Error(`records snapshot: ${count} keys in ${keyChunks.length} chunks`);
    const rows = new PackedRows(snap.rows ?? [], count);
    if (count > 0) this.packed = { rows, count, keyChunks, keys: [], strings: snap.strings ?? [], mapped: 0, next: 0, left: count };
  }

  /** how many entries a snapshot load left packed (unpacked when first asked for, or by warm()) */
  get rowsPacked(): number {
    if (this.packed) this.mapKeys();
    return this.packed?.left ?? 0;
  }

  /** true after load() read format 1 or 2 (the runner then writes format 3) */
  loadedOlderFormat = false;

  /** Format 2 rows back into entries, in place (the decoded rows become the entries). */
  private loadRows(rows: SnapshotRow[], strings: string[]): void {
    for (const s of strings) this.strings.get(s); // later upserts share these too
    const str = (v: unknown): unknown => strings[v as number];
    const list = (v: unknown): unknown => listOf(v, strings);
    for (const row of rows) {
      mapShared(row, str, list);
      if (row['fingerprint'] === 0) row['fingerprint'] = row['content_fp'];
      if (row['title'] === 0) row['title'] = row['text'];
      const entry = row as unknown as RecordEntry;
      this.entries.set(entry.key, entry);
    }
  }

  /** The entry, with what repeats shared (see StringPool); same content. */
  private compact(e: RecordEntry): RecordEntry {
    mapShared(e as unknown as Record<string, unknown>, this.pooled, this.sharedList);
    if (e.fingerprint !== undefined && e.fingerprint === e.content_fp) e.fingerprint = e.content_fp;
    if (e.title === e.text) e.title = e.text;
    return e;
  }

  private readonly pooled = (v: unknown): unknown => this.strings.get(v as string);

  /** A list with its strings shared (a new array: items' lists are shared with other projections), or the one empty list. */
  private readonly sharedList = (list: unknown): unknown => {
    if (!Array.isArray(list)) return list; // as found (no entry lacks its lists; old snapshots are kept as they were)
    if (list.length === 0) return EMPTY;
    const out = new Array<string>(list.length);
    for (let i = 0; i < list.length; i++) {
      const x = list[i] as string;
      out[i] = typeof x === 'string' ? this.strings.get(x) : x;
    }
    return out;
  };

  reset(): void {
    this.epoch += 1;
    this.strings.clear();
    this.incoming = undefined;
    this.fold.reset();
    this.entries = new Map();
    this.packed = undefined;
    for (const m of Object.values(this.idx)) m.clear();
    this.indexed = false;
    this.building = undefined;
    this.turnOrder.clear();
  }

  digest(): string {
    const entries = [...this.allEntries()].sort((a, b) => (a.key < b.key ? -1 : 1));
    return canonicalDigest({ fold: this.fold.state, entries });
  }

  // ---- queries ----

  get(key: string): RecordEntry | undefined {
    return this.entry(key);
  }

  /** All sections of one document (or the one item for single-item layers), in section order. */
  document(ns: string, layer: Layer, id: string): RecordEntry[] {
    return this.pick(this.lookups().byDoc.get(evidenceKey({ ns, layer, id })), { includeRetired: true }).sort(
      (a, b) => (a.position ?? 0) - (b.position ?? 0) || (a.key < b.key ? -1 : 1),
    );
  }

  /** A memory's supersede chain: the current head (none when forgotten) and every version, oldest first. */
  memoryChain(ns: string, id: string): { head: RecordEntry | undefined; history: RecordEntry[] } {
    const start = this.entry(evidenceKey({ ns, layer: 'memory', id }));
    if (!start) return { head: undefined, history: [] };
    const seen = new Set<string>([start.key]);
    let head: RecordEntry = start;
    for (let next = this.successor(head); next && !seen.has(next.key); next = this.successor(head)) {
      seen.add(next.key);
      head = next;
    }
    const history: RecordEntry[] = [];
    const stack = [head];
    const visited = new Set<string>();
    while (stack.length) {
      const e = stack.pop() as RecordEntry;
      if (visited.has(e.key)) continue;
      visited.add(e.key);
      history.push(e);
      for (const k of this.lookups().supersededBy.get(ns, e.id)) {
        const older = this.entry(k);
        if (older) stack.push(older);
      }
    }
    history.sort((a, b) => a.seq - b.seq);
    return { head: head.status === 'forgotten' ? undefined : head, history };
  }

  private successor(e: RecordEntry): RecordEntry | undefined {
    return e.superseded_by === undefined ? undefined : this.entry(evidenceKey({ ns: e.ns, layer: 'memory', id: e.superseded_by }));
  }

  /** The ids of active cards that relate to card `id` (an index rebuilt once per change, not a scan per call). */
  relatedFrom(ns: string, id: string): string[] {
    if (this.incoming?.revision !== this.revision) {
      const byTarget = new Map<string, Set<string>>();
      for (const e of this.all({ layers: ['card'] }))
        for (const target of e.relations ?? []) {
          const k = `${e.ns}\u0000${target}`;
          let from = byTarget.get(k);
          if (!from) byTarget.set(k, (from = new Set()));
          from.add(e.id);
        }
      this.incoming = { revision: this.revision, byTarget };
    }
    return [...(this.incoming.byTarget.get(`${ns}\u0000${id}`) ?? [])].sort();
  }

  private incoming: { revision: number; byTarget: Map<string, Set<string>> } | undefined;

  byEntityName(ns: string, entity: string, options: ListOptions = {}): RecordEntry[] {
    return this.pick(this.lookups().byEntity.get(ns, lower(entity)), options);
  }

  bySessionId(sessionId: string, options: ListOptions & { ns?: string } = {}): RecordEntry[] {
    return this.pick(this.lookups().bySession.get(sessionId), options)
      .filter((e) => options.ns === undefined || e.ns === options.ns)
      .sort((a, b) => a.seq - b.seq);
  }

  /**
   * The turns (traces, and memories written with a session) just before and after one in its session, in conversation order
   * (occurred_at, then log order — the order the window lane uses). The order is sorted
   * once per session change, not per question.
   */
  turnNeighbours(key: string): { before?: string | undefined; after?: string | undefined } {
    const entry = this.entry(key);
    const sessionId = entry?.session_id;
    if (!entry || !sessionId) return {};
    // a session id is its namespace's own: another namespace's session of the same id is another conversation
    const sessionKey = `${entry.ns}\u0000${sessionId}`;
    let order = this.turnOrder.get(sessionKey);
    if (!order) {
      const keys = this.pick(this.lookups().bySession.get(sessionId), { layers: ['trace', 'memory'] })
        .filter((e) => e.ns === entry.ns)
        .map((e) => ({ t: Date.parse(e.occurred_at), seq: e.seq, key: e.key }))
        .sort((a, b) => a.t - b.t || a.seq - b.seq)
        .map((e) => e.key);
      order = { keys, at: new Map(keys.map((k, i) => [k, i])) };
      this.turnOrder.set(sessionKey, order);
    }
    const i = order.at.get(key);
    return i === undefined ? {} : { before: order.keys[i - 1], after: order.keys[i + 1] };
  }

  byKindName(ns: string, kind: string, options: ListOptions = {}): RecordEntry[] {
    return this.pick(this.lookups().byKind.get(ns, kind), options).sort((a, b) => a.seq - b.seq);
  }

  /** Items whose occurred_at lies in [from, to) (ISO strings), oldest first. */
  byTimeRange(ns: string, from: string, to: string, options: ListOptions = {}): RecordEntry[] {
    const out: RecordEntry[] = [];
    const f = Date.parse(from);
    const t = Date.parse(to);
    for (const e of this.allEntries()) {
      if (e.ns !== ns || !this.visible(e, options)) continue;
      const at = Date.parse(e.occurred_at);
      if (at >= f && at < t) out.push(e);
    }
    return out.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at) || a.seq - b.seq);
  }

  /** Active memories whose term groups overlap the given terms (Jaccard ≥ threshold): likely to need superseding. */
  supersedeCandidates(ns: string, terms: readonly string[], excludeIds: readonly string[] = [], threshold = 0.5): { id: string; overlap: number }[] {
    const mine = new Set(terms.map(lowerTerm).filter(Boolean));
    if (mine.size === 0) return [];
    const byTerm = this.lookups().byTerm;
    const seen = new Set<string>();
    const out: { id: string; overlap: number }[] = [];
    // rarest terms first, and at most SUPERSEDE_SCAN holders visited: a term thousands of
    // memories carry says little, and visiting all of them made every write cost O(library)
    let budget = SUPERSEDE_SCAN;
    const rarestFirst = [...mine].sort((a, b) => byTerm.count(ns, a) - byTerm.count(ns, b));
    scan: for (const t of rarestFirst) {
      for (const key of byTerm.values(ns, t)) {
        if (budget-- <= 0) break scan;
        if (seen.has(key)) continue;
        seen.add(key);
        const e = this.entry(key);
        if (!e || e.status !== 'active' || excludeIds.includes(e.id)) continue;
        // their distinct terms and how many are mine, without a Set per memory visited
        let theirs = 0;
        let inter = 0;
        for (let i = 0; i < e.terms.length; i++) {
          const t = lowerTerm(e.terms[i] as string);
          let repeat = false;
          for (let j = 0; j < i && !repeat; j++) repeat = lowerTerm(e.terms[j] as string) === t;
          if (repeat) continue;
          theirs += 1;
          if (mine.has(t)) inter += 1;
        }
        const overlap = inter / (mine.size + theirs - inter);
        if (overlap >= threshold) out.push({ id: e.id, overlap: Math.round(overlap * 1000) / 1000 });
      }
    }
    return out.sort((a, b) => b.overlap - a.overlap);
  }

  /** Every entry (optionally only active ones), in no particular order. */
  *all(options: ListOptions = {}): IterableIterator<RecordEntry> {
    for (const e of this.allEntries()) if (this.visible(e, options)) yield e;
  }

  /** Items of one namespace, or of all. */
  /** `visible`: the caller's audience (issue 34): what it may not see is not counted */
  counts(ns?: string, visible?: (e: RecordEntry) => boolean): { total: number; active: number; by_layer: Record<string, number> } {
    const by_layer: Record<string, number> = {};
    let active = 0;
    let total = 0;
    for (const e of this.allEntries()) {
      if ((ns !== undefined && e.ns !== ns) || (visible !== undefined && !visible(e))) continue;
      total += 1;
      if (e.status !== 'active') continue;
      active += 1;
      by_layer[e.layer] = (by_layer[e.layer] ?? 0) + 1;
    }
    return { total, active, by_layer };
  }

  private visible(e: RecordEntry, options: ListOptions): boolean {
    if (!options.includeRetired && e.status !== 'active') return false;
    return !options.layers || options.layers.includes(e.layer);
  }

  private pick(keys: readonly string[], options: ListOptions): RecordEntry[] {
    const out: RecordEntry[] = [];
    for (const k of keys) {
      const e = this.entry(k);
      if (e && this.visible(e, options)) out.push(e);
    }
    return out;
  }
}
