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

/** Entities a text names, lower-cased, each once, in order of first mention (at most `max`). */
export function extractEntities(text: string, max = 32): string[] {
  const t = text.normalize('NFKC');
  const out = new Set<string>();
  names(t, out, max);
  // each pattern only over a text holding the character it cannot match without (a rebuild folds every item through here)
  if (/[a-z][A-Z]|_|\.[A-Za-z_]/.test(t)) for (const m of t.matchAll(CODE_IDENT)) addEntity(out, m[0], max);
  if (t.includes('/')) for (const m of t.matchAll(PATH)) addEntity(out, m[1], max);
  if (/:\d/.test(t)) for (const m of t.matchAll(HOST_PORT)) if (!/^\d+:\d+$/.test(m[1] ?? '')) addEntity(out, m[1], max);
  if (/\d/.test(t)) for (const m of t.matchAll(PRODUCT)) addEntity(out, m[1], max);
  // every CJK script's letters lie above U+10FF (Hangul jamo start at U+1100)
  if (/[^\u0000-\u10ff]/.test(t)) for (const m of t.matchAll(CJK)) for (const term of cjkTerms(m[0])) addEntity(out, term, max);
  return [...out];
}

// module functions, not closures made per text: a rebuild calls these for every item
function addEntity(out: Set<string>, e: string | undefined, max: number): void {
  const v = e?.trim().replace(/[.,;:!?)'’"]+$/u, '').toLowerCase();
  if (v && v.length >= 2 && out.size < max) out.add(v);
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
  let run: string[] = [];
  let runStart = -1;
  let lastEnd = -1;
  // a run that opens a line and ends at a label's colon ("Action Item: …", "Next Steps: …") names no one, as one word does (opensSentence)
  const flush = (): void => {
    if (!(run.length > 1 && text[lastEnd] === ':' && opensLine(text, runStart) && isLabel(run.join(' ')))) addRun(out, run, max);
    run = [];
  };
  for (const m of text.matchAll(CAPITAL_WORD)) {
    const w = m[0].endsWith("'s") || m[0].endsWith('’s') ? m[0].slice(0, -2) : m[0];
    const at = m.index ?? 0;
    // a lone capitalised word opening a sentence is most often just that ("Run the…"), unless it names a speaker ("Caroline: …")
    const capital = !NOT_NAMES.has(w.toLowerCase()) && !opensSentence(text, w, at);
    // a run continues only over the whitespace between two capitalised words
    if (!capital || (run.length && !/^\s+$/u.test(text.slice(lastEnd, at)))) flush();
    if (capital) {
      if (run.length === 0) runStart = at;
      run.push(w);
    }
    lastEnd = at + w.length;
  }
  flush();
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
