// An in-memory BM25 index over integer doc numbers. Removal tombstones a doc (its
// postings are skipped and document frequencies corrected at once); postings are
// compacted when tombstones pile up. Pure data structure: no I/O.

export interface Bm25Hit {
  doc: number;
  score: number;
  /** distinct query terms the doc contains */
  matched: number;
}

export interface Bm25Params {
  k1: number;
  b: number;
}

interface Postings {
  docs: number[];
  tfs: number[];
}

// Score accumulators reused across queries (one query at a time per process).
let scoreBuf = new Float64Array(1024);
let matchBuf = new Uint16Array(1024);

export class Bm25Index {
  private postings = new Map<string, Postings>();
  private df = new Map<string, number>();
  /** length per doc; -1 = removed or never added */
  private lengths: number[] = [];
  /** distinct terms per doc, to correct df on removal */
  private terms: (string[] | undefined)[] = [];
  private live = 0;
  private totalLength = 0;
  private tombstones = 0;
  private postingCount = 0;

  constructor(private readonly params: Bm25Params = { k1: 1.2, b: 0.75 }) {}

  get size(): number {
    return this.live;
  }

  add(doc: number, tokens: readonly string[]): void {
    if (this.lengths[doc] !== undefined && this.lengths[doc] >= 0) this.remove(doc);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, n] of tf) {
      let p = this.postings.get(term);
      if (!p) this.postings.set(term, (p = { docs: [], tfs: [] }));
      p.docs.push(doc);
      p.tfs.push(n);
      this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
    this.postingCount += tf.size;
    this.lengths[doc] = tokens.length;
    this.terms[doc] = [...tf.keys()];
    this.live += 1;
    this.totalLength += tokens.length;
  }

  remove(doc: number): void {
    const len = this.lengths[doc];
    if (len === undefined || len < 0) return;
    for (const term of this.terms[doc] ?? []) {
      const n = (this.df.get(term) ?? 1) - 1;
      if (n > 0) this.df.set(term, n);
      else this.df.delete(term);
    }
    this.tombstones += this.terms[doc]?.length ?? 0;
    this.lengths[doc] = -1;
    this.terms[doc] = undefined;
    this.live -= 1;
    this.totalLength -= len;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.postingCount) this.compact();
  }

  has(doc: number): boolean {
    return (this.lengths[doc] ?? -1) >= 0;
  }

  private compact(): void {
    for (const [term, p] of this.postings) {
      const docs: number[] = [];
      const tfs: number[] = [];
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i] as number;
        if ((this.lengths[d] ?? -1) >= 0) {
          docs.push(d);
          tfs.push(p.tfs[i] as number);
        }
      }
      if (docs.length) this.postings.set(term, { docs, tfs });
      else this.postings.delete(term);
    }
    this.postingCount -= this.tombstones;
    this.tombstones = 0;
  }

  /**
   * Score every doc sharing a term with the query. Complete matches (all distinct
   * query terms present) rank before partial ones; BM25 orders within each group.
   */
  search(queryTokens: readonly string[], limit: number, accept?: (doc: number) => boolean): { hits: Bm25Hit[]; terms: number } {
    const qtf = new Map<string, number>();
    for (const t of queryTokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const distinct = qtf.size;
    if (distinct === 0 || this.live === 0) return { hits: [], terms: distinct };
    if (scoreBuf.length < this.lengths.length) {
      scoreBuf = new Float64Array(this.lengths.length * 2);
      matchBuf = new Uint16Array(this.lengths.length * 2);
    }
    const { k1, b } = this.params;
    const avg = this.totalLength / this.live || 1;
    const touched: number[] = [];
    for (const [term, q] of qtf) {
      const p = this.postings.get(term);
      const df = this.df.get(term);
      if (!p || !df) continue;
      const idf = Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i] as number;
        const len = this.lengths[d] as number;
        if (len < 0) continue;
        const tf = p.tfs[i] as number;
        if (matchBuf[d] === 0) touched.push(d);
        matchBuf[d] = (matchBuf[d] as number) + 1;
        scoreBuf[d] = (scoreBuf[d] as number) + q * idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg)));
      }
    }
    const hits: Bm25Hit[] = [];
    for (const d of touched) {
      if (!accept || accept(d)) hits.push({ doc: d, score: scoreBuf[d] as number, matched: matchBuf[d] as number });
      scoreBuf[d] = 0;
      matchBuf[d] = 0;
    }
    hits.sort((x, y) => Number(y.matched === distinct) - Number(x.matched === distinct) || y.score - x.score || x.doc - y.doc);
    return { hits: hits.length > limit ? hits.slice(0, limit) : hits, terms: distinct };
  }
}
