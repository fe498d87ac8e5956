// ASCII text is tokenized by a hand-written scanner instead of the Unicode pattern: for any ASCII
// text the tokens must be exactly those the Unicode path gives (forced here by a trailing '©',
// which is no letter or digit and which NFKC leaves alone, so it adds no token).
import { describe, expect, it } from 'vitest';
import { tokenize } from '../src/text/index.js';

const ALPHABET = "aZz09._'-- \n\t!?,;:/\\\"()[]{}@#$%^&*+=<>~`|Ab9._'-xq";

function asciiSamples(count: number): string[] {
  let seed = 11;
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const out = [
    '',
    '.',
    "'",
    'a.',
    '.a',
    'a..b',
    "a'-b",
    'rollback.sh',
    'v2-branch',
    "it's",
    'A.B.C',
    'x-',
    '-x',
    '__init__',
    "Don't-stop.NOW",
    'the deploys were deployed',
  ];
  for (let i = 0; i < count; i++) {
    let s = '';
    const n = Math.floor(next() * 30);
    for (let j = 0; j < n; j++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
    out.push(s);
  }
  return out;
}

describe('tokenize on ASCII text', () => {
  it('gives the tokens of the Unicode path, with and without stop words', () => {
    for (const text of asciiSamples(20_000)) {
      for (const keepStopWords of [false, true]) {
        expect(tokenize(text, { keepStopWords }), JSON.stringify(text)).toEqual(tokenize(`${text} ©`, { keepStopWords }));
      }
    }
  });

  it('keeps joined identifiers whole beside their parts', () => {
    expect(tokenize('Run scripts/rollback.sh on v2-branch')).toEqual(['run', 'script', 'rollback', 'sh', 'rollback.sh', 'v2', 'branch', 'v2-branch']);
  });
});
