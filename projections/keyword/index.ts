// keyword: BM25 over Latin word tokens and CJK bigrams (lane `text`), and a separate
// lane over memories' expansion words (lane `terms`). Retired items leave the index.
import { searchableText } from '../../src/knowledge/item.js';
import type { LogRecord } from '../../src/events/index.js';
import { LAYERS, LAYER_INDEX, LAYER_SLOTS, type Layer } from '../../src/knowledge/evidence.js';
import { KnowledgeFold, type KnowledgeFoldState } from '../../src/knowledge/fold.js';
import type { Item } from '../../src/knowledge/item.js';
import { tokenize } from '../../src/text/index.js';
import { canonicalDigest, type Projection } from '../projection.js';
import { Bm25Index, type Bm25Gate } from './bm25.js';

export type KeywordLane = 'text' | 'terms';

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
}

interface DocRow {
  key: string;
  ns: string;
  layer: Layer;
  text: string[];
  terms: string[];
}

interface KeywordSnapshot {
  fold: KnowledgeFoldState;
  docs: DocRow[];
}

export { searchableText };

export class KeywordProjection implements Projection {
  readonly name = 'keyword';
  readonly version = 1;
  private readonly fold = new KnowledgeFold();
  private text = new Bm25Index();
  private terms = new Bm25Index();
  private docs: (DocRow | undefined)[] = [];
  private docOf = new Map<string, number>();
  /** doc → group (namespace id × 8 + layer id), for gating searches with typed lookups */
  private groupOf: number[] = [];
  private nsIds = new Map<string, number>();
  /** per namespace: live docs and document frequency per term (derived, rebuilt on load) */
  private nsDf = new Map<string, { live: number; df: Map<string, number> }>();
  /** distinct tokens seen (see intern) */
  private vocabulary = new Map<string, string>();

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

  /**
   * One string object per distinct token: tokenize makes a new string for every occurrence, and
   * the rows, postings and per-doc term lists hold them all (at 100k records most of this
   * projection's heap was repeated copies of the same few thousand words).
   */
  private intern(tokens: readonly string[]): string[] {
    return tokens.map((t) => {
      const kept = this.vocabulary.get(t);
      if (kept !== undefined) return kept;
      this.vocabulary.set(t, t);
      return t;
    });
  }

  private insert(given: DocRow): void {
    const row: DocRow = { ...given, text: this.intern(given.text), terms: this.intern(given.terms) };
    this.drop(row.key);
    const doc = this.docs.length;
    this.docs.push(row);
    this.docOf.set(row.key, doc);
    this.groupOf[doc] = this.group(row.ns, row.layer);
    this.text.add(doc, row.text);
    if (row.terms.length) this.terms.add(doc, row.terms);
    let stats = this.nsDf.get(row.ns);
    if (!stats) this.nsDf.set(row.ns, (stats = { live: 0, df: new Map() }));
    stats.live += 1;
    for (const t of new Set(row.text)) stats.df.set(t, (stats.df.get(t) ?? 0) + 1);
  }

  private drop(key: string): void {
    const doc = this.docOf.get(key);
    if (doc === undefined) return;
    const row = this.docs[doc];
    this.text.remove(doc, row?.text ?? []);
    this.terms.remove(doc, row?.terms ?? []);
    const stats = row ? this.nsDf.get(row.ns) : undefined;
    if (row && stats) {
      stats.live -= 1;
      for (const t of new Set(row.text)) {
        const n = (stats.df.get(t) ?? 1) - 1;
        if (n > 0) stats.df.set(t, n);
        else stats.df.delete(t);
      }
    }
    this.docs[doc] = undefined;
    this.docOf.delete(key);
  }

  private group(ns: string, layer: Layer): number {
    let id = this.nsIds.get(ns);
    if (id === undefined) this.nsIds.set(ns, (id = this.nsIds.size));
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

  search(query: string, options: KeywordSearchOptions): KeywordHit[] {
    return this.searchCounting(query, options).hits;
  }

  /**
   * Search, and count the matching items of the searched layers that namespace rules
   * kept out (ACL filter counts: counts only, never content).
   */
  searchCounting(query: string, options: KeywordSearchOptions): { hits: KeywordHit[]; filtered: Record<string, number> } {
    const index = options.lane === 'terms' ? this.terms : this.text;
    const gate = this.gate(options.namespaces, options.layers);
    const { hits, terms } = index.search(tokenize(query), options.limit ?? 50, gate);
    const layerAllowed = new Set(options.layers ?? LAYERS_ALL);
    const filtered: Record<string, number> = {};
    gate.rejected.forEach((n, g) => {
      const layer = LAYERS_ALL[g % LAYER_SLOTS];
      if (n && layer && layerAllowed.has(layer)) filtered[layer] = (filtered[layer] ?? 0) + n;
    });
    return {
      hits: hits.map((h) => {
        const row = this.docs[h.doc] as DocRow;
        return { key: row.key, layer: row.layer, ns: row.ns, score: h.score, complete: h.matched === terms, matched: h.matched };
      }),
      filtered,
    };
  }

  /**
   * How telling a term is (BM25 idf): within one namespace when given — a speaker's name
   * in every turn of a conversation tells nothing there — else across the whole index.
   */
  idf(term: string, ns?: string): number {
    if (ns === undefined) return this.text.idf(term);
    const stats = this.nsDf.get(ns);
    const live = stats?.live ?? 0;
    const df = stats?.df.get(term) ?? 0;
    return Math.log(1 + (live - df + 0.5) / (df + 0.5));
  }

  has(key: string): boolean {
    return this.docOf.has(key);
  }

  get size(): number {
    return this.docOf.size;
  }

  snapshot(): KeywordSnapshot {
    return { fold: this.fold.state, docs: this.docs.filter((d): d is DocRow => d !== undefined) };
  }

  load(state: unknown): void {
    const snap = state as KeywordSnapshot;
    this.reset();
    this.fold.load(snap.fold);
    for (const row of snap.docs) this.insert(row);
  }

  reset(): void {
    this.fold.reset();
    this.text = new Bm25Index();
    this.terms = new Bm25Index();
    this.docs = [];
    this.docOf = new Map();
    this.groupOf = [];
    this.nsIds = new Map();
    this.nsDf = new Map();
    this.vocabulary = new Map();
  }

  digest(): string {
    const rows = this.docs.filter((d): d is DocRow => d !== undefined).sort((a, b) => (a.key < b.key ? -1 : 1));
    return canonicalDigest({ fold: this.fold.state, rows });
  }
}
