// graph: items and the entities they name (issue 35; seed 004's knowledge graph), folded from
// the items the knowledge fold makes. An item's entities are the ones it was written with (a
// memory's entities, a turn's speaker) plus those its text names (src/text/entities.ts,
// extracted when the item's event is folded, so a rebuild extracts the same). Edges between
// items: a shared entity (co-occurrence), supersede (an item and what replaced it), reference
// (a card's relations) and — read from the records projection by the channel — the turns
// before and after in a session. The graph channel (src/recall/channels/graph.ts) and
// get_related walk it.
import { FOLDED_TYPES, KnowledgeFold, type KnowledgeFoldState } from '../src/knowledge/fold.js';
import type { Item } from '../src/knowledge/item.js';
import type { LogRecord } from '../src/events/index.js';
import { extractEntities } from '../src/text/entities.js';
import { repliesTo } from '../src/text/turn-shape.js';
import { canonicalDigest, type Projection } from './projection.js';

/**
 * [namespace, entities (lower-cased), document ("layer:id", for references), occurred_at (ms),
 * log seq, 1 for a memory written without a session (a "plain" one, whose neighbours are its
 * neighbours in time, see timeNeighbours) else 0]
 */
type GraphItem = [string, string[], string, number, number, 0 | 1];

/** The state as digest() reads it (and as snapshots held it before format 2). */
interface GraphState {
  fold: KnowledgeFoldState;
  /** live items only: a retired one leaves the graph (its supersede edge stays) */
  items: Record<string, GraphItem>;
  /** key → keys it was superseded by or superseded (both ways) */
  supersede: Record<string, string[]>;
  /** namespace \0 card id → the card ids its relations section names */
  refs: Record<string, string[]>;
}

/**
 * The snapshot, format 2: the live items as two arrays (keys[i] holds rows[i], in the map's order)
 * instead of one object keyed by evidence key. A rebuild hands the graph from the fold worker to the
 * runner's thread as a snapshot after the fold, so packing and loading it is a serial tail of every
 * rebuild: at 35,000 items (bench:log's 105,000 events) an object of 35,000 keys took ~100 ms to
 * build and pack on the worker and ~150 ms to unpack and turn into a Map on the runner, the arrays
 * ~55 and ~95 ms. load() still reads the object form (snapshots written before).
 */
interface GraphSnapshot {
  format: 2;
  fold: KnowledgeFoldState;
  keys: string[];
  rows: GraphItem[];
  supersede: Record<string, string[]>;
  refs: Record<string, string[]>;
}

export class GraphProjection implements Projection {
  readonly name = 'graph';
  // 3: a label opening a line ("Note: …") is no speaker nor entity (src/text/entities.ts, memoryEntities)
  // 4: nor a label of several words ("Action Item: …")
  // 5: a speaker before a full-width colon; "Re:", "Fwd:", "HTTP:" are labels (src/text/turn-shape.ts)
  readonly version = 5;
  readonly types: ReadonlySet<string> = FOLDED_TYPES;
  private readonly fold = new KnowledgeFold();
  private items = new Map<string, GraphItem>();
  private supersede = new Map<string, string[]>();
  private refs = new Map<string, string[]>();
  /** derived (never snapshotted): namespace \0 entity → keys; namespace \0 document → keys; live items per namespace */
  private index: { byEntity: Map<string, Set<string>>; byDoc: Map<string, Set<string>>; perNs: Map<string, number> } | undefined;
  /**
   * derived (never snapshotted), apart from `index`: each namespace's plain memories in conversation
   * order, all timeNeighbours reads. Built on its own at first use: recall asks for it on every turn
   * (plain neighbours are on by default) while `index` serves the graph channel (off by default) and
   * get_related, and building both on the first turn cost that turn 133 ms at 20,000 records
   * (bench:recall), most of it the entity sets.
   */
  private plainIndex: Map<string, PlainEntry[]> | undefined;

  apply(record: LogRecord): void {
    for (const change of this.fold.changes(record)) {
      if (change.op === 'upsert') this.put(change.item);
      else if (change.op === 'retire') {
        this.drop(change.key);
        if (change.status === 'superseded' && change.by !== undefined) this.link(change.key, successorKey(change.key, change.by));
      }
    }
  }

