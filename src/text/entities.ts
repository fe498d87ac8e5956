// Entities named in a text (issue 35; seed 004's entity extractor and the extra patterns it
// found it needed): people and other capitalised names, code identifiers, paths, hosts and
// ports, product-like names with versions, CJK terms. Lower-cased (NFKC) so that a query
// written in lower case meets them. A stop list keeps out capitalised function words that
// start a sentence ("The", "When", "I") and words too common to connect anything.
import { CHINESE_STOP_CHARS, ENGLISH_STOP_WORDS } from './stopwords.js';
import { isLabel } from './turn-shape.js';

/** Capitalised words that start sentences or are pronouns/months/days: never a name on their own. */
const NOT_NAMES: ReadonlySet<string> = new Set([
  ...ENGLISH_STOP_WORDS,
  'i', "i'm", "i've", "i'll", "i'd", 'hey', 'hi', 'hello', 'yes', 'yeah', 'no', 'oh', 'wow', 'thanks', 'thank', 'sure', 'ok', 'okay',
  'well', 'so', 'but', 'and', 'or', 'also', 'just', 'really', 'that', 'this', 'what', 'when', 'where', 'who', 'why', 'how', 'which',
  'did', 'do', 'does', 'is', 'are', 'was', 'were', 'have', 'has', 'had', 'can', 'could', 'would', 'should', 'will', 'it', 'its',
  'my', 'your', 'our', 'their', 'his', 'her', 'we', 'you', 'they', 'he', 'she', 'me', 'us', 'them', 'there', 'here', 'then',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'today', 'yesterday', 'tomorrow',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'great', 'good', 'nice', 'awesome', 'cool', 'definitely', 'absolutely', 'totally', 'maybe', 'congrats', 'sounds', 'that’s',
]);

/**
 * The words (runs of letters and digits, then also ' ’ _ -) that open with a capital letter: the
 * lookbehind keeps out a capital inside a word ("fooBar", "ab-Cd"), so these are exactly the
 * capitalised words of a scan for every word, which names() alone reads (a rebuild folds every
 * item through here: the other words only cost it their match objects, issue 35's bench:log).
 */
