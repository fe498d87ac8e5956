// keyword: BM25 over Latin word tokens and CJK bigrams (lane `text`), and a separate
// lane over memories' expansion words (lane `terms`). Retired items leave the index.
import { searchableText } from '../../src/knowledge/item.js';
import type { LogRecord } from '../../src/events/index.js';
import { LAYERS, LAYER_INDEX, LAYER_SLOTS, type Layer } from '../../src/knowledge/evidence.js';
import { FOLDED_TYPES, KnowledgeFold, type KnowledgeFoldState } from '../../src/knowledge/fold.js';
import type { Item } from '../../src/knowledge/item.js';
import { queryTokens, tokenize } from '../../src/text/index.js';
import { canonicalDigest, type Projection } from '../projection.js';
import { Bm25Index, Vocabulary, keepUsedTerms, type Bm25Gate, type Bm25Stats, type DocColumns, type DocTerms } from './bm25.js';

export type KeywordLane = 'text' | 'terms';
const LANES: readonly KeywordLane[] = ['text', 'terms'];

const LAYERS_ALL: readonly Layer[] = LAYERS;

export interface KeywordHit {
  key: string;
  layer: Layer;
  ns: string;
  score: number;
  /** every distinct query term occurs in the item */
  complete: boolean;
  matched: number;
}

export interface KeywordSearchOptions {
  lane?: KeywordLane;
  /** namespaces the caller may read; items elsewhere never come back */
  namespaces: readonly string[];
  layers?: readonly Layer[];
  limit?: number;
  /** evidence keys left out inside the search, so they take no slot of `limit` (a session's own traces) */
  exclude?: ReadonlySet<string>;
}

/** A row of the old snapshot format (version 1 files still load). */
interface DocRowV1 {
  key: string;
  ns: string;
  layer: Layer;
  text: string[];
  terms: string[];
}

interface KeywordSnapshot {
  fold: KnowledgeFoldState;
  /** format 2: columns; absent: version 1 rows */
  format?: 2;
  docs?: DocRowV1[];
  vocabulary?: string[];
  namespaces?: string[];
  keys?: string[];
  groups?: Int32Array;
  text?: DocColumns;
  terms?: DocColumns;
}

export { searchableText };

export class KeywordProjection implements Projection {
  readonly name = 'keyword';
  /**
   * v2: tokens hold an identifier's words beside it ("hookTimeout" → hook, timeout); v3: also in a text
   * holding İ, which tokenizes as I ("İstanbul" → istanbul). An older snapshot is refolded from the log.
   */
  readonly version = 3;
  /** it only folds knowledge */
  readonly types = FOLDED_TYPES;
  private readonly fold = new KnowledgeFold();
  /** term strings ↔ ids, shared by both lanes and the per-namespace frequencies */
  private vocabulary = new Vocabulary();
  private text = new Bm25Index();
  private terms = new Bm25Index();
  /** doc → evidence key (undefined once dropped) */
  private keys: (string | undefined)[] = [];
  private docByKey = new Map<string, number>();
  /** a loaded snapshot's first doc not yet in docByKey (see docOf), or none left */
  private pendingDocs: number | undefined;

  /**
   * Each live key's doc. A snapshot's million keys took over a second to put in the Map at
   * start-up, though searches never need it (hits map docs to keys): warm() fills it in slices
   * after the open, and anything that needs it first (a write, `has`, `size`) finishes it.
   */
  private get docOf(): Map<string, number> {
    if (this.pendingDocs !== undefined) this.warm();
    return this.docByKey;
  }

  /** Add the rest of a loaded snapshot's keys to docOf for about `budgetMs`; true once none is left. */
  warm(budgetMs = Infinity): boolean {
    if (this.pendingDocs === undefined) return true;
    const keys = this.keys;
    const until = performance.now() + budgetMs;
    let doc = this.pendingDocs;
    for (; doc < keys.length; doc++) {
      this.docByKey.set(keys[doc] as string, doc);
      if ((doc & 4095) === 4095 && performance.now() >= until) {
        this.pendingDocs = doc + 1;
        return false;
      }
    }
    this.pendingDocs = undefined;
    return true;
  }
  /** doc → group (namespace id × 8 + layer id), for gating searches with typed lookups */
  private groupOf: number[] = [];
  private nsIds = new Map<string, number>();
  private nsNames: string[] = [];
  /** per namespace id and lane: live docs, total length, document frequency per term id (derived, rebuilt on load) */
  private nsStats: Record<KeywordLane, Bm25Stats>[] = [];

  apply(record: LogRecord): void {
    for (const change of this.fold.changes(record)) {
      if (change.op === 'upsert') this.put(change.item);
      else if (change.op === 'retire') this.drop(change.key);
    }
  }

