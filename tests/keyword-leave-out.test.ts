// A search leaves a session's own traces out inside the lane (own-session-lanes). The keyword index
// gives them to BM25 as doc numbers, taken out once before the top-k (skipDocs), instead of a key
// comparison on every matching doc (skip, still used before a loaded snapshot's keys are all in
// docOf). Both must answer alike: the same hits in the same order, the same rejected and skipped counts.
import { expect, it } from 'vitest';
import { Bm25Index, Vocabulary, type Bm25Gate } from '../projections/keyword/bm25.js';

const words = ['roll', 'back', 'release', 'cache', 'billing', 'deploy', 'staging', 'ttl', 'script', 'tag', 'zebra', 'herd'];
const doc = (i: number): string[] => Array.from({ length: 2 + (i % 9) }, (_, j) => words[(i * 5 + j * 7 + (i >> 3)) % words.length] as string);

it('leaves the same docs out whether given as doc numbers or as a test per matching doc', () => {
  const vocabulary = new Vocabulary();
  const index = new Bm25Index();
  const groupOf: number[] = [];
  for (let d = 0; d < 3_000; d++) {
    index.add(d, doc(d).map((t) => vocabulary.intern(t)));
    groupOf[d] = d % 4;
  }
  for (let d = 0; d < 3_000; d += 13) index.remove(d); // removed docs never match
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const queries = [['roll', 'back'], ['zebra', 'herd', 'cache'], ['deploy'], ['billing', 'tag', 'script', 'nothing'], words];
  let skippedSome = 0;
  for (let round = 0; round < 40; round++) {
    const accept = Uint8Array.from({ length: 4 }, (_, g) => (g === 0 || random() < 0.6 ? 1 : 0));
    // some of them removed, some in refused groups, some matching nothing the query asks
    const out = [...new Set(Array.from({ length: Math.floor(random() * 400) }, () => Math.floor(random() * 3_000)))];
    const outSet = new Set(out);
    for (const q of queries) {
      for (const limit of [1, 5, 50, 5_000]) {
        const byTest: Bm25Gate & { rejected: number[] } = { groupOf, accept, rejected: [], skip: (d) => outSet.has(d) };
        const byDocs: Bm25Gate & { rejected: number[] } = { groupOf, accept, rejected: [], skipDocs: out };
        const a = index.search(q, vocabulary, limit, byTest);
        const b = index.search(q, vocabulary, limit, byDocs);
        expect(b).toEqual(a);
        expect(byDocs.rejected).toEqual(byTest.rejected);
        expect(byDocs.skipped ?? 0).toBe(byTest.skipped ?? 0);
        skippedSome += byTest.skipped ?? 0;
      }
    }
  }
  expect(skippedSome).toBeGreaterThan(1_000);
  // and nothing stays behind in the shared buffers: a search without a gate after them scores as a fresh index
  const fresh = new Bm25Index();
  for (let d = 0; d < 3_000; d++) if (d % 13 !== 0) fresh.add(d, doc(d).map((t) => vocabulary.intern(t)));
  for (const q of queries) expect(index.search(q, vocabulary, 100)).toEqual(fresh.search(q, vocabulary, 100));
});