const CAPITAL_WORD = /\p{Lu}(?<![\p{L}\p{N}]['’_-]*\p{Lu})[\p{L}\p{N}'’_-]*/gu;
const CODE_IDENT = /\b(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*){1,4}\(\)?)/g;
const PATH = /(?:^|[\s(`'"])((?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w.-]+)/g;
const HOST_PORT = /\b((?:[a-z0-9-]+\.)*[a-z0-9-]+:\d{2,5})\b/gi;
const PRODUCT = /\b([A-Z][A-Za-z]+(?:[ -]?\d+(?:\.\d+)*))\b/g;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{2,}/gu;

/** NFKC leaves ASCII as it is: most texts skip the normaliser's copy and the CJK check. */
const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** CODE_IDENT's third form (a dotted name) is a call: it cannot match without "(" */
const CODE_CAMEL_OR_SNAKE = /[a-z][A-Z]|_/;
const CODE_DOTTED = /\.[A-Za-z_]/;
const ONLY_DIGITS_PORT = /^\d+:\d+$/;
const SPACE_RUN = /\s+/y;
const TRAILING = /[.,;:!?)'’"]+$/u;
const TRAILING_CHARS = '.,;:!?)\'’"';

/**
 * Entities a text names, lower-cased, each once, in order of first mention (at most `max`). A rebuild
 * folds every item through here (issue 35's bench:log): the patterns run as exec loops (matchAll
 * makes an iterator and a regex clone per call), each only over a text holding a character it cannot
 * match without, and nothing runs once `max` are found (nothing more could be added).
 */
export function extractEntities(text: string, max = 32): string[] {
  const ascii = ASCII_ONLY.test(text);
  const t = ascii ? text : text.normalize('NFKC');
  const out = new Set<string>();
  names(t, out, max);
  if (out.size < max && (CODE_CAMEL_OR_SNAKE.test(t) || (t.includes('(') && CODE_DOTTED.test(t)))) eachMatch(CODE_IDENT, t, 0, out, max);
  if (out.size < max && t.includes('/')) eachMatch(PATH, t, 1, out, max);
  if (out.size < max && /:\d/.test(t)) {
    HOST_PORT.lastIndex = 0;
    for (let m = HOST_PORT.exec(t); m !== null && out.size < max; m = HOST_PORT.exec(t)) if (!ONLY_DIGITS_PORT.test(m[1] ?? '')) addEntity(out, m[1], max);
  }
  if (out.size < max && /\d/.test(t)) eachMatch(PRODUCT, t, 1, out, max);
  // every CJK script's letters lie above U+10FF (Hangul jamo start at U+1100)
  if (!ascii && out.size < max && /[^\u0000-\u10ff]/.test(t)) {
    CJK.lastIndex = 0;
    for (let m = CJK.exec(t); m !== null && out.size < max; m = CJK.exec(t)) for (const term of cjkTerms(m[0])) addEntity(out, term, max);
  }
  return [...out];
}

/** Each match's group `group` of a global pattern, as an entity. */
function eachMatch(pattern: RegExp, text: string, group: number, out: Set<string>, max: number): void {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null && out.size < max; m = pattern.exec(text)) addEntity(out, m[group], max);
}

// module functions, not closures made per text: a rebuild calls these for every item
function addEntity(out: Set<string>, e: string | undefined, max: number): void {
  if (e === undefined || out.size >= max) return;
  let v = e.trim();
  if (v.length > 0 && TRAILING_CHARS.includes(v[v.length - 1] as string)) v = v.replace(TRAILING, '');
  if (v.length >= 2) out.add(v.toLowerCase());
}

function addRun(out: Set<string>, run: readonly string[], max: number): void {
  if (run.length > 1) addEntity(out, run.join(' '), max);
  for (const w of run) addEntity(out, w, max);
}

/**
 * Capitalised words and runs of them ("Caroline", "New York", "LGBTQ support group" → "lgbtq"). Only
 * capitalised words are visited: any other word between two of them leaves more than whitespace
 * between them, which ends a run as meeting that word would (and nothing is added in between).
 */
function names(text: string, out: Set<string>, max: number): void {
  const run: string[] = [];
  let runStart = -1;
  let lastEnd = -1;
  CAPITAL_WORD.lastIndex = 0;
  for (let m = CAPITAL_WORD.exec(text); m !== null; m = CAPITAL_WORD.exec(text)) {
    const word = m[0];
    const w = word.endsWith("'s") || word.endsWith('’s') ? word.slice(0, -2) : word;
    const at = m.index;
    // a lone capitalised word opening a sentence is most often just that ("Run the…"), unless it names a speaker ("Caroline: …")
    const capital = !NOT_NAMES.has(w.toLowerCase()) && !opensSentence(text, w, at);
    // a run continues only over the whitespace between two capitalised words
    if (!capital || (run.length > 0 && !onlySpace(text, lastEnd, at))) endRun(text, out, run, runStart, lastEnd, max);
    if (capital) {
      if (run.length === 0) runStart = at;
      run.push(w);
    }
    lastEnd = at + w.length;
  }
  endRun(text, out, run, runStart, lastEnd, max);
}

/** A run ends: its entities, unless it opens a line and ends at a label's colon ("Action Item: …", "Next Steps: …": it names no one, as one word does, opensSentence); `run` is emptied. */
function endRun(text: string, out: Set<string>, run: string[], runStart: number, lastEnd: number, max: number): void {
  if (run.length === 0) return;
  if (!(run.length > 1 && text[lastEnd] === ':' && opensLine(text, runStart) && isLabel(run.join(' ')))) addRun(out, run, max);
  run.length = 0;
}

/** Whether text[from, to) is whitespace and not empty. */
function onlySpace(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  SPACE_RUN.lastIndex = from;
  return SPACE_RUN.test(text) && SPACE_RUN.lastIndex === to;
}

/** Whether a word at `at` opens the text, a sentence or a line. */
function opensLine(text: string, at: number): boolean {
  return /(^|[.!?]\s*|\n\s*)$/u.test(text.slice(Math.max(0, at - 3), at));
}

/** A word opening a sentence, not followed by a colon (a speaker; a label's colon is not one: "Note:") nor by another capitalised word (a run). */
function opensSentence(text: string, w: string, at: number): boolean {
  if (!opensLine(text, at)) return false;
  if (text[at + w.length] === ':') return isLabel(w);
  return !/^\p{Lu}/u.test(text.slice(at + w.length + 1, at + w.length + 2));
}

/** Whether a word may stand as an entity a query names (not a stop word, not a bare number). */
export function mayNameEntity(word: string): boolean {
  return word.length >= 2 && !NOT_NAMES.has(word) && !/^\d+$/.test(word);
}

/** CJK has no spaces: the runs between stop characters, whole when short enough to be a term (2–4), else their bigrams (the keyword lane's unit). */
export function cjkTerms(run: string): string[] {
  const out: string[] = [];
  let part = '';
  for (const ch of [...run, '的']) {
    if (!CHINESE_STOP_CHARS.has(ch)) {
      part += ch;
      continue;
    }
    const cs = [...part];
    if (cs.length >= 2 && cs.length <= 4) out.push(part);
    else if (cs.length > 4) for (let i = 0; i + 2 <= cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
    part = '';
  }
  return out;
}
