// An in-memory BM25 index over integer doc and term numbers, held in typed arrays: one
// growable pair of arrays (docs, term frequencies) per term, and an arena with each doc's
// distinct terms and their frequencies (what removal and snapshots need). Removal tombstones
// a doc (its postings are skipped and document frequencies corrected at once); postings and
// the arena are compacted in place when tombstones pile up. Pure data structure: no I/O.

export interface Bm25Hit {
  doc: number;
  score: number;
  /** distinct query terms the doc contains */
  matched: number;
}

/** One subset's BM25 statistics (a namespace's docs): live docs, their total length, document frequency per term id. */
export interface Bm25Stats {
  live: number;
  length: number;
  df: Int32Array;
}

export interface Bm25Params {
  k1: number;
  b: number;
}

/** A doc's distinct terms (ascending ids) with their frequencies, and its length in tokens. */
export interface DocTerms {
  ids: Int32Array;
  tfs: Uint16Array;
  length: number;
}

/** Each doc's distinct terms, flattened in doc order: doc i owns `counts[i]` entries after those of the docs before it; length -1 = not in the index. */
export interface DocColumns {
  lengths: Int32Array;
  counts: Int32Array;
  ids: Int32Array;
  tfs: Uint16Array;
}

/**
 * The terms `columns` use, their ids renumbered in order (in place: the columns are a snapshot's
 * fresh copies). The vocabulary never forgets a word while it runs; its snapshot does: the words of
 * a forgotten or purged item leave the file (issue 33).
 */
export function keepUsedTerms(vocabulary: Vocabulary, columns: readonly DocColumns[]): string[] {
  const used = new Uint8Array(vocabulary.size);
  for (const c of columns) for (const id of c.ids) used[id] = 1;
  const next = new Int32Array(vocabulary.size);
  const terms: string[] = [];
  for (let id = 0; id < used.length; id++) {
    if (!used[id]) continue;
    next[id] = terms.length;
    terms.push(vocabulary.term(id));
  }
  for (const c of columns) for (let i = 0; i < c.ids.length; i++) c.ids[i] = next[c.ids[i] as number] as number;
  return terms;
}

/** Term strings ↔ small integers, shared by the indexes of one projection. Ids are never reused. */
export class Vocabulary {
  private readonly ids = new Map<string, number>();
  private readonly list: string[] = [];

  constructor(terms: readonly string[] = []) {
    for (const t of terms) this.intern(t);
  }

  get size(): number {
    return this.list.length;
  }

  id(term: string): number | undefined {
    return this.ids.get(term);
  }

  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.list.length;
      this.ids.set(term, id);
      this.list.push(term);
    }
    return id;
  }

  term(id: number): string {
    return this.list[id] as string;
  }

  terms(): readonly string[] {
    return this.list;
  }
}

// Score accumulators reused across queries (one query at a time per process).
let scoreBuf = new Float64Array(1024);
let matchBuf = new Uint16Array(1024);

const MAX_TF = 0xffff;

function grownInt32(a: Int32Array<ArrayBuffer>, need: number, fill = 0): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  if (fill !== 0) b.fill(fill, a.length);
  b.set(a);
  return b;
}

function grownUint16(a: Uint16Array<ArrayBuffer>, need: number): Uint16Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Uint16Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

export class Bm25Index {
  // per term id
  private postDocs: (Int32Array | undefined)[] = [];
  private postTfs: (Uint16Array | undefined)[] = [];
  private postLen = new Int32Array(64);
  private df = new Int32Array(64);
  // per doc: where its distinct terms start in the arena, how many, and its length (-1 = removed or never added)
  private docStart = new Int32Array(64);
  private docDistinct = new Int32Array(64);
  private lengths = new Int32Array(64).fill(-1);
  private docCount = 0;
  private arenaIds = new Int32Array(1024);
  private arenaTfs = new Uint16Array(1024);
  private arenaUsed = 0;
  private arenaDead = 0;
  private live = 0;
  private totalLength = 0;
  private tombstones = 0;
  private postingCount = 0;

  constructor(private readonly params: Bm25Params = { k1: 1.2, b: 0.75 }) {}

  get size(): number {
    return this.live;
  }

  /** Index a doc number not in the index (remove it first to re-index), from its tokens' term ids. */
  add(doc: number, termIds: ArrayLike<number>): void {
    const sorted = Int32Array.from(termIds).sort();
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct += 1;
    const ids = new Int32Array(distinct);
    const tfs = new Uint16Array(distinct);
    let j = -1;
    for (let i = 0; i < sorted.length; i++) {
      if (i === 0 || sorted[i] !== sorted[i - 1]) ids[++j] = sorted[i] as number;
      tfs[j] = Math.min(MAX_TF, (tfs[j] as number) + 1);
    }
    this.addTerms(doc, { ids, tfs, length: sorted.length });
  }