  private put(item: Item): void {
    this.drop(item.key);
    const named = extractEntities(item.layer === 'card' || item.layer === 'wiki' ? `${item.title}\n${item.text}` : item.text);
    // most items were written with no entities: the extracted ones as they are (distinct already), no set and copy per item
    const ents = item.entities.length === 0 ? named : [...new Set([...item.entities.map((e) => e.normalize('NFKC').toLowerCase()), ...named])];
    const plain = item.layer === 'memory' && !item.session_id ? 1 : 0;
    const row: GraphItem = [item.ns, ents, `${item.layer}:${item.id}`, Date.parse(item.occurred_at) || 0, item.seq, plain];
    this.items.set(item.key, row);
    if (item.layer === 'card') this.refs.set(`${item.ns}\u0000${item.id}`, item.relations ?? []);
    if (this.index) this.indexItem(item.key, row);
    if (this.plainIndex && plain) this.indexPlain(this.plainIndex, item.key, row);
  }

  private drop(key: string): void {
    const row = this.items.get(key);
    if (!row) return;
    this.items.delete(key);
    if (this.index) {
      for (const e of row[1]) this.index.byEntity.get(`${row[0]}\u0000${e}`)?.delete(key);
      this.index.byDoc.get(`${row[0]}\u0000${row[2]}`)?.delete(key);
      this.index.perNs.set(row[0], (this.index.perNs.get(row[0]) ?? 1) - 1);
    }
    if (this.plainIndex && row[5]) {
      const list = this.plainIndex.get(row[0]) ?? [];
      const at = positionOf(list, { t: row[3], seq: row[4] });
      if (list[at]?.key === key) list.splice(at, 1);
    }
  }

  private link(a: string, b: string): void {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const list = this.supersede.get(x) ?? [];
      if (!list.includes(y)) this.supersede.set(x, [...list, y]);
    }
  }

  private indexItem(key: string, row: GraphItem): void {
    const idx = this.index as NonNullable<GraphProjection['index']>;
    for (const e of row[1]) {
      const k = `${row[0]}\u0000${e}`;
      let set = idx.byEntity.get(k);
      if (!set) idx.byEntity.set(k, (set = new Set()));
      set.add(key);
    }
    const d = `${row[0]}\u0000${row[2]}`;
    let docs = idx.byDoc.get(d);
    if (!docs) idx.byDoc.set(d, (docs = new Set()));
    docs.add(key);
    idx.perNs.set(row[0], (idx.perNs.get(row[0]) ?? 0) + 1);
  }

  private indexPlain(plain: Map<string, PlainEntry[]>, key: string, row: GraphItem): void {
    let list = plain.get(row[0]);
    if (!list) plain.set(row[0], (list = []));
    const entry = { t: row[3], seq: row[4], key };
    // kept in conversation order (time, then log order): a write usually lands at the end
    let i = list.length;
    while (i > 0 && before(entry, list[i - 1] as PlainEntry)) i -= 1;
    list.splice(i, 0, entry);
  }

  private lookups(): NonNullable<GraphProjection['index']> {
    if (!this.index) {
      this.index = { byEntity: new Map(), byDoc: new Map(), perNs: new Map() };
      for (const [key, row] of this.items) this.indexItem(key, row);
    }
    return this.index;
  }

  private plainLists(): Map<string, PlainEntry[]> {
    if (!this.plainIndex) {
      const plain = new Map<string, PlainEntry[]>();
      for (const [key, row] of this.items) if (row[5]) this.indexPlain(plain, key, row);
      this.plainIndex = plain;
    }
    return this.plainIndex;
  }

  /** The entities of a live item (lower-cased). */
  entitiesOf(key: string): readonly string[] {
    return this.items.get(key)?.[1] ?? [];
  }

  /** The live items of namespace `ns` naming `entity` (lower-cased). */
  itemsNaming(ns: string, entity: string): ReadonlySet<string> {
    return this.lookups().byEntity.get(`${ns}\u0000${entity}`) ?? EMPTY;
  }

  /** How many live items a namespace holds in the graph. */
  size(ns: string): number {
    return this.lookups().perNs.get(ns) ?? 0;
  }

  /**
   * A memory written without a session: the plain memories of its namespace just before and after
   * it in time (occurred_at, then log order), each when the two are turns of one exchange
   * (plainNeighbours: at most `gapMs` apart, and the later replies to the earlier) — an agent's
   * conversation written as plain memories has neighbours, as a session's turns do (issue 35).
   * `textOf`: the items' texts (the records projection's).
   */
  timeNeighbours(key: string, gapMs: number, textOf: (key: string) => string | undefined): { before?: string; after?: string } {
    const row = this.items.get(key);
    if (!row || !row[5]) return {};
    const list = this.plainLists().get(row[0]) ?? [];
    const i = positionOf(list, { t: row[3], seq: row[4] });
    const prev = list[i - 1];
    const next = list[i + 1];
    const turn = (at: { t: number; key: string }): PlainTurn => ({ t: at.t, text: textOf(at.key) ?? '' });
    const self = turn({ t: row[3], key });
    return {
      ...(prev && plainNeighbours(turn(prev), self, gapMs) ? { before: prev.key } : {}),
      ...(next && plainNeighbours(self, turn(next), gapMs) ? { after: next.key } : {}),
    };
  }

  /** Items an item supersedes or was superseded by. */
  supersedeOf(key: string): readonly string[] {
    return this.supersede.get(key) ?? [];
  }

  /** The live items (sections) of the cards a card item's relations name, and of the cards naming it. */
  referencesOf(key: string): string[] {
    const row = this.items.get(key);
    if (!row || !row[2].startsWith('card:')) return [];
    const [ns, , doc] = row;
    const id = doc.slice('card:'.length);
    const out: string[] = [];
    const sections = (cardId: string): void => void out.push(...(this.lookups().byDoc.get(`${ns}\u0000card:${cardId}`) ?? []));
    for (const other of this.refs.get(`${ns}\u0000${id}`) ?? []) sections(other);
    for (const [from, to] of this.refs) if (from.startsWith(`${ns}\u0000`) && to.includes(id)) sections(from.slice(ns.length + 1));
    return out;
  }

  snapshot(): GraphSnapshot {
    return {
      format: 2,
      fold: this.fold.state,
      keys: [...this.items.keys()],
      rows: [...this.items.values()],
      supersede: Object.fromEntries(this.supersede),
      refs: Object.fromEntries(this.refs),
    };
  }

  load(state: unknown): void {
    const s = state as GraphSnapshot | GraphState;
    this.fold.load(s.fold);
    if ('format' in s && s.format === 2) {
      const items = new Map<string, GraphItem>();
      for (let i = 0; i < s.keys.length; i++) items.set(s.keys[i] as string, s.rows[i] as GraphItem);
      this.items = items;
    } else this.items = new Map(Object.entries((s as GraphState).items));
    this.supersede = new Map(Object.entries(s.supersede));
    this.refs = new Map(Object.entries(s.refs));
    this.index = undefined;
    this.plainIndex = undefined;
  }

  reset(): void {
    this.fold.reset();
    this.items = new Map();
    this.supersede = new Map();
    this.refs = new Map();
    this.index = undefined;
    this.plainIndex = undefined;
  }

  /** Over the object form (canonical: key order aside), the same value as before snapshot format 2. */
  digest(): string {
    const state: GraphState = {
      fold: this.fold.state,
      items: Object.fromEntries(this.items),
      supersede: Object.fromEntries(this.supersede),
      refs: Object.fromEntries(this.refs),
    };
    return canonicalDigest(state);
  }
}

