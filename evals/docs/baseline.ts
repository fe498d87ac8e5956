// The plain baseline beside Kioku in `npm run eval:docs` (issue 30): the docs cut into chunks
// of at most 1,500 characters at paragraph boundaries, ranked by BM25 over Kioku's own keyword
// tokenizer (src/text tokenize: Latin words with light stemming, CJK character bigrams, stop
// words dropped, identifiers' words beside them; the question read with queryTokens, as Kioku's
// keyword lane reads it), the top 1, 2 or 3 chunks handed over as they are. Pure functions.
import { queryTokens, tokenize } from '../../src/text/index.js';

export const CHUNK_CHARS = 1_500;

export interface Chunk {
  /** path relative to the corpus docs dir */
  file: string;
  text: string;
}

/**
 * A file's text in chunks of at most `max` characters: paragraphs (blank-line separated) are
 * packed whole while they fit; a paragraph longer than `max` is cut at line ends, and a line
 * longer than `max` at `max` characters.
 */
export function chunkMarkdown(markdown: string, max = CHUNK_CHARS): string[] {
  const pieces: string[] = [];
  for (const para of markdown.split(/\n[ \t]*\n/)) {
    if (para.trim() === '') continue;
    if (para.length <= max) {
      pieces.push(para);
      continue;
    }
    let cur = '';
    for (const line of para.split('\n')) {
      for (let i = 0; i < Math.max(1, line.length); i += max) {
        const part = line.slice(i, i + max);
        if (cur && cur.length + 1 + part.length > max) {
          pieces.push(cur);
          cur = '';
        }
        cur = cur ? `${cur}\n${part}` : part;
      }
    }
    if (cur) pieces.push(cur);
  }
  const chunks: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (cur && cur.length + 2 + p.length > max) {
      chunks.push(cur);
      cur = '';
    }
    cur = cur ? `${cur}\n\n${p}` : p;
  }
  if (cur) chunks.push(cur);
  return chunks;
}

/** Okapi BM25 (k1 1.2, b 0.75) over a fixed set of chunks. */
export class Bm25 {
  private readonly tf: Map<string, number>[];
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avg: number;

  constructor(readonly chunks: readonly Chunk[]) {
    this.tf = chunks.map((c) => {
      const m = new Map<string, number>();
      for (const t of tokenize(c.text)) m.set(t, (m.get(t) ?? 0) + 1);
      for (const t of m.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return m;
    });
    this.lengths = this.tf.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    this.avg = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, chunks.length);
  }

  /** The best `k` chunks for the query, best first (ties: corpus order). */
  search(query: string, k: number): Chunk[] {
    const n = this.chunks.length;
    const terms = [...new Set(queryTokens(query))];
    const scored: { i: number; s: number }[] = [];
    for (let i = 0; i < n; i++) {
      const tf = this.tf[i] as Map<string, number>;
      let s = 0;
      for (const t of terms) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * (this.lengths[i] as number)) / this.avg));
      }
      if (s > 0) scored.push({ i, s });
    }
    scored.sort((a, b) => b.s - a.s || a.i - b.i);
    return scored.slice(0, k).map(({ i }) => this.chunks[i] as Chunk);
  }
}

/**
 * The comparison of an answer string with handed-over text: whitespace collapsed, inline
 * markdown markers (backticks, `**`) removed on both sides, case kept (answers are code,
 * option names and values, where case matters).
 */
export function normaliseForAnswer(text: string): string {
  return text.replace(/\*\*|`/g, '').replace(/\s+/g, ' ').trim();
}

export function containsAnswer(text: string, answer: string): boolean {
  return normaliseForAnswer(text).includes(normaliseForAnswer(answer));
}