  /** Index a doc from its distinct terms (as termsOf returns them; loading a snapshot). */
  addTerms(doc: number, terms: DocTerms): void {
    if (this.has(doc)) throw new Error(`bm25: doc ${doc} is indexed already; remove it first`);
    const { ids, tfs, length } = terms;
    const n = ids.length;
    if (doc >= this.lengths.length) {
      this.lengths = grownInt32(this.lengths, doc + 1, -1);
      this.docStart = grownInt32(this.docStart, doc + 1);
      this.docDistinct = grownInt32(this.docDistinct, doc + 1);
    }
    this.docCount = Math.max(this.docCount, doc + 1);
    this.arenaIds = grownInt32(this.arenaIds, this.arenaUsed + n);
    this.arenaTfs = grownUint16(this.arenaTfs, this.arenaUsed + n);
    this.arenaIds.set(ids, this.arenaUsed);
    this.arenaTfs.set(tfs, this.arenaUsed);
    this.docStart[doc] = this.arenaUsed;
    this.docDistinct[doc] = n;
    this.arenaUsed += n;
    for (let i = 0; i < n; i++) this.post(ids[i] as number, doc, tfs[i] as number);
    this.postingCount += n;
    this.lengths[doc] = length;
    this.live += 1;
    this.totalLength += length;
  }

  private post(term: number, doc: number, tf: number): void {
    if (term >= this.postLen.length) {
      this.postLen = grownInt32(this.postLen, term + 1);
      this.df = grownInt32(this.df, term + 1);
    }
    const len = this.postLen[term] as number;
    let docs = this.postDocs[term];
    let tfs = this.postTfs[term] as Uint16Array;
    if (!docs || len === docs.length) {
      const cap = Math.max(4, len * 2);
      const d2 = new Int32Array(cap);
      const t2 = new Uint16Array(cap);
      if (docs) {
        d2.set(docs);
        t2.set(tfs);
      }
      this.postDocs[term] = docs = d2;
      this.postTfs[term] = tfs = t2;
    }
    docs[len] = doc;
    tfs[len] = tf;
    this.postLen[term] = len + 1;
    this.df[term] = (this.df[term] as number) + 1;
  }

  /**
   * The given docs' terms as columns (a snapshot), in the order given; `fromColumns` rebuilds an
   * index from them in two passes over typed arrays — no per-doc objects.
   */
  columns(docs: readonly number[]): DocColumns {
    const lengths = new Int32Array(docs.length).fill(-1);
    const counts = new Int32Array(docs.length);
    let total = 0;
    docs.forEach((d, i) => {
      if (!this.has(d)) return;
      lengths[i] = this.lengths[d] as number;
      counts[i] = this.docDistinct[d] as number;
      total += counts[i] as number;
    });
    const ids = new Int32Array(total);
    const tfs = new Uint16Array(total);
    let at = 0;
    docs.forEach((d, i) => {
      const n = counts[i] as number;
      if (n === 0) return;
      const start = this.docStart[d] as number;
      ids.set(this.arenaIds.subarray(start, start + n), at);
      tfs.set(this.arenaTfs.subarray(start, start + n), at);
      at += n;
    });
    return { lengths, counts, ids, tfs };
  }

