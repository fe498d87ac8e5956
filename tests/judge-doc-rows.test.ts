// The documentation rows the judge is fitted on (evals/cases/judge-doc-rows.json) are numbers
// derived from the real docs; this re-derives some of them from the corpus and checks they are
// what the judge's signals produce today (skipped where ../shared/evals is absent: the corpora
// are never copied into the repository). Chinese questions with no vector anywhere need no
// embedding job, which keeps the test to seconds.
import { describe, expect, it } from 'vitest';
import { buildDocRows, loadDocRows, DOC_ROW_FEATURES } from '../evals/cases/judge-doc-rows.js';
import { corpusPresent, loadLabels } from '../evals/docs/labels.js';

const cached = loadDocRows();

describe('judge doc rows', () => {
  it('hold only numbers, only dev-split questions, with the signals the judge computes', () => {
    expect(cached).toBeDefined();
    expect(cached!.features).toEqual([...DOC_ROW_FEATURES]);
    for (const corpus of cached!.corpora) {
      const dev = new Set(
        loadLabels(corpus)
          .questions.filter((q) => q.split === 'dev')
          .map((q) => q.id),
      );
      for (const c of cached!.cases.filter((x) => x.corpus === corpus)) expect(dev.has(c.id), `${c.id} is not a dev question`).toBe(true);
    }
    for (const c of cached!.cases)
      for (const r of c.rows) {
        expect(r.x.every((v) => v === null || typeof v === 'number')).toBe(true);
        expect(r.m.every((i) => Number.isInteger(i) && i < c.terms)).toBe(true);
      }
  });

  it.skipIf(!corpusPresent('vue-zh'))(
    'are what the judge features produce on the corpus (a sample of Chinese dev questions)',
    async () => {
      const sample = cached!.cases
        .filter((c) => c.corpus === 'vue-zh' && c.rows.every((r) => r.x[0] === null))
        .slice(0, 5)
        .map((c) => c.id);
      expect(sample.length).toBe(5);
      const built = await buildDocRows({ corpora: ['vue-zh'], only: sample, embed: false });
      for (const id of sample) {
        const want = cached!.cases.find((c) => c.id === id)!;
        const got = built.cases.find((c) => c.id === id)!;
        expect(got.terms, id).toBe(want.terms);
        expect(got.rows.map((r) => [r.y, r.doc, r.m]), id).toEqual(want.rows.map((r) => [r.y, r.doc, r.m]));
        got.rows.forEach((r, i) =>
          r.x.forEach((v, k) => {
            const w = want.rows[i]!.x[k] as number | null;
            if (w === null) expect(v, `${id} row ${i} ${DOC_ROW_FEATURES[k]}`).toBeNull();
            else expect(v, `${id} row ${i} ${DOC_ROW_FEATURES[k]}`).toBeCloseTo(w, 5);
          }),
        );
      }
    },
    120_000,
  );
});
