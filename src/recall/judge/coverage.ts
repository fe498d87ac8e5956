// How much of a question a text covers, in units a reader would count: a Latin word is one
// unit; Chinese (and other CJK) text counts by character. The keyword index holds CJK as
// overlapping bigrams, and a question's bigrams that straddle two words ("监听数据变化" →
// 听数, 据变) are rare in any library, so an idf-weighted bigram coverage let those junk
// bigrams outweigh the real words: the right Vue section (rank 1, every word present)
// covered 0.08 of "怎么在组件里监听数据变化". A character is covered when the item holds
// one of the question's bigrams that contain it, and weighs what its most common bigram
// weighs (the real word's, not the straddling one's).
import { isCjkChar, queryTokens } from '../../text/index.js';

export interface CoverageUnit {
  /** tokens any of which covers the unit (a Latin term: itself; a CJK character: its bigrams) */
  tokens: readonly string[];
  weight: number;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** The question's coverage units; `keep` filters the tokens that may count (time words, words already asked). */
export function coverageUnits(text: string, weight: (token: string) => number, keep: (token: string) => boolean = () => true): CoverageUnit[] {
  const units: CoverageUnit[] = [];
  const seen = new Set<string>();
  // Latin words (and lone CJK characters the tokenizer keeps as unigrams come through the runs below)
  for (const t of new Set(queryTokens(text.replace(CJK_RUN, ' ')))) {
    if (!keep(t)) continue;
    seen.add(t);
    units.push({ tokens: [t], weight: weight(t) });
  }
  for (const match of text.matchAll(CJK_RUN)) {
    const run = queryTokens(match[0]);
    const chars = [...match[0].normalize('NFKC').toLowerCase()];
    if (chars.length === 1) {
      const t = run[0];
      if (t && keep(t) && !seen.has(t)) {
        seen.add(t);
        units.push({ tokens: [t], weight: weight(t) });
      }
      continue;
    }
    const bigrams = new Set(run);
    chars.forEach((ch, i) => {
      if (!isCjkChar(ch)) return;
      const mine = [i > 0 ? `${chars[i - 1]}${ch}` : '', i + 1 < chars.length ? `${ch}${chars[i + 1]}` : ''].filter((b) => b && bigrams.has(b) && keep(b));
      const id = `${ch}|${mine.join('|')}`;
      if (mine.length === 0 || seen.has(id)) return;
      seen.add(id);
      units.push({ tokens: mine, weight: Math.min(...mine.map(weight)) });
    });
  }
  return units;
}

/** The weighted share of the units a text's tokens cover (0 when there is nothing to cover). */
export function unitCoverage(units: readonly CoverageUnit[], have: ReadonlySet<string>): number {
  let all = 0;
  let hit = 0;
  for (const u of units) {
    all += u.weight;
    if (u.tokens.some((t) => have.has(t))) hit += u.weight;
  }
  return all > 0 ? hit / all : 0;
}
