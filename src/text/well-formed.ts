// The one rule for user text that reaches the log (memories, cards, notes, turns, notices,
// reasons, ids): it holds no NUL and no lone UTF-16 surrogate. NUL has no meaning in a text, a
// note of NUL alone passed the non-empty check (issue 33), and PostgreSQL's text cannot hold it;
// a lone surrogate (a client cut a string inside an emoji) cannot be stored as UTF-8 unchanged.
// Other control characters are content (a tab, a CR, a pasted terminal line's colours): kept as sent.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Why `text` breaks the rule above, or undefined when it keeps it. */
export function textFault(text: string): string | undefined {
  if (text.includes('\u0000')) return 'may not contain NUL (U+0000)';
  if (hasLoneSurrogate(text)) return 'may not contain a lone UTF-16 surrogate (a string cut inside a character)';
  return undefined;
}

/** The first string (or key) in a parsed value that breaks the rule: its path and why. */
export function findTextFault(value: unknown, path: readonly string[] = []): { path: string[]; fault: string } | undefined {
  if (typeof value === 'string') {
    const fault = textFault(value);
    return fault === undefined ? undefined : { path: [...path], fault };
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findTextFault(v, [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const keyFault = textFault(k);
    if (keyFault !== undefined) return { path: [...path, k], fault: `key ${keyFault}` };
    const found = findTextFault(v, [...path, k]);
    if (found) return found;
  }
  return undefined;
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would fall inside a character (an
 * emoji): a cut half is a lone surrogate, which the rule above refuses and UTF-8 cannot store.
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && isHigh(text.charCodeAt(max - 1)) && isLow(text.charCodeAt(max)) ? max - 1 : max;
  return text.slice(0, Math.max(0, end));
}

/** The last `max` UTF-16 units of `text`, one fewer when the cut would fall inside a character. */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  return text.slice(isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1)) ? start + 1 : start);
}

/**
 * `text` made to keep the rule, for a door whose user cannot be asked to send it again (the hook
 * reads a prompt and a transcript a person already wrote): NUL dropped, a lone surrogate as U+FFFD.
 */
export function keepingTheRule(text: string): string {
  return textFault(text) === undefined ? text : text.replaceAll('\u0000', '').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}
