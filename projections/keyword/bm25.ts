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
  private live = 0;
  private totalLength = 0;
  private tombstones = 0;
  private postingCount = 0;

  constructor(private readonly params: Bm25Params = { k1: 1.2, b: 0.75 }) {}

  get size(): number {
    return this.live;
  }

  /** Index a doc number not in the index (remove it first to re-index). */
  add(doc: number, tokens: readonly string[]): void {
    if (this.has(doc)) throw new Error(`bm25: doc ${doc} is indexed already; remove it first`);
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
    this.live += 1;
    this.totalLength += tokens.length;
  }

  /**
   * Tombstone a doc. `tokens` are the ones it was added with (the caller keeps them; the index does
   * not hold a second copy per doc), to correct the document frequencies.
   */
  remove(doc: number, tokens: readonly string[]): void {
    const len = this.lengths[doc];
    if (len === undefined || len < 0) return;
    const distinct = new Set(tokens);
    for (const term of distinct) {
      const n = (this.df.get(term) ?? 1) - 1;
      if (n > 0) this.df.set(term, n);
      else this.df.delete(term);
    }
    this.tombstones += distinct.size;
    this.lengths[doc] = -1;
    this.live -= 1;
    this.totalLength -= len;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.postingCount) this.compact();
  }

  /** BM25's inverse document frequency of a term (an unseen term weighs as a term in no document). */
  idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
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
   * `gate` admits docs by group (namespace × layer) with typed-array lookups — no
   * closure per doc — and counts the matching docs it kept out, per group.
   */
  search(queryTokens: readonly string[], limit: number, gate?: Bm25Gate): { hits: Bm25Hit[]; terms: number } {
    const qtf = new Map<string, number>();
    for (const t of queryTokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const distinct = qtf.size;
    if (distinct === 0 || this.live === 0 || limit <= 0) return { hits: [], terms: distinct };
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
    // bounded top-k: a min-heap of the best `limit` admitted docs
    const heap = new TopK(limit, distinct);
    for (const d of touched) {
      const score = scoreBuf[d] as number;
      const matched = matchBuf[d] as number;
      scoreBuf[d] = 0;
      matchBuf[d] = 0;
      if (gate) {
        const g = gate.groupOf[d] as number;
        if (!gate.accept[g]) {
          if (gate.rejected) gate.rejected[g] = (gate.rejected[g] ?? 0) + 1;
          continue;
        }
      }
      heap.offer(d, score, matched);
    }
    return { hits: heap.sorted(), terms: distinct };
  }
}

export interface Bm25Gate {
  /** group of each doc (e.g. namespace × layer) */
  groupOf: ArrayLike<number>;
  /** 1 = admit docs of this group */
  accept: ArrayLike<number>;
  /** filled with counts of matching docs kept out, per group */
  rejected?: number[];
}

/** Keeps the best k hits: complete matches first, then score, then doc number (deterministic). */
class TopK {
  private readonly items: Bm25Hit[] = [];
  constructor(
    private readonly k: number,
    private readonly distinct: number,
  ) {}

  /** a ranks before b */
  private better(a: Bm25Hit, b: Bm25Hit): boolean {
    const ca = a.matched === this.distinct;
    const cb = b.matched === this.distinct;
    if (ca !== cb) return ca;
    if (a.score !== b.score) return a.score > b.score;
    return a.doc < b.doc;
  }

  offer(doc: number, score: number, matched: number): void {
    const hit = { doc, score, matched };
    const h = this.items;
    if (h.length < this.k) {
      h.push(hit);
      this.up(h.length - 1);
    } else if (this.better(hit, h[0] as Bm25Hit)) {
      h[0] = hit;
      this.down(0);
    }
  }

  // heap root = the worst kept hit
  private up(i: number): void {
    const h = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(h[p] as Bm25Hit, h[i] as Bm25Hit)) break;
      [h[p], h[i]] = [h[i] as Bm25Hit, h[p] as Bm25Hit];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < h.length && this.better(h[w] as Bm25Hit, h[l] as Bm25Hit)) w = l;
      if (r < h.length && this.better(h[w] as Bm25Hit, h[r] as Bm25Hit)) w = r;
      if (w === i) return;
      [h[w], h[i]] = [h[i] as Bm25Hit, h[w] as Bm25Hit];
      i = w;
    }
  }

  sorted(): Bm25Hit[] {
    return [...this.items].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
  }
}
