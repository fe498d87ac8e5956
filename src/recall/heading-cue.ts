// The heading cue (issue 30): a documentation section whose own heading the question names in
// full is about what was asked. Reference pages hold one option per section under its name
// ("pool", "coverage.provider", "hookTimeout"): a question naming the option ("which pool runs
// my tests if I don't configure one?") shares that one word with them, while long guide pages
// mention it many times and win BM25. Only wiki and card sections take part (their headings are
// written by a person to say what the section is about); memories and turns have none.
import type { RecordEntry } from '../knowledge/item.js';
import { isCjkChar, isMainlyCjk } from '../text/script.js';
import { queryTokens, tokenize } from '../text/tokenize.js';

/**
 * Porter2 (englishStem), not the keyword lanes' light stem: "isolation" names the option heading
 * `isolate` (Vitest dev vt-007; in the lanes themselves Porter2 cost delivered answers, evals/README)
 */
const CUE_STEM = { stem: 'english' } as const;

/** The section's own heading: its heading, or for a page's opening section the page title's first part ("pool | Config" -> "pool"). */
export function ownHeading(entry: Pick<RecordEntry, 'layer' | 'heading' | 'title'>): string {
  if (entry.layer !== 'wiki' && entry.layer !== 'card') return '';
  if (entry.heading) return entry.heading;
  return entry.title.split(/\s+[|›]\s+/u)[0] ?? '';
}

/**
 * Every word of `heading` is among the question's terms: a word counts when the question holds
 * it whole, or holds all of an identifier's parts ("hookTimeout" by "hook" and "timeout";
 * "coverage.provider" by "coverage" and "provider"). A heading with no word is never named, nor
 * one written in CJK: its words are character bigrams, and a short heading's two or three of them
 * turn up in many a question ("文本插值" in "插值会把 HTML 当成纯文本显示": Vue dev lost an answer).
 */
export function headingNamed(heading: string, terms: ReadonlySet<string>): boolean {
  if (heading === '' || [...heading].some(isCjkChar)) return false;
  const words = heading.split(/[\s.]+/u).filter((w) => queryTokens(w, CUE_STEM).length > 0);
  if (words.length === 0) return false;
  return words.every((w) => {
    const [whole, ...parts] = tokenize(w, CUE_STEM);
    if (whole !== undefined && terms.has(whole)) return true;
    return parts.length > 0 && parts.every((p) => terms.has(p));
  });
}

/**
 * The question's terms the cue compares headings with, or undefined when the cue does not apply:
 * a question written mainly in CJK names its subject in Latin ("Teleport", "TransitionGroup") and
 * asks its point in words no API heading holds, so a reference section named by the subject alone
 * pushed the section answering the point below it (Vue dev: two answers lost at weight 0.4).
 */
export function headingCueTerms(asked: string): ReadonlySet<string> | undefined {
  return isMainlyCjk(asked) ? undefined : new Set(queryTokens(asked, CUE_STEM));
}
