// mapTextFields walks each event type's text paths (redaction, sealing, opening: three times per
// appended event). Its paths are parsed once now instead of with a regex at every level and every
// array element; what it answers must not change: checked here against the former walk on every
// path the catalog lists and on shapes each path may meet (missing fields, wrong types, arrays, nesting).
import { expect, it } from 'vitest';
import { NAME_FIELDS, TEXT_FIELDS, UNLISTED_TYPE_FIELDS, mapTextFields } from '../src/privacy/fields.js';
import { SEALED_FIELDS } from '../src/privacy/seal.js';

/** the walk before paths were parsed once (src/privacy/fields.ts until issue 35's cost work), less mapDeep's argv and key rules */
function formerPath(value: unknown, path: string, redact: (text: string) => string, deep: (v: unknown) => unknown): unknown {
  if (path === '') return typeof value === 'string' ? redact(value) : value;
  if (path === '**') return deep(value);
  if (path.startsWith('[]')) {
    if (!Array.isArray(value)) return value;
    const rest = path.slice(2).replace(/^\./, '');
    const out = value.map((v) => formerPath(v, rest, redact, deep));
    return out.every((v, i) => v === value[i]) ? value : out;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const m = /^([A-Za-z0-9_]+)(.*)$/.exec(path);
  if (!m) return value;
  const [, field, rest] = m as unknown as [string, string, string];
  const obj = value as Record<string, unknown>;
  if (!(field in obj)) return value;
  const next = formerPath(obj[field], rest.replace(/^\./, ''), redact, deep);
  return next === obj[field] ? value : { ...obj, [field]: next };
}

let seed = 11;
const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

/** a value shaped after `path` most of the time, and anything else some of the time */
function shaped(path: string, depth = 0): unknown {
  const odd = random();
  if (depth > 4 || odd < 0.08) return pick([undefined, null, 7, true, 'plain text 1', ['x 1'], { other: 'y 1' }]);
  if (path === '' || path === '**' || odd < 0.12) return random() < 0.5 ? `text ${Math.floor(random() * 100)}` : { k: 'deep text', n: [1, 'two'] };
  if (path.startsWith('[]')) return Array.from({ length: Math.floor(random() * 4) }, () => shaped(path.slice(2).replace(/^\./, ''), depth + 1));
  const m = /^([A-Za-z0-9_]+)(.*)$/.exec(path);
  if (!m) return random() < 0.5 ? 'text 1 named by nothing' : { [path]: 'named by nothing 1' };
  const field = m[1] as string;
  return random() < 0.15 ? { unrelated: 'u' } : { [field]: shaped((m[2] as string).replace(/^\./, ''), depth + 1), other: 'kept' };
}

it('answers as the former walk on every catalogued path', () => {
  const paths = new Set<string>([...Object.values(TEXT_FIELDS).flat(), ...Object.values(NAME_FIELDS).flat(), ...UNLISTED_TYPE_FIELDS, ...Object.values(SEALED_FIELDS).flatMap((s) => s.paths)]);
  for (const odd of ['.x', 'a..b', '[]', '[][]', '[]**', 'a[]', 'a**', '**x', '']) paths.add(odd);
  const redact = (t: string): string => (t.includes('1') ? `⟦${t}⟧` : t);
  let changedSome = 0;
  for (const path of paths) {
    for (let i = 0; i < 200; i++) {
      const data = shaped(path);
      const before = JSON.stringify(data);
      // the former walk with the current mapDeep under it (its own rules are not what changed)
      const deep = (v: unknown): unknown => mapTextFields(v, ['**'], redact).data;
      const expected = formerPath(data, path, redact, deep);
      const { data: got, changed } = mapTextFields(data, [path], redact);
      expect(got).toEqual(expected);
      expect(got === data).toBe(expected === data); // unchanged answers the same object
      expect(changed).toEqual(expected === data ? [] : [path]);
      expect(JSON.stringify(data)).toBe(before); // never mutates
      if (expected !== data) changedSome += 1;
    }
  }
  expect(changedSome).toBeGreaterThan(500);
});