  private put(item: Item): void {
    this.insert({
      key: item.key,
      ns: item.ns,
      layer: item.layer,
      text: tokenize(searchableText(item)),
      terms: item.layer === 'memory' ? item.terms.flatMap((t) => tokenize(t)) : [],
    });
  }

  private insert(row: DocRowV1): void {
    this.drop(row.key);
    const doc = this.open(row.key, this.group(row.ns, row.layer));
    this.text.add(doc, this.termIds(row.text));
    if (row.terms.length) this.terms.add(doc, this.termIds(row.terms));
    this.countIn(doc, +1);
  }

  private termIds(tokens: readonly string[]): number[] {
    const ids = new Array<number>(tokens.length);
    for (let i = 0; i < tokens.length; i++) ids[i] = this.vocabulary.intern(tokens[i] as string);
    return ids;
  }

  /** A new doc number for a key. */
  private open(key: string, group: number): number {
    const doc = this.keys.length;
    this.keys.push(key);
    this.docOf.set(key, doc);
    this.groupOf[doc] = group;
    return doc;
  }

  /** Add (+1) or take back (-1) a doc in its namespace's statistics, lane by lane. */
  private countIn(doc: number, sign: 1 | -1): void {
    const nsId = Math.floor((this.groupOf[doc] as number) / LAYER_SLOTS);
    const empty = (): Bm25Stats => ({ live: 0, length: 0, df: new Int32Array(Math.max(64, this.vocabulary.size)) });
    const own = (this.nsStats[nsId] ??= { text: empty(), terms: empty() });
    for (const lane of LANES) {
      const index = lane === 'terms' ? this.terms : this.text;
      if (!index.has(doc)) continue;
      const stats = own[lane];
      if (stats.df.length < this.vocabulary.size) {
        const grown = new Int32Array(Math.max(this.vocabulary.size, stats.df.length * 2));
        grown.set(stats.df);
        stats.df = grown;
      }
      index.countInto(doc, stats, sign);
    }
  }

  private drop(key: string): void {
    const doc = this.docOf.get(key);
    if (doc === undefined) return;
    this.countIn(doc, -1);
    this.text.remove(doc);
    this.terms.remove(doc);
    this.keys[doc] = undefined;
    this.docOf.delete(key);
  }

  private group(ns: string, layer: Layer): number {
    let id = this.nsIds.get(ns);
    if (id === undefined) {
      this.nsIds.set(ns, (id = this.nsIds.size));
      this.nsNames.push(ns);
    }
    return id * LAYER_SLOTS + LAYER_INDEX[layer];
  }

  private gate(namespaces: readonly string[] | undefined, layers: readonly Layer[] | undefined): Bm25Gate & { rejected: number[] } {
    const accept = new Uint8Array(Math.max(1, this.nsIds.size) * LAYER_SLOTS);
    for (const [ns, id] of this.nsIds) {
      if (namespaces && !namespaces.includes(ns)) continue;
      for (const layer of layers ?? LAYERS_ALL) accept[id * LAYER_SLOTS + LAYER_INDEX[layer]] = 1;
    }
    return { groupOf: this.groupOf, accept, rejected: [] };
  }

  /**
   * Leave `exclude`'s keys out of a search: as their docs (bm25 takes them out once) when every key's
   * doc is known, else by comparing each matching doc's key (docOf would put a loaded snapshot's
   * keys in the Map at once, what warm() spreads over slices).
   */
  private leaveOut(gate: Bm25Gate, exclude: ReadonlySet<string>): void {
    if (this.pendingDocs !== undefined) {
      gate.skip = (doc) => exclude.has(this.keys[doc] as string);
      return;
    }
    const docs: number[] = [];
    for (const key of exclude) {
      const doc = this.docByKey.get(key);
      if (doc !== undefined) docs.push(doc);
    }
    gate.skipDocs = docs;
  }

  search(query: string, options: KeywordSearchOptions): KeywordHit[] {
    return this.searchCounting(query, options).hits;
  }

