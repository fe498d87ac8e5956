// Tokens for the keyword lanes: lower-cased Latin words with light stemming, and
// CJK character bigrams (a lone CJK character stays a unigram). Stop words dropped.
import { remembered } from './remembered.js';
import { isAscii, lowerNfkc } from './script.js';
import { CHINESE_STOP_CHARS, isEnglishStopWord } from './stopwords.js';

// A CJK run, or a run of other letters/digits (CJK subtracted, so "2013年" splits into "2013" and "年").
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[[\p{L}\p{N}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+(?:[._'\-][[\p{L}\p{N}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+)*/gv;
const CJK_RUN = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/v;
// TOKEN on ASCII text is /[a-z0-9]+(?:[._'-][a-z0-9]+)*/ (NFKC leaves ASCII as it is; lower-cased, its
// letters and digits are a-z, 0-9), scanned by asciiRuns below.

/**
 * Light English stemming: plural and common verb endings only, so "deploys",
 * "deployed" and "deploying" meet "deploy" without Porter's over-reach.
 */
export function lightStem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return undouble(word.slice(0, -2));
  if (word.endsWith('es') && /(?:ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

const SEPARATOR = /[._'-]/;

/** lightStem, remembered (a library repeats the same few thousand words). */
const stemmed = remembered(lightStem, 50_000);

function undouble(stem: string): string {
  // "stopped" → "stopp" → "stop"; keep "ll", "ss", "zz" ("called" → "call")
  const n = stem.length;
  if (n >= 3 && stem[n - 1] === stem[n - 2] && !/[lsz]/.test(stem[n - 1] as string)) return stem.slice(0, -1);
  return stem;
}

export interface TokenizeOptions {
  /** keep stop words (used for phrase-level checks); default false */
  keepStopWords?: boolean;
}

/** All keyword tokens of a text, in order, duplicates kept (term frequency matters). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const out: string[] = [];
  const ascii = isAscii(text);
  const lower = lowerNfkc(text, ascii);
  const keepStop = options.keepStopWords ?? false;
  if (ascii) {
    asciiRuns(lower, (run, joined) => pushWord(run, joined, out, keepStop));
    return out;
  }
  for (const match of lower.matchAll(TOKEN)) {
    const run = match[0];
    if (CJK_RUN.test(run)) pushCjk(run, out, keepStop);
    else pushWord(run, SEPARATOR.test(run), out, keepStop);
  }
  return out;
}

/** A run of letters and digits (`joined`: with . _ ' - inside it), as tokens. */
function pushWord(run: string, joined: boolean, out: string[], keepStop: boolean): void {
  if (!joined) {
    // one word (most runs): no split, no whole-run copy
    if (keepStop || !isEnglishStopWord(run)) out.push(stemmed(run));
    return;
  }
  for (const part of run.split(/[._'-]/)) {
    if (part.length === 0) continue;
    if (!keepStop && isEnglishStopWord(part)) continue;
    out.push(stemmed(part));
  }
  // keep dotted/dashed identifiers whole as well ("rollback.sh", "v2-branch")
  if (/[._-]/.test(run)) out.push(run);
}

const isAsciiAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57); // a-z 0-9 (text is lower-cased)
const isJoiner = (c: number): boolean => c === 46 || c === 95 || c === 39 || c === 45; // . _ ' -

/**
 * TOKEN's runs in lower-cased ASCII text, scanned by hand: a regex iterator made a match
 * array per token (a third of what a rebuild allocated), this makes only the run's string.
 */
function asciiRuns(lower: string, visit: (run: string, joined: boolean) => void): void {
  const n = lower.length;
  let i = 0;
  while (i < n) {
    if (!isAsciiAlnum(lower.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    let joined = false;
    for (;;) {
      i += 1;
      while (i < n && isAsciiAlnum(lower.charCodeAt(i))) i += 1;
      // a joiner continues the run only when a letter or digit follows it
      if (i + 1 < n && isJoiner(lower.charCodeAt(i)) && isAsciiAlnum(lower.charCodeAt(i + 1))) {
        joined = true;
        continue;
      }
      break;
    }
    visit(lower.slice(start, i), joined);
  }
}

function pushCjk(run: string, out: string[], keepStop: boolean): void {
  const chars = [...run];
  if (chars.length === 1) {
    if (keepStop || !CHINESE_STOP_CHARS.has(chars[0] as string)) out.push(chars[0] as string);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) {
    const a = chars[i] as string;
    const b = chars[i + 1] as string;
    if (!keepStop && CHINESE_STOP_CHARS.has(a) && CHINESE_STOP_CHARS.has(b)) continue;
    out.push(a + b);
  }
}

/** Distinct tokens, first-seen order. */
export function distinctTokens(text: string): string[] {
  return [...new Set(tokenize(text))];
}