  /** An index whose doc i is column row i (docs with length -1 left out). Takes ownership of the columns' arrays. */
  static fromColumns(c: DocColumns, vocabularySize: number, params?: Bm25Params): Bm25Index {
    const index = new Bm25Index(params);
    const docs = c.lengths.length;
    // the columns are this index's own from here on (unpacked copies; no second copy made)
    index.lengths = c.lengths.length ? (c.lengths as Int32Array<ArrayBuffer>) : new Int32Array(1).fill(-1);
    index.docDistinct = c.counts.length ? (c.counts as Int32Array<ArrayBuffer>) : new Int32Array(1);
    index.docStart = new Int32Array(Math.max(docs, 1));
    index.docCount = docs;
    index.arenaIds = c.ids.length ? (c.ids as Int32Array<ArrayBuffer>) : new Int32Array(1);
    index.arenaTfs = c.tfs.length ? (c.tfs as Uint16Array<ArrayBuffer>) : new Uint16Array(1);
    index.arenaUsed = c.ids.length;
    const terms = Math.max(vocabularySize, 1);
    index.postLen = new Int32Array(terms);
    index.df = new Int32Array(terms);
    let at = 0;
    for (let d = 0; d < docs; d++) {
      index.docStart[d] = at;
      const n = c.counts[d] as number;
      if ((c.lengths[d] as number) >= 0) {
        index.live += 1;
        index.totalLength += c.lengths[d] as number;
        for (let k = at; k < at + n; k++) {
          const t = c.ids[k] as number;
          index.df[t] = (index.df[t] as number) + 1;
        }
        index.postingCount += n;
      }
      at += n;
    }
    // every term's postings are views into two shared arrays (a separate pair per term cost a
    // buffer each at load); a term that grows later moves to its own pair (see post)
    const allDocs = new Int32Array(index.postingCount);
    const allTfs = new Uint16Array(index.postingCount);
    // where each term's postings start in the shared arrays; the scatter below writes through
    // it (not through each term's view: a million records make 25M postings)
    const next = new Int32Array(terms);
    for (let t = 0, offset = 0; t < terms; t++) {
      const n = index.df[t] as number;
      next[t] = offset;
      if (n > 0) {
        index.postDocs[t] = allDocs.subarray(offset, offset + n);
        index.postTfs[t] = allTfs.subarray(offset, offset + n);
        index.postLen[t] = n;
        offset += n;
      }
    }
    const ids = c.ids;
    const tfs = c.tfs;
    for (let d = 0; d < docs; d++) {
      if ((c.lengths[d] as number) < 0) continue;
      const start = index.docStart[d] as number;
      const end = start + (c.counts[d] as number);
      for (let k = start; k < end; k++) {
        const at = next[ids[k] as number] as number;
        allDocs[at] = d;
        allTfs[at] = tfs[k] as number;
        next[ids[k] as number] = at + 1;
      }
    }
    return index;
  }

  /** Add a doc to (+1) or take it from (-1) a subset's statistics: its length and each distinct term's document frequency. */
  countInto(doc: number, stats: Bm25Stats, sign: 1 | -1): void {
    if (!this.has(doc)) return;
    stats.live += sign;
    stats.length += sign * (this.lengths[doc] as number);
    this.countTerms(doc, stats.df, sign);
  }

  /** Add `sign` to `counts[term]` for each distinct term of a doc (per-namespace document frequencies; no views made). */
  countTerms(doc: number, counts: Int32Array, sign: number): void {
    if (!this.has(doc)) return;
    const ids = this.arenaIds;
    const start = this.docStart[doc] as number;
    const end = start + (this.docDistinct[doc] as number);
    for (let k = start; k < end; k++) counts[ids[k] as number] = (counts[ids[k] as number] as number) + sign;
  }

  /** A doc's distinct terms (views into the index: read them before the next change), or undefined. */
  termsOf(doc: number): DocTerms | undefined {
    if (!this.has(doc)) return undefined;
    const start = this.docStart[doc] as number;
    const end = start + (this.docDistinct[doc] as number);
    return { ids: this.arenaIds.subarray(start, end), tfs: this.arenaTfs.subarray(start, end), length: this.lengths[doc] as number };
  }