  /**
   * Search, and count the matching items of the searched layers that namespace rules
   * kept out (ACL filter counts: counts only, never content).
   */
  searchCounting(query: string, options: KeywordSearchOptions): { hits: KeywordHit[]; filtered: Record<string, number>; excluded: number } {
    const lane: KeywordLane = options.lane === 'terms' ? 'terms' : 'text';
    const index = lane === 'terms' ? this.terms : this.text;
    const gate = this.gate(options.namespaces, options.layers);
    const exclude = options.exclude;
    if (exclude?.size) this.leaveOut(gate, exclude);
    // one namespace searched: BM25 over its own docs only, so its scores never tell what others hold
    const nsId = options.namespaces.length === 1 ? this.nsIds.get(options.namespaces[0] as string) : undefined;
    const own = nsId === undefined ? undefined : this.nsStats[nsId]?.[lane];
    const { hits, terms } = index.search(queryTokens(query), this.vocabulary, options.limit ?? 50, gate, own);
    const layerAllowed = new Set(options.layers ?? LAYERS_ALL);
    const filtered: Record<string, number> = {};
    gate.rejected.forEach((n, g) => {
      const layer = LAYERS_ALL[g % LAYER_SLOTS];
      if (n && layer && layerAllowed.has(layer)) filtered[layer] = (filtered[layer] ?? 0) + n;
    });
    return {
      hits: hits.map((h) => {
        const g = this.groupOf[h.doc] as number;
        return {
          key: this.keys[h.doc] as string,
          layer: LAYERS_ALL[g % LAYER_SLOTS] as Layer,
          ns: this.nsNames[Math.floor(g / LAYER_SLOTS)] as string,
          score: h.score,
          complete: h.matched === terms,
          matched: h.matched,
        };
      }),
      filtered,
      excluded: gate.skipped ?? 0,
    };
  }

  /**
   * How telling a term is (BM25 idf): within one namespace when given — a speaker's name
   * in every turn of a conversation tells nothing there — else across the whole index.
   */
  idf(term: string, ns?: string): number {
    const id = this.vocabulary.id(term);
    if (ns === undefined) return this.text.idf(id);
    const nsId = this.nsIds.get(ns);
    const stats = nsId === undefined ? undefined : this.nsStats[nsId]?.text;
    const live = stats?.live ?? 0;
    const df = id === undefined || !stats ? 0 : (stats.df[id] ?? 0);
    return Math.log(1 + (live - df + 0.5) / (df + 0.5));
  }

  has(key: string): boolean {
    return this.docOf.has(key);
  }

  get size(): number {
    return this.docOf.size;
  }

  /** Live docs in doc order, renumbered densely, as columns of typed arrays (loads without re-tokenising or re-hashing). */
  snapshot(): KeywordSnapshot {
    const live: number[] = [];
    for (let doc = 0; doc < this.keys.length; doc++) if (this.keys[doc] !== undefined) live.push(doc);
    const text = this.text.columns(live);
    const terms = this.terms.columns(live);
    return {
      format: 2,
      fold: this.fold.state,
      vocabulary: keepUsedTerms(this.vocabulary, [text, terms]),
      namespaces: [...this.nsNames],
      keys: live.map((d) => this.keys[d] as string),
      groups: Int32Array.from(live, (d) => this.groupOf[d] as number),
      text,
      terms,
    };
  }

  load(state: unknown): void {
    const snap = state as KeywordSnapshot;
    this.reset();
    this.fold.load(snap.fold);
    this.loadedOlderFormat = snap.format !== 2;
    if (snap.format !== 2) {
      // version 1 files: rows of token strings
      for (const row of snap.docs ?? []) this.insert(row);
      return;
    }
    this.vocabulary = new Vocabulary(snap.vocabulary ?? []);
    for (const ns of snap.namespaces ?? []) this.group(ns, 'memory');
    const keys = snap.keys ?? [];
    this.keys = keys; // the unpacked array is ours
    this.pendingDocs = keys.length > 0 ? 0 : undefined; // into docOf by warm(), or when first needed
    this.groupOf = Array.from(snap.groups as Int32Array);
    this.text = Bm25Index.fromColumns(snap.text as DocColumns, this.vocabulary.size);
    this.terms = Bm25Index.fromColumns(snap.terms as DocColumns, this.vocabulary.size);
    for (let doc = 0; doc < keys.length; doc++) this.countIn(doc, +1);
  }

  loadedOlderFormat = false;

  reset(): void {
    this.fold.reset();
    this.vocabulary = new Vocabulary();
    this.text = new Bm25Index();
    this.terms = new Bm25Index();
    this.keys = [];
    this.docByKey = new Map();
    this.pendingDocs = undefined;
    this.groupOf = [];
    this.nsIds = new Map();
    this.nsNames = [];
    this.nsStats = [];
  }

  /** Logical content: per key its namespace, layer, and each lane's (term, frequency) bag and length — not doc or term numbers. */
  digest(): string {
    const bag = (terms: DocTerms | undefined): unknown =>
      terms
        ? [
            terms.length,
            [...terms.ids].map((id, i) => [this.vocabulary.term(id), terms.tfs[i] as number]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
          ]
        : null;
    const rows: unknown[] = [];
    for (const [key, doc] of [...this.docOf].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const g = this.groupOf[doc] as number;
      rows.push([key, this.nsNames[Math.floor(g / LAYER_SLOTS)], LAYERS_ALL[g % LAYER_SLOTS], bag(this.text.termsOf(doc)), bag(this.terms.termsOf(doc))]);
    }
    return canonicalDigest({ fold: this.fold.state, rows });
  }
}
