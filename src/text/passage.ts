// The passage of a long section that matches a query. A section longer than one excerpt is
// cut into consecutive passages at block boundaries (each at most one excerpt long, blocks never
// cut unless one alone is longer); each passage is scored by the query's keyword terms (CJK as
// bigrams) other than the heading's, weighted by how few passages hold each term, and the best one
// is delivered with the section's first line (its heading) in front as context. Ties go to the
// earlier passage.
import { markdownBlocks } from './blocks.js';
import { excerpt } from './excerpt.js';
import { queryTokens, tokenize } from './tokenize.js';

export interface Passage {
  text: string;
  /** the text is not the whole section */
  excerpt: boolean;
  /** which passage (1-based) of how many, and its characters in the section (end exclusive); absent when the section fits whole */
  passage?: { index: number; count: number; start: number; end: number };
}

/** Consecutive passages of at most `max` characters, cut between blocks (a block longer than `max` is one passage). */
export function passages(text: string, max: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let cur: { start: number; end: number } | undefined;
  for (const b of markdownBlocks(text)) {
    if (cur && b.end - cur.start <= max) cur.end = b.end;
    else {
      if (cur) out.push(cur);
      cur = { start: b.start, end: b.end };
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The best passage of `text` for `query` within `max` characters (the first when no term matches). */
export function passageFor(text: string, max: number, query: string): Passage {
  if (text.length <= max) return { text, excerpt: false };
  const heading = firstLine(text);
  // later passages carry the heading in front: leave room for it
  const parts = passages(text, Math.max(max - heading.length - 2, Math.floor(max / 2)));
  // the heading goes in front of every passage: its words tell no passage from another
  const inHeading = new Set(tokenize(heading));
  const terms = [...new Set(queryTokens(query))].filter((t) => !inHeading.has(t));
  let best = 0;
  if (terms.length && parts.length > 1) {
    const bags = parts.map((p) => counts(tokenize(text.slice(p.start, p.end))));
    const df = new Map(terms.map((t) => [t, bags.filter((b) => b.has(t)).length]));
    let bestScore = 0;
    bags.forEach((bag, i) => {
      let score = 0;
      for (const t of terms) {
        const tf = bag.get(t) ?? 0;
        if (tf > 0) score += Math.log(1 + parts.length / (df.get(t) as number)) * (1 + Math.log(tf));
      }
      if (score > bestScore + 1e-9) [best, bestScore] = [i, score];
    });
  }
  const p = parts[best] as { start: number; end: number };
  const own = text.slice(p.start, p.end);
  const withHeading = best > 0 && heading && !own.startsWith(heading) ? `${heading}\n\n${own}` : own;
  const cut = excerpt(withHeading, max);
  return { text: cut.text, excerpt: true, passage: { index: best + 1, count: parts.length, start: p.start, end: p.end } };
}

/** `passage 3/7 (chars 4120–6010)`: what `why` says of a delivered passage. */
export function describePassage(p: NonNullable<Passage['passage']>): string {
  return `passage ${p.index}/${p.count} (chars ${p.start}–${p.end})`;
}

function firstLine(text: string): string {
  const line = text.slice(0, Math.max(0, text.indexOf('\n'))).trim() || '';
  return line.length <= 200 ? line : '';
}

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
