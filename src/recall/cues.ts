// Cue parsers shared by recall's cue lanes and recall_timeline: a date, month or
// relative time in the query (English or Chinese) → a time range (time-phrases.ts); names in
// the query that match known entities or speakers.
import type { TimeRange } from './time-phrases.js';

export { parseTimeRange, type TimeRange } from './time-phrases.js';

export function inRange(iso: string, range: TimeRange): boolean {
  const t = Date.parse(iso);
  return t >= range.from.getTime() && t < range.to.getTime();
}

/** Candidate names in the query: capitalised words and pairs, CJK runs. Matching against known entities happens in the pipeline. */
export function nameCandidates(text: string): string[] {
  const out = new Set<string>();
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? [];
  for (let i = 0; i < words.length; i++) {
    const w = (words[i] as string).replace(/['’]s$/u, '');
    if (/^\p{Lu}/u.test(w)) out.add(w.toLowerCase());
    const next = words[i + 1];
    if (next && /^\p{Lu}/u.test(w)) out.add(`${w} ${next}`.toLowerCase());
  }
  for (const run of text.match(/\p{Script=Han}{2,6}/gu) ?? [])
    for (let n = 2; n <= Math.min(4, run.length); n++) for (let i = 0; i + n <= run.length; i++) out.add(run.slice(i, i + n));
  return [...out];
}
