// section_window (issue 30): a delivered documentation section shorter than one excerpt is
// handed over with the sections beside it on the same page, nearer first, while the whole still
// fits the excerpt. Pages written as many short sections (the Chinese Vue docs: "发布周期" 188
// characters beside "语义化版本控制的特殊情况" 657) keep the answer in the section next to the one
// that matched the question's words; delivering it alone hands the agent half a page's point.
// A neighbour is added only when it holds a word of the question that the delivered section's
// title (its page and heading path) does not: the page's own name is in every section of it.
// The turn window (stages/deliver.ts) does the same for conversations. Items, verdicts and the
// rules that chose them are unchanged: only a delivered item's text grows, up to one excerpt.
import type { DeliveredItem } from './delivery.js';
import { matchedTerms } from './terms.js';

/** A section of a page, in page order, as the window reads it. */
export interface PageSection {
  key: string;
  text: string;
  /** its version (the records' fingerprint), recorded with the window so an edit of it is suggested again */
  fingerprint?: string | undefined;
  /** a window never reaches it (a metadata section, other readers, one the asking session can still see) */
  stop?: boolean;
}

/**
 * Each delivered wiki section, whole and shorter than `maxChars`, with up to `radius` sections
 * before and after it on its page (`pageOf`: the page's current sections in order), alternating before and after, nearer first. A side stops
 * at a section delivered itself or held by an earlier item's window, one marked `stop`, one that no longer fits, or one holding none of the question's
 * terms beyond the item's title (a window is contiguous). `window` names the sections the text
 * holds, in page order. An item with no neighbour added keeps its text.
 */
export function withSectionWindows(
  items: readonly DeliveredItem[],
  pageOf: (key: string) => readonly PageSection[] | undefined,
  maxChars: number,
  radius: number,
  /** the question's keyword terms (turnQueryTerms) */
  queryTerms: ReadonlySet<string>,
): DeliveredItem[] {
  if (radius <= 0 || queryTerms.size === 0) return [...items];
  // the delivered items' keys, then each window's sections as it is made: a later item's window stops
  // before a section an earlier one holds (two sections of one page each took the one between them)
  const taken = new Set(items.map((i) => i.key));
  return items.map((it) => {
    if (it.layer !== 'wiki' || it.excerpt || it.window || it.text.length >= maxChars) return it;
    const inTitle = matchedTerms(queryTerms, it.title);
    const tells = (text: string): boolean => [...matchedTerms(queryTerms, text)].some((t) => !inTitle.has(t));
    const page = pageOf(it.key) ?? [];
    const at = page.findIndex((s) => s.key === it.key);
    if (at < 0) return it;
    let length = it.text.length;
    let lo = at;
    let hi = at;
    const open = { before: true, after: true };
    const take = (i: number, side: 'before' | 'after'): boolean => {
      const s = page[i];
      if (!open[side] || !s || s.stop || taken.has(s.key) || length + 2 + s.text.length > maxChars) return (open[side] = false);
      if (!tells(s.text)) return (open[side] = false);
      length += 2 + s.text.length;
      return true;
    };
    for (let step = 0; step < radius; step++) {
      if (take(lo - 1, 'before')) lo--;
      if (take(hi + 1, 'after')) hi++;
    }
    if (lo === at && hi === at) return it;
    const held = page.slice(lo, hi + 1).map((s) => (s.key === it.key ? { key: s.key, text: it.text, fingerprint: it.fingerprint } : s));
    for (const s of held) taken.add(s.key);
    return { ...it, text: held.map((s) => s.text).join('\n\n'), window: held.map((s) => s.key), window_fingerprints: held.map((s) => s.fingerprint ?? null) };
  });
}
