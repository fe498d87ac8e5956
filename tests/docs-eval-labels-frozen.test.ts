// The real-documentation labels (evals/docs/questions-*.json) were written and frozen before
// anyone tuned on them (issue 30): a label file whose digest differs from
// evals/docs/FROZEN.sha256 fails here. When ../shared/evals is present, every answerable
// label's answer must occur in its gold file under its gold heading.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPORA, corpusDocs, corpusPresent, labelPath, labelProblem, loadLabels, sectionsUnder } from '../evals/docs/labels.js';

const frozenFile = join(import.meta.dirname, '../evals/docs/FROZEN.sha256');
const frozen = new Map(
  readFileSync(frozenFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [digest, name] = line.trim().split(/\s+/);
      return [name as string, digest as string];
    }),
);

describe('docs eval labels', () => {
  it.each(CORPORA)('%s labels match their frozen digest', (corpus) => {
    const path = labelPath(corpus);
    const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
    expect(digest, `${basename(path)} changed after it was frozen`).toBe(frozen.get(basename(path)));
  });

  it.each(CORPORA)('%s labels: ≥ 60 answerable, ≥ 8 unanswerable, a third held out, unique ids', (corpus) => {
    const { questions } = loadLabels(corpus);
    expect(questions.filter((q) => q.answerable).length).toBeGreaterThanOrEqual(60);
    expect(questions.filter((q) => !q.answerable).length).toBeGreaterThanOrEqual(8);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    const heldout = questions.filter((q) => q.split === 'heldout').length;
    expect(heldout).toBe(Math.floor(questions.length / 3));
  });

  it('the section check reads headings outside code fences only and stops at the next heading', () => {
    const md = '# A\n\nalpha\n\n```sh\n# not a heading\nbeta\n```\n\n## B\n\ngamma\n';
    expect(sectionsUnder(md, 'A')[0]).toContain('beta');
    expect(sectionsUnder(md, 'A')[0]).not.toContain('gamma');
    expect(sectionsUnder(md, 'not a heading')).toEqual([]);
  });

  for (const corpus of CORPORA) {
    describe.skipIf(!corpusPresent(corpus))(`${corpus} corpus (../shared/evals present)`, () => {
      it('every answer occurs under its gold heading in its gold file', () => {
        const problems = loadLabels(corpus)
          .questions.flatMap((q) => (q.answerable ? [labelProblem(q, corpusDocs(corpus))] : []))
          .filter((p) => p !== null);
        expect(problems).toEqual([]);
      });

      it('a wrong answer is caught', () => {
        const first = loadLabels(corpus).questions.find((q) => q.answerable);
        if (!first?.answerable) throw new Error('no answerable label');
        expect(labelProblem({ ...first, answer: 'zz-not-in-the-docs-zz' }, corpusDocs(corpus))).toMatch(/not in/);
      });
    });
  }
});
