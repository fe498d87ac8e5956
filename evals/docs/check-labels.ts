// npx tsx evals/docs/check-labels.ts — every answerable label's answer under its gold heading
// (the same check as tests/docs-eval-labels-frozen.test.ts, with all problems listed).
import { CORPORA, corpusDocs, corpusPresent, labelProblem, loadLabels } from './labels.js';

let bad = 0;
for (const corpus of CORPORA) {
  if (!corpusPresent(corpus)) {
    process.stdout.write(`${corpus}: corpus not found at ${corpusDocs(corpus)}, skipped\n`);
    continue;
  }
  const { questions } = loadLabels(corpus);
  const files = new Map<string, number>();
  for (const q of questions) {
    if (!q.answerable) continue;
    files.set(q.gold_file, (files.get(q.gold_file) ?? 0) + 1);
    const problem = labelProblem(q, corpusDocs(corpus));
    if (problem) {
      bad += 1;
      process.stdout.write(`${corpus}: ${problem}\n`);
    }
  }
  const count = (answerable: boolean, split: string) => questions.filter((q) => q.answerable === answerable && q.split === split).length;
  process.stdout.write(
    `${corpus}: ${questions.length} labels, answerable dev ${count(true, 'dev')} / heldout ${count(true, 'heldout')}, unanswerable dev ${count(false, 'dev')} / heldout ${count(false, 'heldout')}, ${files.size} gold files (max ${Math.max(...files.values())} per file)\n`,
  );
}
process.exitCode = bad ? 1 : 0;
