// The BM25 index compacts its postings and its per-doc term arena in place once removals
// pile up; answers must not change: after many re-writes and removals it scores exactly as
// a fresh index holding only the live docs.
import { expect, it } from 'vitest';
import { Bm25Index, Vocabulary } from '../projections/keyword/bm25.js';

const words = ['roll', 'back', 'release', 'cache', 'billing', 'deploy', 'staging', 'ttl', 'script', 'tag'];
const doc = (i: number): string[] => Array.from({ length: 3 + (i % 7) }, (_, j) => words[(i * 7 + j * 3) % words.length] as string);

it('scores exactly as a fresh index after thousands of removals (postings and arena compacted)', () => {
  const vocabulary = new Vocabulary();
  const ids = (tokens: string[]): number[] => tokens.map((t) => vocabulary.intern(t));
  const churned = new Bm25Index();
  const live = new Map<number, string[]>();
  let next = 0;
  // 24,000 docs written, 20,000 of them removed again: both compactions run (the arena after 65,536 dead entries)
  for (let i = 0; i < 24_000; i++) {
    const tokens = doc(i);
    churned.add(next, ids(tokens));
    live.set(next, tokens);
    next += 1;
    if (i % 6 !== 5) {
      const gone = next - 1 - (i % 3);
      if (live.has(gone)) {
        churned.remove(gone);
        live.delete(gone);
      }
    }
  }
  expect(churned.size).toBe(live.size);
  const fresh = new Bm25Index();
  for (const [d, tokens] of live) fresh.add(d, ids(tokens));
  for (const q of [['roll', 'back'], ['cache', 'ttl', 'nothing'], ['deploy'], ['billing', 'tag', 'script']]) {
    expect(churned.search(q, vocabulary, 20)).toEqual(fresh.search(q, vocabulary, 20));
    for (const w of q) expect(churned.idf(vocabulary.id(w))).toBe(fresh.idf(vocabulary.id(w)));
  }
  for (const [d] of [...live].slice(0, 50)) expect(churned.termsOf(d)).toEqual(fresh.termsOf(d));
  // a snapshot's columns (every doc number, removed ones marked) rebuild the same index
  const reloaded = Bm25Index.fromColumns(churned.columns(Array.from({ length: next }, (_, d) => d)), vocabulary.size);
  expect(reloaded.size).toBe(live.size);
  for (const q of [
    ['roll', 'back'],
    ['cache', 'ttl', 'nothing'],
    ['billing', 'tag', 'script'],
  ])
    expect(reloaded.search(q, vocabulary, 20)).toEqual(churned.search(q, vocabulary, 20));
  // the reloaded postings share one buffer; writes and removals after the load change only their own terms
  for (let i = 0; i < 3_000; i++) {
    const tokens = doc(i + 7);
    for (const index of [reloaded, churned]) index.add(next, ids(tokens));
    next += 1;
    if (i % 2 === 0) for (const index of [reloaded, churned]) index.remove(next - 1);
  }
  for (const q of [['roll', 'back'], ['deploy'], ['billing', 'tag', 'script']])
    expect(reloaded.search(q, vocabulary, 20)).toEqual(churned.search(q, vocabulary, 20));
});

it('refuses to index a doc twice, and forgets a removed doc entirely', () => {
  const vocabulary = new Vocabulary();
  const index = new Bm25Index();
  index.add(0, [vocabulary.intern('a'), vocabulary.intern('b'), vocabulary.intern('a')]);
  expect(() => index.add(0, [0])).toThrow(/indexed already/);
  expect(index.termsOf(0)).toEqual({ ids: Int32Array.from([0, 1]), tfs: Uint16Array.from([2, 1]), length: 3 });
  index.remove(0);
  expect(index.has(0)).toBe(false);
  expect(index.search(['a'], vocabulary, 5).hits).toEqual([]);
  expect(index.idf(vocabulary.id('a'))).toBe(index.idf(undefined));
});