const EMPTY: ReadonlySet<string> = new Set();
type PlainEntry = { t: number; seq: number; key: string };
const before = (a: { t: number; seq: number }, b: { t: number; seq: number }): boolean => a.t < b.t || (a.t === b.t && a.seq < b.seq);

/** The key of what replaced `old`: a memory names its successor by id, a document section by key. */
function successorKey(old: string, by: string): string {
  if (by.startsWith('ev1:')) return by;
  const prefix = /^(ev1:[^:]+:[a-z]+:)/.exec(old)?.[1] ?? '';
  return `${prefix}${by}`;
}

/** Where an entry at (t, seq) is in a list sorted by `before` (binary search: lists hold every plain memory of a namespace). */
function positionOf(list: readonly { t: number; seq: number }[], at: { t: number; seq: number }): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(list[mid] as { t: number; seq: number }, at)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Two plain memories in time order are close when at most `gapMs` apart and not stamped at the
 * same instant: one bulk write without occurred_at (an import of unrelated facts) is never chained.
 */
export function closeInTime(earlier: number, later: number, gapMs: number): boolean {
  return later > earlier && later - earlier <= gapMs;
}

/** A plain memory as the neighbour rule reads it: when it happened (ms) and its text. */
export interface PlainTurn {
  t: number;
  text: string;
}

/**
 * The rule for plain memories (no session_id), consecutive in time in one namespace: they are
 * neighbours — lifted by each other in recall, embedded together in the window lane, walked by the
 * graph channel — when close in time (closeInTime) and the later reads as a reply to the earlier
 * (repliesTo: a question and its answer, or two speakers' lines). Unrelated facts written one after
 * the other, even a second apart, are not chained.
 */
export function plainNeighbours(earlier: PlainTurn, later: PlainTurn, gapMs: number): boolean {
  return closeInTime(earlier.t, later.t, gapMs) && repliesTo(earlier.text, later.text);
}
