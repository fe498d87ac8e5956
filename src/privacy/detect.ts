// Finding secrets in a text and replacing them with placeholders (issue 33). Pure: the id of a
// placeholder comes from a function the caller hands in (the vault's keyed hash of namespace and
// value), so the same secret always becomes the same placeholder and a text redacted twice is
// redacted once (placeholders already present are never matched again).
import { assignedValue, SECRET_RULES, SECRET_KINDS, type SecretKind } from './rules.js';

export interface SecretFinding {
  kind: SecretKind;
  /** offsets of the secret in the text searched */
  start: number;
  end: number;
  value: string;
}

/** ⟦secret:<kind>:<id>⟧ — brackets no text or code uses, so a placeholder is never taken for anything else */
export const PLACEHOLDER_PATTERN = /⟦secret:([a-z0-9-]{1,40}):([a-z0-9]{4,40})⟧/g;

export function placeholder(kind: SecretKind, id: string): string {
  return `⟦secret:${kind}:${id}⟧`;
}

/** The placeholders in a text, in order (each once). */
export function placeholdersIn(text: string): { kind: string; id: string; text: string }[] {
  const seen = new Set<string>();
  const out: { kind: string; id: string; text: string }[] = [];
  for (const m of text.matchAll(PLACEHOLDER_PATTERN)) {
    if (seen.has(m[0])) continue;
    seen.add(m[0]);
    out.push({ kind: m[1] as string, id: m[2] as string, text: m[0] });
  }
  return out;
}

export function isSecretKind(kind: string): kind is SecretKind {
  return (SECRET_KINDS as readonly string[]).includes(kind);
}


/** Every rule's hints in two expressions (as written; lower-cased ones in any case): a text matching neither (most of them) is done in two scans. */
const escape = (h: string): string => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const hintsOf = (lower: boolean): RegExp | undefined => {
  const hints = [...new Set(SECRET_RULES.filter((r) => (r.lowerCase === true) === lower).flatMap((r) => r.hints))];
  return hints.length ? new RegExp(hints.map(escape).join('|'), lower ? 'i' : '') : undefined;
};
const EXACT_HINT = hintsOf(false);
const ANY_CASE_HINT = hintsOf(true);

/** Spans that are never secrets whatever a rule says: placeholders, data URIs (images), and what lies inside them. */
function protectedSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  // anything in ⟦ ⟧ is a placeholder, ours or one a text describes (`⟦secret:kind:id⟧`)
  for (const m of text.matchAll(/⟦[^⟦⟧\n]{1,80}⟧/g)) spans.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(/data:[\w/+.-]{1,100}(?:;[\w=.-]{1,100})*;base64,[A-Za-z0-9+/=]+/g)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

function overlaps(a: [number, number], spans: readonly [number, number][]): boolean {
  return spans.some(([s, e]) => a[0] < e && s < a[1]);
}

/** Where a rule's match puts its secret: the `value`/`sig` group, an assignment's value, or the whole match. */
function secretOf(m: RegExpExecArray): { start: number; value: string } | undefined {
  const groups = m.indices?.groups ?? {};
  for (const name of ['value', 'sig'] as const) {
    const at = groups[name];
    if (at) return { start: at[0], value: m.groups?.[name] as string };
  }
  for (const name of ['edq', 'dq', 'sq', 'bq', 'bare'] as const) {
    const at = groups[name];
    if (!at) continue;
    const assigned = assignedValue(m);
    return assigned ? { start: at[0], value: assigned.value } : undefined;
  }
  return { start: m.index, value: m[0] };
}

/**
 * What may hide a token without changing how it reads: format characters (\p{Cf}: zero-width space
 * and joiners, LRM/RLM, word joiner, BOM, soft hyphen…) and U+180E, dropped; and compatibility forms
 * (fullwidth ｇｈｐ＿…), read as their NFKC form.
 */
// fullwidth letters, digits, _ and - and the mathematical alphanumerics only: fullwidth punctuation
// (，：。) is what Chinese prose is written with, and the rules read it as it is
const COMPAT = String.raw`\uFF0D\uFF10-\uFF19\uFF21-\uFF3A\uFF3F\uFF41-\uFF5A\u{1D400}-\u{1D7FF}`;
const DISGUISED = new RegExp(`[\\p{Cf}\\u180E${COMPAT}]`, 'u');
const HIDDEN = /^[\p{Cf}\u180E]$/u;
const COMPATIBLE = new RegExp(`^[${COMPAT}]$`, 'u');

/**
 * Every secret the rules find, left to right, none overlapping (the more specific rule wins a tie).
 * A text with disguising characters is searched in a copy without them and NFKC-normalised (ghp_
 * with a zero-width space or an LRM inside, or written in fullwidth letters, is still a token);
 * each finding spans the original text, its value the token as it reads.
 */
export function findSecrets(text: string): SecretFinding[] {
  if (!DISGUISED.test(text)) return findVisible(text);
  const at: number[] = []; // offset in `text` of each character of the copy
  let visible = '';
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i) as number);
    if (!HIDDEN.test(ch)) {
      const read = COMPATIBLE.test(ch) ? ch.normalize('NFKC') : ch;
      for (let j = 0; j < read.length; j++) at.push(i);
      visible += read;
    }
    i += ch.length;
  }
  if (visible === text) return findVisible(text);
  at.push(text.length);
  return findVisible(visible).map((f) => {
    const last = at[f.end - 1] as number;
    return { ...f, start: at[f.start] as number, end: last + String.fromCodePoint(text.codePointAt(last) as number).length };
  });
}

function findVisible(text: string): SecretFinding[] {
  if (text.length < 8 || !(EXACT_HINT?.test(text) || ANY_CASE_HINT?.test(text))) return [];
  let lower: string | undefined;
  let shielded: [number, number][] | undefined;
  const taken: [number, number][] = [];
  const found: SecretFinding[] = [];
  for (const rule of SECRET_RULES) {
    // most texts hold none of a rule's hints and never run its expression
    const haystack = rule.lowerCase ? (lower ??= text.toLowerCase()) : text;
    if (!rule.hints.some((h) => haystack.includes(h))) continue;
    shielded ??= protectedSpans(text);
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    // exec, not matchAll: matchAll copies the expression on every call (most of the cost on short texts)
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const secret = secretOf(m);
      if (!secret || secret.value.length === 0) continue;
      const span: [number, number] = [secret.start, secret.start + secret.value.length];
      if (overlaps(span, shielded) || overlaps(span, taken)) continue;
      if (rule.accept && !rule.accept(secret.value, m)) continue;
      taken.push(span);
      found.push({ kind: rule.kindOf ? rule.kindOf(m) : rule.kind, start: span[0], end: span[1], value: secret.value });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

export interface Redaction {
  text: string;
  /** each distinct secret once, with its placeholder id */
  findings: (SecretFinding & { id: string; placeholder: string })[];
}

/**
 * Replace every secret of `text` by its placeholder. `idOf(value)` names a value (the vault's
 * keyed hash); a text without secrets comes back as the same string.
 */
export function redactText(text: string, idOf: (value: string) => string): Redaction {
  const found = findSecrets(text);
  if (found.length === 0) return { text, findings: [] };
  let out = '';
  let at = 0;
  const findings: Redaction['findings'] = [];
  const seen = new Set<string>();
  for (const f of found) {
    const id = idOf(f.value);
    const ph = placeholder(f.kind, id);
    out += text.slice(at, f.start) + ph;
    at = f.end;
    if (!seen.has(ph)) {
      seen.add(ph);
      findings.push({ ...f, id, placeholder: ph });
    }
  }
  return { text: out + text.slice(at), findings };
}
