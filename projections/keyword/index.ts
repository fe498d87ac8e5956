// keyword: BM25 over Latin word tokens and CJK bigrams (lane `text`), and a separate
// lane over memories' expansion words (lane `terms`). Retired items leave the index.
import type { LogRecord } from '../../src/events/index.js';
import type { Layer } from '../../src/knowledge/evidence.js';
import { KnowledgeFold, type KnowledgeFoldState } from '../../src/knowledge/fold.js';
import type { Item } from '../../src/knowledge/item.js';
import { tokenize } from '../../src/text/index.js';
import { canonicalDigest, type Projection } from '../projection.js';
import { Bm25Index } from './bm25.js';

export type KeywordLane = 'text' | 'terms';

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

/** The words an item is found by: title (documents), body, entities and tags. */
export function searchableText(item: Item): string {
  const head = item.layer === 'card' || item.layer === 'wiki' ? `${item.title}\n` : '';
  return `${head}${item.text}\n${item.entities.join(' ')}\n${item.tags.join(' ')}`;
}

export class KeywordProjection implements Projection {
  readonly name = 'keyword';
  readonly version = 1;
  private readonly fold = new KnowledgeFold();
  private text = new Bm25Index();
  private terms = new Bm25Index();
  private docs: (DocRow | undefined)[] = [];
  private docOf = new Map<string, number>();

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

  private insert(row: DocRow): void {
    this.drop(row.key);
    const doc = this.docs.length;
    this.docs.push(row);
    this.docOf.set(row.key, doc);
    this.text.add(doc, row.text);
    if (row.terms.length) this.terms.add(doc, row.terms);
  }

  private drop(key: string): void {
    const doc = this.docOf.get(key);
    if (doc === undefined) return;
    this.text.remove(doc);
    this.terms.remove(doc);
    this.docs[doc] = undefined;
    this.docOf.delete(key);
  }

  search(query: string, options: KeywordSearchOptions): KeywordHit[] {
    const index = options.lane === 'terms' ? this.terms : this.text;
    const ns = new Set(options.namespaces);
    const layers = options.layers ? new Set(options.layers) : undefined;
    const { hits, terms } = index.search(tokenize(query), options.limit ?? 50, (doc) => {
      const row = this.docs[doc];
      return row !== undefined && ns.has(row.ns) && (!layers || layers.has(row.layer));
    });
    return hits.map((h) => {
      const row = this.docs[h.doc] as DocRow;
      return { key: row.key, layer: row.layer, ns: row.ns, score: h.score, complete: h.matched === terms, matched: h.matched };
    });
  }

  /** Hits in every namespace: only for counting what ACL keeps out, never for content. */
  searchAllNamespaces(query: string, options: { layers?: readonly Layer[]; limit?: number }): KeywordHit[] {
    const layers = options.layers ? new Set(options.layers) : undefined;
    const { hits, terms } = this.text.search(tokenize(query), options.limit ?? 50, (doc) => {
      const row = this.docs[doc];
      return row !== undefined && (!layers || layers.has(row.layer));
    });
    return hits.map((h) => {
      const row = this.docs[h.doc] as DocRow;
      return { key: row.key, layer: row.layer, ns: row.ns, score: h.score, complete: h.matched === terms, matched: h.matched };
    });
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
  }

  digest(): string {
    const rows = this.docs.filter((d): d is DocRow => d !== undefined).sort((a, b) => (a.key < b.key ? -1 : 1));
    return canonicalDigest({ fold: this.fold.state, rows });
  }
}