  /** Tombstone a doc: its postings are skipped from now on and the document frequencies corrected. */
  remove(doc: number): void {
    const terms = this.termsOf(doc);
    if (!terms) return;
    for (const id of terms.ids) this.df[id] = (this.df[id] as number) - 1;
    this.tombstones += terms.ids.length;
    this.arenaDead += terms.ids.length;
    this.lengths[doc] = -1;
    this.live -= 1;
    this.totalLength -= terms.length;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.postingCount) this.compactPostings();
    if (this.arenaDead > 65_536 && this.arenaDead * 2 > this.arenaUsed) this.compactArena();
  }

  /** BM25's inverse document frequency of a term id (an unseen term weighs as a term in no document). */
  idf(term: number | undefined): number {
    const df = term === undefined ? 0 : (this.df[term] ?? 0);
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  has(doc: number): boolean {
    return doc < this.docCount && (this.lengths[doc] as number) >= 0;
  }

  private compactPostings(): void {
    for (let term = 0; term < this.postDocs.length; term++) {
      const docs = this.postDocs[term];
      if (!docs) continue;
      const tfs = this.postTfs[term] as Uint16Array;
      const len = this.postLen[term] as number;
      let kept = 0;
      for (let i = 0; i < len; i++) {
        const d = docs[i] as number;
        if ((this.lengths[d] as number) >= 0) {
          docs[kept] = d;
          tfs[kept] = tfs[i] as number;
          kept += 1;
        }
      }
      this.postLen[term] = kept;
      if (kept === 0) {
        this.postDocs[term] = undefined;
        this.postTfs[term] = undefined;
      } else if (kept * 4 < docs.length) {
        this.postDocs[term] = docs.slice(0, kept * 2);
        this.postTfs[term] = tfs.slice(0, kept * 2);
      }
    }
    this.postingCount -= this.tombstones;
    this.tombstones = 0;
  }

  private compactArena(): void {
    let used = 0;
    for (let doc = 0; doc < this.docCount; doc++) {
      if ((this.lengths[doc] as number) < 0) continue;
      const start = this.docStart[doc] as number;
      const n = this.docDistinct[doc] as number;
      this.arenaIds.copyWithin(used, start, start + n);
      this.arenaTfs.copyWithin(used, start, start + n);
      this.docStart[doc] = used;
      used += n;
    }
    this.arenaUsed = used;
    this.arenaDead = 0;
  }

  /**
   * Score every doc sharing a term with the query. Complete matches (all distinct
   * query terms present) rank before partial ones; BM25 orders within each group.
   * `gate` admits docs by group (namespace × layer) with typed-array lookups — no
   * closure per doc — and counts the matching docs it kept out, per group.
   * Query terms the vocabulary does not know match nothing but still count as terms.
   * `stats`, when given, are the searched subset's own (one namespace's): document frequencies,
   * doc count and average length then come from it alone, so its scores never move with docs
   * outside it (another namespace's writes would otherwise show in the scores).
   */
  search(queryTokens: readonly string[], vocabulary: Vocabulary, limit: number, gate?: Bm25Gate, stats?: Bm25Stats): { hits: Bm25Hit[]; terms: number } {
    const qtf = new Map<string, number>();
    for (const t of queryTokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const distinct = qtf.size;
    const live = stats ? stats.live : this.live;
    if (distinct === 0 || live <= 0 || limit <= 0) return { hits: [], terms: distinct };
    if (scoreBuf.length < this.docCount) {
      scoreBuf = new Float64Array(this.docCount * 2);
      matchBuf = new Uint16Array(this.docCount * 2);
    }
    const { k1, b } = this.params;
    const avg = (stats ? stats.length : this.totalLength) / live || 1;
    const dfs = stats ? stats.df : this.df;
    const touched: number[] = [];
    // locals for the hot loop (typed-array fields read through `this` on every posting were ~14% slower)
    const lengths = this.lengths;
    const scores = scoreBuf;
    const matches = matchBuf;
    for (const [token, q] of qtf) {
      const term = vocabulary.id(token);
      if (term === undefined) continue;
      const docs = this.postDocs[term];
      const df = dfs[term] ?? 0;
      if (!docs || !df) continue;
      const tfs = this.postTfs[term] as Uint16Array;
      const len = this.postLen[term] as number;
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
      const weight = q * idf;
      for (let i = 0; i < len; i++) {
        const d = docs[i] as number;
        const dl = lengths[d] as number;
        if (dl < 0) continue;
        const tf = tfs[i] as number;
        const m = matches[d] as number;
        if (m === 0) touched.push(d);
        matches[d] = m + 1;
        scores[d] = (scores[d] as number) + weight * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avg)));
      }
    }
    if (gate?.skipDocs) leaveOut(gate, gate.skipDocs, matches, scores);
    // bounded top-k: a min-heap of the best `limit` admitted docs
    const heap = new TopK(limit, distinct);
    for (const d of touched) {
      const score = scoreBuf[d] as number;
      const matched = matchBuf[d] as number;
      scoreBuf[d] = 0;
      matchBuf[d] = 0;
      if (matched === 0) continue; // left out by leaveOut (every other touched doc matched a term)
      if (gate) {
        const g = gate.groupOf[d] as number;
        if (!gate.accept[g]) {
          if (gate.rejected) gate.rejected[g] = (gate.rejected[g] ?? 0) + 1;
          continue;
        }
        // left out by the caller (a session's own traces) before they can take a top-k slot
        if (gate.skip?.(d)) {
          gate.skipped = (gate.skipped ?? 0) + 1;
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
  /** admitted docs the caller leaves out (not an ACL matter: counted apart, in `skipped`) */
  skip?: (doc: number) => boolean;
  /** the same given as their docs: taken out once before the top-k instead of a call per matching doc */
  skipDocs?: readonly number[];
  skipped?: number;
}

/**
 * Take `docs` out of a search's matches before the top-k, counting in `gate.skipped` those that
 * matched and that the gate admits (a doc it refuses is counted in `rejected` as before): what a
 * `skip` closure called on every matching doc decides, with a lookup per left-out doc instead.
 */
function leaveOut(gate: Bm25Gate, docs: readonly number[], matches: Uint16Array, scores: Float64Array): void {
  for (const d of docs) {
    if (d >= matches.length || matches[d] === 0 || !gate.accept[gate.groupOf[d] as number]) continue;
    matches[d] = 0;
    scores[d] = 0;
    gate.skipped = (gate.skipped ?? 0) + 1;
  }
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
