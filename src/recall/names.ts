// The names a question asks about (issue 30, quiet on what the docs do not answer). A question
// that names a thing — "Stryker", "MySQL", "Puppeteer" — asks about that thing; when no judged
// candidate holds the name, none of them answers it (delivery's unknown-name rule), however
// many of the question's generic words ("set up", "test", "run") they share. A name here is a Latin word written as
// one: capitalised, or with a capital inside ("GraphQL"), but not a sentence's first word (which
// is capitalised anyway); inside CJK text any Latin word is a name ("用 Docker 部署"). Words
// joined by hyphens, dots or slashes ("non-localhost", "vi.fn") are identifiers people spell in
// many ways: not names here.
import { tokenize } from '../text/index.js';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// a Latin word (CJK text around it separates it as a space does)
const WORD = /(^|[^A-Za-z0-9._\-/])([A-Za-z][A-Za-z0-9+#]*)(?![A-Za-z0-9_\-/]|\.[A-Za-z0-9])/gu;

/** The words of `utterance` written as names (lower-cased keyword tokens), in order, once each. */
export function nameTerms(utterance: string): string[] {
  const cjk = CJK.test(utterance);
  const out: string[] = [];
  for (const m of utterance.matchAll(WORD)) {
    const word = m[2] as string;
    const at = (m.index ?? 0) + (m[1] as string).length;
    const before = utterance.slice(0, at).trimEnd();
    const sentenceStart = before === '' || /[.!?。！？:\n]$/u.test(before);
    const capital = /[A-Z]/.test(word.slice(1)) || (/^[A-Z]/.test(word) && !sentenceStart);
    if (word.length < 3 || !(cjk || capital)) continue;
    // the name itself, not its words ("GraphQL" is one name, not "graph" and "ql")
    const tokens = tokenize(word, { identifierParts: false });
    if (tokens.length !== 1) continue;
    const t = tokens[0] as string;
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
