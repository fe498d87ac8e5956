// node --import tsx evals/cases/judge-doc-rows.ts [--write] [--library-cache DIR] [--json]
// With KIOKU_EMBED_CACHE=FILE the embedder reads vectors from that file as the server does (a fresh
// library of Vitest and Vue in ~10 s instead of ~8 min of embedding; the rows are the same).
// The local judge's fit rows from real documentation: the dev-split questions of
// evals/docs/questions-*.json (never the held-out third), asked of the Vitest docs and the
// Chinese Vue docs (../shared/evals/realdocs-*, imported as a wiki). Each question goes through
// the real pipeline with a recording judge; each candidate the judge would see becomes a row of
// numbers: the judge's signals (judgeFeatures, the same function the judge runs), the label
// (1 when the section's text holds the question's answer string), the candidate's document
// (an index) and which of the question's terms it matches (indices) — what delivery's partial-
// match rule reads. No text of the docs is kept. The fit reads the rows from
// evals/cases/judge-doc-rows.json, so the calibration test needs neither the corpora (which may
// be absent: never copied into the repository) nor minutes of embedding; a test re-derives some
// rows from the corpus when it is present (tests/judge-doc-rows.test.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, embedderConfigFromEnv } from '../../src/embed/index.js';
import { EmbeddingIndexer } from '../../src/indexer/embedding-job.js';
import { documentKey } from '../../src/knowledge/evidence.js';
import { Knowledge, importDirectory } from '../../src/knowledge/index.js';
import { openKioku } from '../../src/kioku.js';
import {
  createRecallCore,
  deliver,
  judgeFeatures,
  matchText,
  measurementConfig,
  recall,
  utteranceTerms,
  VECTOR_FEATURES,
  type DeliveryRules,
  type JudgeFeatures,
} from '../../src/recall/index.js';
import { tokenize } from '../../src/text/index.js';
import { containsAnswer } from '../docs/baseline.js';
import { CORPORA, corpusDocs, corpusPresent, loadLabels, type Corpus } from '../docs/labels.js';
import { RecordingJudge } from './recording-judge.js';

export const DOC_ROWS_FILE = resolve(import.meta.dirname, 'judge-doc-rows.json');
/** the order of a row's `x`: every signal the judge computes (`cos` null without a vector) */
export const DOC_ROW_FEATURES = VECTOR_FEATURES;

export interface DocRow {
  /** the signals in DOC_ROW_FEATURES order; null = no cosine */
  x: (number | null)[];
  /** 1 when the section's text holds the answer string */
  y: 0 | 1;
  /** the candidate's document, as an index within its question */
  doc: number;
  /** indices of the question's terms the candidate matches (delivery's partial-match rule) */
  m: number[];
  /** a metadata section (recallable, never delivered) */
  meta?: 1;
}
export interface DocCase {
  id: string;
  corpus: Corpus;
  answerable: boolean;
  /** how many keyword terms the question has (the `m` indices count into them) */
  terms: number;
  rows: DocRow[];
}
export interface DocRowsFile {
  description: string;
  command: string;
  features: readonly string[];
  embedder: string;
  corpora: Corpus[];
  cases: DocCase[];
}

/** Import a corpus as a wiki (and embed it) into `dir`; an existing library there is brought up to date, not rebuilt. */
export async function openCorpus(corpus: Corpus, dir: string, embed: boolean) {
  const store = await openKioku({ data: dir });
  const knowledge = new Knowledge(store, 'eval');
  const summary = await importDirectory(knowledge, store.projections.views.records, { kind: 'wiki', dir: corpusDocs(corpus) });
  if (summary.errors.length) throw new Error(`${corpus}: ${summary.errors.map((e) => `${e.file}: ${e.message}`).join('; ')}`);
  if (embed) {
    const embedder = createEmbedder(embedderConfigFromEnv());
    try {
      await new EmbeddingIndexer(store, embedder).run();
    } finally {
      await embedder.close();
    }
  }
  return store;
}

export interface BuildOptions {
  corpora?: readonly Corpus[];
  /** only these question ids (a test's sample) */
  only?: readonly string[];
  /** keep each corpus's library in `<dir>/<corpus>` between runs (embedding Vitest takes minutes) */
  libraryCache?: string;
  /** false: no embedding job (a corpus whose chosen questions are all mainly CJK needs none) */
  embed?: boolean;
}

