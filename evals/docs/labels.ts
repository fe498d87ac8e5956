// The frozen real-documentation labels (questions-<corpus>.json) and the one check they must
// pass against their corpus: every answerable label's `answer` occurs verbatim in its gold
// file, in the text under its `gold_heading` (from that heading line to the next heading of
// any level, headings inside code fences not counted). Pure functions; the test
// (tests/docs-eval-labels-frozen.test.ts) and the harness (run.ts) share them.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

export const CORPORA = ['vitest', 'vue-zh'] as const;
export type Corpus = (typeof CORPORA)[number];

const Answerable = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  answerable: z.literal(true),
  gold_file: z.string().min(1),
  gold_heading: z.string().min(1),
  answer: z.string().min(2).max(60),
  split: z.enum(['dev', 'heldout']),
});
const Unanswerable = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  answerable: z.literal(false),
  split: z.enum(['dev', 'heldout']),
  note: z.string().optional(),
});
export const Label = z.discriminatedUnion('answerable', [Answerable, Unanswerable]);
export type Label = z.infer<typeof Label>;
export type AnswerableLabel = z.infer<typeof Answerable>;
export const LabelFile = z.object({ corpus: z.enum(CORPORA), language: z.string(), questions: z.array(Label) });
export type LabelFile = z.infer<typeof LabelFile>;

const HERE = import.meta.dirname;
/** ../shared/evals from the repository root (the corpora are read there, never copied). */
export const SHARED_EVALS = resolve(HERE, '../../../shared/evals');

export function labelPath(corpus: Corpus): string {
  return join(HERE, `questions-${corpus}.json`);
}
export function corpusDocs(corpus: Corpus, root = SHARED_EVALS): string {
  return join(root, `realdocs-${corpus}`, 'docs');
}
export function corpusPresent(corpus: Corpus, root = SHARED_EVALS): boolean {
  return existsSync(corpusDocs(corpus, root));
}

export function loadLabels(corpus: Corpus): LabelFile {
  return LabelFile.parse(JSON.parse(readFileSync(labelPath(corpus), 'utf8')));
}

/** The heading text of a markdown heading line (`## foo {#id}` → `foo {#id}`), or null. */
function headingOf(line: string): string | null {
  const m = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(line);
  return m ? (m[2] as string) : null;
}

/**
 * The text under each heading occurrence named `heading` (exact, after the hashes), up to
 * the next heading of any level; fenced code is part of the body, never a heading.
 */
export function sectionsUnder(markdown: string, heading: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  let current: string[] | null = null;
  for (const line of markdown.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      const mark = (f[1] as string).slice(0, 3);
      if (fence === null) fence = mark;
      else if (mark === fence) fence = null;
    }
    const h = fence === null && !f ? headingOf(line) : null;
    if (h !== null) {
      if (current) out.push(current.join('\n'));
      current = h === heading ? [] : null;
      continue;
    }
    current?.push(line);
  }
  if (current) out.push(current.join('\n'));
  return out;
}

/** Why an answerable label does not hold against its corpus, or null when it does. */
export function labelProblem(label: AnswerableLabel, docsDir: string): string | null {
  const file = join(docsDir, label.gold_file);
  if (!existsSync(file)) return `${label.id}: gold file ${label.gold_file} not found`;
  const md = readFileSync(file, 'utf8');
  if (!md.includes(label.answer)) return `${label.id}: answer ${JSON.stringify(label.answer)} not in ${label.gold_file}`;
  const sections = sectionsUnder(md, label.gold_heading);
  if (sections.length === 0) return `${label.id}: no heading ${JSON.stringify(label.gold_heading)} in ${label.gold_file}`;
  if (!sections.some((s) => s.includes(label.answer)))
    return `${label.id}: answer ${JSON.stringify(label.answer)} not under ${JSON.stringify(label.gold_heading)}`;
  return null;
}
