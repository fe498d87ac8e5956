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
