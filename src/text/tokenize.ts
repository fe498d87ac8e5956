// Tokens for the keyword lanes: lower-cased Latin words with light stemming (or Porter2, see englishStem), and
// CJK character bigrams (a lone CJK character stays a unigram). Stop words dropped.
// An identifier written in camelCase or PascalCase also gives its words ("hookTimeout" →
// hooktimeout, hook, timeout): docs name options that way, questions ask "hook timeout".
import porter2 from 'wink-porter2-stemmer';
import { remembered } from './remembered.js';
import { isAscii } from './script.js';
import { CHINESE_STOP_CHARS, isEnglishStopWord } from './stopwords.js';

// A CJK run, or a run of other letters/digits (CJK subtracted, so "2013年" splits into "2013" and "年").
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[[\p{L}\p{N}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+(?:[._'\-][[\p{L}\p{N}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+)*/gv;
const CJK_RUN = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/v;
// TOKEN on ASCII text is /[a-zA-Z0-9]+(?:[._'-][a-zA-Z0-9]+)*/ (NFKC leaves ASCII as it is; its
// letters and digits are a-z, A-Z, 0-9), scanned by asciiRuns below.

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

/**
 * The heading cue's stem (issue 30): the Snowball English stemmer (Porter2) for a word of ASCII
 * letters only, so a question about "isolation" names the option heading `isolate` and
 * "configuration" meets "configure"; Porter2's exception list keeps "news", "general", "generate"
 * apart, which Porter merged. A word with a digit or a letter outside a-z (an identifier like "v2",
 * "utf8", a name like "Müller") keeps lightStem, as does anything of three letters or fewer.
 */
export function englishStem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return lightStem(word);
  return porter2(word);
}

const SEPARATOR = /[._'-]/;

/** englishStem and lightStem, remembered (a library repeats the same few thousand words). */
type Stem = (word: string) => string;
const STEMS: Record<'english' | 'light', Stem> = { english: remembered(englishStem, 50_000), light: remembered(lightStem, 50_000) };

function undouble(stem: string): string {
  // "stopped" → "stopp" → "stop"; keep "ll", "ss", "zz" ("called" → "call")
  const n = stem.length;
  if (n >= 3 && stem[n - 1] === stem[n - 2] && !/[lsz]/.test(stem[n - 1] as string)) return stem.slice(0, -1);
  return stem;
}

export interface TokenizeOptions {
  /** keep stop words (used for phrase-level checks); default false */
  keepStopWords?: boolean;
  /**
   * the words of a camelCase / PascalCase identifier as extra tokens after the whole one
   * (default true); off where the tokens feed something fixed, like the hashed test embedder's vectors
   */
  identifierParts?: boolean;
  /**
   * 'light' (default): lightStem, what the keyword lanes, the judge, delivery's term rules, passages
   * and the hashed test embedder read; 'english': englishStem (Porter2), what the heading cue reads.
   * Porter2 in the keyword lanes was measured and dropped (evals/README "A stronger stemmer").
   */
  stem?: 'english' | 'light';
}

/** All keyword tokens of a text, in order, duplicates kept (term frequency matters). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const out: string[] = [];
  const keepStop = options.keepStopWords ?? false;
  const parts = options.identifierParts ?? true;
  const stem = STEMS[options.stem ?? 'light'];
  if (isAscii(text)) {
    // NFKC leaves ASCII as it is (and was a tenth of a rebuild's fingerprints)
    asciiRuns(text, text.toLowerCase(), parts, (run, joined, written) => pushWord(run, joined, written, out, keepStop, stem));
    return out;
  }
  // İ (U+0130) is the one letter lower-casing lengthens (to i + U+0307): it shifted every later index, so
  // a text holding one lost all its identifier words, and its dot split "İstanbul" into "i", "stanbul".
  // Read as I, it lower-cases to i, as Turkish does, and the two strings keep one index per character.
  const nfkc = withoutDottedCapital(text.normalize('NFKC'));
  const lower = nfkc.toLowerCase();
  // the runs as written, to find an identifier's words; only while lower-casing keeps every index
  const cased = parts && nfkc !== lower && nfkc.length === lower.length ? nfkc : undefined;
  for (const match of lower.matchAll(TOKEN)) {
    const run = match[0];
    if (CJK_RUN.test(run)) pushCjk(run, out, keepStop);
    else {
      const end = match.index + run.length;
      const written = cased && innerCapital(cased, lower, match.index + 1, end) ? cased.slice(match.index, end) : undefined;
      pushWord(run, SEPARATOR.test(run), written, out, keepStop, stem);
    }
  }
  return out;
}

const withoutDottedCapital = (text: string): string => (text.includes('\u0130') ? text.replaceAll('\u0130', 'I') : text);

/** A character of `cased` in [from, to) that lower-casing changed: a capital after the run's first character (no string made). */
function innerCapital(cased: string, lower: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (cased.charCodeAt(i) !== lower.charCodeAt(i)) return true;
  return false;
}

/**
 * A run of letters and digits (`joined`: with . _ ' - inside it), as tokens; `written` is the
 * run as written when it may hold an identifier's inner capital (undefined: it holds none).
 */
function pushWord(run: string, joined: boolean, written: string | undefined, out: string[], keepStop: boolean, stem: Stem): void {
  if (!joined) {
    // one word (most runs): no split, no whole-run copy
    if (keepStop || !isEnglishStopWord(run)) out.push(stem(run));
    if (written !== undefined) pushIdentifierWords(written, run, 0, run.length, out, keepStop, stem);
    return;
  }
  let at = 0; // where `part` starts in the run (and in `written`): each separator is one character
  for (const part of run.split(SEPARATOR)) {
    const from = at;
    at += part.length + 1;
    if (part.length === 0) continue;
    if (keepStop || !isEnglishStopWord(part)) out.push(stem(part));
    if (written !== undefined) pushIdentifierWords(written, run, from, from + part.length, out, keepStop, stem);
  }
  // keep dotted/dashed identifiers whole as well ("rollback.sh", "v2-branch")
  if (/[._-]/.test(run)) out.push(run);
}

/** 1 for an upper-case letter, -1 for a lower-case one, 0 for anything else (digits, caseless letters). */
function caseAt(word: string, i: number): number {
  const c = word.charCodeAt(i);
  if (c < 128) return c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? -1 : 0;
  const ch = word[i] as string;
  if (ch.toLowerCase() !== ch) return 1;
  return ch.toUpperCase() !== ch ? -1 : 0;
}

/**
 * Where a word of an identifier starts: a capital after a small letter or digit ("hook|Timeout",
 * "v2|Config"), or the last capital of a run of them when two small letters follow
 * ("HTML|Parser"; "IDs", "URLs" stay one word).
 */
function startsWord(word: string, i: number, end: number, here: number, before: number): boolean {
  if (here !== 1) return false;
  if (before !== 1) return true;
  return i + 2 < end && caseAt(word, i + 1) === -1 && caseAt(word, i + 2) === -1;
}

/**
 * The words of the identifier `written[start, end)` (camelCase / PascalCase), cut from `lower` (the
 * same characters lower-cased) and stemmed; nothing for a single word.
 */
function pushIdentifierWords(written: string, lower: string, start: number, end: number, out: string[], keepStop: boolean, stem: Stem): void {
  let from = start;
  let before = caseAt(written, start);
  for (let i = start + 1; i < end; i++) {
    const here = caseAt(written, i);
    if (startsWord(written, i, end, here, before)) {
      pushPart(lower.slice(from, i), out, keepStop, stem);
      from = i;
    }
    before = here;
  }
  if (from > start) pushPart(lower.slice(from, end), out, keepStop, stem);
}

function pushPart(part: string, out: string[], keepStop: boolean, stem: Stem): void {
  if (keepStop || !isEnglishStopWord(part)) out.push(stem(part));
}

const isAsciiAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57); // a-z 0-9 (text is lower-cased)
const isJoiner = (c: number): boolean => c === 46 || c === 95 || c === 39 || c === 45; // . _ ' -

const INNER_CAPITAL = /[A-Za-z0-9][A-Z]/g;

/** The first capital at or after `from + 1` that follows a letter or digit, or the text's length. */
function innerCapitalFrom(text: string, from: number): number {
  INNER_CAPITAL.lastIndex = from;
  const m = INNER_CAPITAL.exec(text);
  return m ? m.index + 1 : text.length;
}

/**
 * TOKEN's runs in lower-cased ASCII text, scanned by hand: a regex iterator made a match array
 * per token (a third of what a rebuild allocated), this makes only the run's string and, for the
 * few runs with a capital after their first character in `text`, the run as written.
 */
function asciiRuns(text: string, lower: string, parts: boolean, visit: (run: string, joined: boolean, written: string | undefined) => void): void {
  const n = lower.length;
  // where the next capital after a letter or digit is (n: none), found by one native scan per capital, not per character
  const cased = parts && text !== lower;
  let capital = -1;
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
    if (cased && capital < start) capital = innerCapitalFrom(text, start);
    visit(lower.slice(start, i), joined, cased && capital < i ? text.slice(start, i) : undefined);
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

/**
 * The tokens a question is matched with: an identifier it names stays whole. Its words are in
 * the index beside it (tokenize), so "hook timeout" still meets `hookTimeout`; split here as well,
 * "moving search to OpenSearch" would ask for "search" twice and for "open", and a lane's
 * min-max normalisation then lifted an item holding only those (the offline case "opensearch").
 */
export function queryTokens(text: string, options: Omit<TokenizeOptions, 'identifierParts'> = {}): string[] {
  return tokenize(text, { ...options, identifierParts: false });
}

/** Distinct tokens, first-seen order. */
export function distinctTokens(text: string): string[] {
  return [...new Set(tokenize(text))];
}