/** The rows of the dev-split questions of each corpus present (a corpus that is absent is skipped). */
export async function buildDocRows(options: BuildOptions = {}): Promise<{ cases: DocCase[]; embedder: string; skipped: Corpus[] }> {
  const cases: DocCase[] = [];
  const skipped: Corpus[] = [];
  let embedderId = 'none';
  for (const corpus of options.corpora ?? CORPORA) {
    if (!corpusPresent(corpus)) {
      skipped.push(corpus);
      continue;
    }
    const questions = loadLabels(corpus).questions.filter((q) => q.split === 'dev' && (!options.only || options.only.includes(q.id)));
    if (questions.length === 0) continue;
    const dir = options.libraryCache ? join(options.libraryCache, corpus) : mkdtempSync(join(tmpdir(), `kioku-docrows-${corpus}-`));
    const store = await openCorpus(corpus, dir, options.embed ?? true);
    const recorder = new RecordingJudge();
    const core = createRecallCore(store, { embedder: createEmbedder(embedderConfigFromEnv()), judge: recorder });
    embedderId = core.embedder?.id ?? 'none';
    core.config = measurementConfig();
    const records = store.projections.views.records;
    try {
      for (const q of questions) {
        recorder.take();
        await recall(core, { query: q.question, namespace: 'private' }, { readOnly: true, namespaces: ['private'] });
        const request = recorder.take();
        if (!request) continue;
        const terms = [...utteranceTerms(request.utterance, request.timePhrase)];
        const docs: string[] = [];
        const rows: DocRow[] = [];
        for (const [key, f] of judgeFeatures(request)) {
          const e = records.get(key);
          if (!e) continue;
          const doc = documentKey(key);
          if (!docs.includes(doc)) docs.push(doc);
          const have = new Set(tokenize(matchText(e)));
          rows.push({
            x: DOC_ROW_FEATURES.map((k) => (f[k] === undefined ? null : round(f[k] as number))),
            y: q.answerable && containsAnswer(e.text, q.answer) ? 1 : 0,
            doc: docs.indexOf(doc),
            m: terms.flatMap((t, i) => (have.has(t) ? [i] : [])),
            ...(e.meta ? { meta: 1 as const } : {}),
          });
        }
        cases.push({ id: q.id, corpus, answerable: q.answerable, terms: terms.length, rows });
      }
    } finally {
      await core.close();
      await store.close();
      if (!options.libraryCache) rmSync(dir, { recursive: true, force: true });
    }
  }
  return { cases, embedder: embedderId, skipped };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** A row's signals by name, as judgeFeatures gave them. */
export function docRowFeatures(row: DocRow, features: readonly string[] = DOC_ROW_FEATURES): JudgeFeatures {
  const f: Record<string, number> = {};
  features.forEach((k, i) => {
    const v = row.x[i];
    if (v !== null && v !== undefined) f[k] = v;
  });
  return f as unknown as JudgeFeatures;
}

/**
 * The real delivery rules over one question's rows with these verdicts: each row stands for its
 * section (a distinct text, its document, the question terms it matches, in fused order).
 * Returns the indices of the delivered rows.
 */
export function deliverDocCase(c: DocCase, verdicts: readonly number[], rules: DeliveryRules): number[] {
  const key = (r: DocRow, i: number): string => `ev1:docs:wiki:d${r.doc}#r${i}`;
  const result = deliver(
    c.rows.map((r, i) => ({
      key: key(r, i),
      kind: 'knowledge' as const,
      layer: 'wiki',
      verdict: verdicts[i] ?? null,
      title: `r${i}`,
      text: `row ${i}`,
      match_text: r.m.map((t) => `t${t}`).join(' '),
      meta: r.meta === 1,
      occurred_at: '2026-01-01T00:00:00.000Z',
      rank: i,
    })),
    { delivered: new Map(), assistant_texts: [], query_terms: new Set(Array.from({ length: c.terms }, (_, i) => `t${i}`)) },
    rules,
  );
  const index = new Map(c.rows.map((r, i) => [key(r, i), i]));
  return result.items.map((item) => index.get(item.key) as number);
}

/** The cached rows, or none when the file is absent. */
export function loadDocRows(): DocRowsFile | undefined {
  if (!existsSync(DOC_ROWS_FILE)) return undefined;
  return JSON.parse(readFileSync(DOC_ROWS_FILE, 'utf8')) as DocRowsFile;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: { write: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, 'library-cache': { type: 'string' } },
  });
  const built = await buildDocRows(values['library-cache'] ? { libraryCache: values['library-cache'] } : {});
  for (const corpus of built.skipped) process.stderr.write(`judge-doc-rows: ../shared/evals/realdocs-${corpus} is absent; its questions are skipped\n`);
  const file: DocRowsFile = {
    description:
      "The local judge's fit rows from the real-documentation dev questions (evals/docs, split dev only): numbers only, no text of the docs. Written by `node --import tsx evals/cases/judge-doc-rows.ts --write`; read by eval:fit-judge.",
    command: 'node --import tsx evals/cases/judge-doc-rows.ts --write',
    features: DOC_ROW_FEATURES,
    embedder: built.embedder,
    corpora: [...new Set(built.cases.map((c) => c.corpus))],
    cases: built.cases,
  };
  const rows = built.cases.reduce((n, c) => n + c.rows.length, 0);
  const positives = built.cases.reduce((n, c) => n + c.rows.filter((r) => r.y === 1).length, 0);
  const found = built.cases.filter((c) => c.rows.some((r) => r.y === 1)).length;
  process.stdout.write(
    `${built.cases.length} dev questions (${file.corpora.join(', ')}), ${rows} rows, ${positives} holding the answer; the answer among the judged candidates for ${found} of ${built.cases.filter((c) => c.answerable).length} answerable\n`,
  );
  if (values.write && built.skipped.length === 0) {
    writeFileSync(DOC_ROWS_FILE, `${JSON.stringify(file)}\n`);
    process.stdout.write(`written to ${DOC_ROWS_FILE}\n`);
  } else if (values.write) process.stderr.write('judge-doc-rows: not written (a corpus is absent)\n');
  if (values.json) process.stdout.write(`${JSON.stringify({ questions: built.cases.length, rows, positives, answer_judged: found, skipped: built.skipped })}\n`);
}
