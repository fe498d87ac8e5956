// npm run eval:docs [-- --json] [--corpus vitest|vue-zh|all] [--split dev|heldout|all]
// Real documentation nobody here wrote (issue 30), measured the way a user runs Kioku: per
// corpus a fresh data dir, `kioku import wiki <docs dir>` (the real CLI), `kioku serve` in its
// own process on a loopback port, a wait until the embedding job is done (GET
// /v1/ingest/status), then every question of the chosen split(s), in id order, once, as
// `POST /v1/recall {query, limit: 10}` — state kept, no cache tricks. Scored per question
// against the frozen labels (questions-<corpus>.json, see FROZEN.sha256): the gold file among
// the top-10 records, something of the gold file delivered, the answer string in the delivered
// text, delivered items; for questions the docs do not answer, whether nothing was delivered.
// Beside it, in the same run: BM25 over ≤ 1,500-character chunks, top 1, 2 and 3 handed over
// (baseline.ts). Dev and held-out are reported apart; only dev misses are listed, by id.
// Reads ../shared/evals/realdocs-*/docs at run time; when absent the script skips on a
// developer's machine and fails (exit 2) in CI.
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parseEvidenceKey } from '../../src/knowledge/index.js';
import { documentIdOf, readMarkdownFiles } from '../../src/knowledge/importer.js';
import type { RecallPacket } from '../../src/recall/index.js';
import { dataMissing } from '../data.js';
import { freshDataDir, percentiles, removeDir, runKioku, startService, type Service } from '../service.js';
import { Bm25, chunkMarkdown, containsAnswer, type Chunk } from './baseline.js';
import { CORPORA, corpusDocs, corpusPresent, loadLabels, type Corpus, type Label } from './labels.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    corpus: { type: 'string', default: 'all' },
    split: { type: 'string', default: 'all' },
  },
});
const SPLITS = ['dev', 'heldout'] as const;
type Split = (typeof SPLITS)[number];
if (!['all', ...CORPORA].includes(values.corpus) || !['all', ...SPLITS].includes(values.split)) {
  process.stderr.write(`usage: --corpus ${['all', ...CORPORA].join('|')} --split dev|heldout|all\n`);
  process.exit(2);
}
const corpora: Corpus[] = values.corpus === 'all' ? [...CORPORA] : [values.corpus as Corpus];
const splits: Split[] = values.split === 'all' ? [...SPLITS] : [values.split as Split];
for (const c of corpora) if (!corpusPresent(c)) dataMissing('docs', corpusDocs(c), values.json);

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const r4 = (x: number): number => Math.round(x * 10000) / 10000;
const share = (xs: readonly boolean[]): number | null => (xs.length ? r4(xs.filter(Boolean).length / xs.length) : null);
const mean = (xs: readonly number[]): number | null => (xs.length ? r4(xs.reduce((a, b) => a + b, 0) / xs.length) : null);
const EMBED_WAIT_MS = 90 * 60_000;

interface Outcome {
  id: string;
  split: Split;
  answerable: boolean;
  ms: number;
  /** 1-based rank of the first top-10 record from the gold file, or null */
  gold_rank: number | null;
  gold_delivered: boolean;
  answer_delivered: boolean;
  /** the answer string is in some top-10 record's excerpt (retrieved, whether delivered or not) */
  answer_in_top10_excerpts: boolean;
  items: number;
  baseline: { answer_at: [boolean, boolean, boolean]; gold_in_top10_chunks: boolean; nothing_matched: boolean };
}

/** Wait until every item has its vectors and no embedding job runs (the service embeds in the background). */
async function embedded(svc: Service): Promise<Record<string, unknown>> {
  const start = performance.now();
  for (let polls = 0; ; polls++) {
    const st = await svc.get<{ waiting_for_vectors: number; items: unknown; embedder: string | null; indexing: { running: boolean; pending: number } }>(
      '/v1/ingest/status',
    );
    if (st.indexing.pending === 0 && !st.indexing.running) return { items: st.items, embedder: st.embedder, waiting_for_vectors: st.waiting_for_vectors };
    if (performance.now() - start > EMBED_WAIT_MS) throw new Error(`embedding not done after ${EMBED_WAIT_MS / 60_000} min: ${JSON.stringify(st.indexing)}`);
    if (polls % 15 === 0) log(`  embedding: ${st.indexing.pending} vector(s) to compute (${st.waiting_for_vectors} item(s) without a text vector)`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function runCorpus(corpus: Corpus): Promise<Record<string, unknown>> {
  const docs = corpusDocs(corpus);
  const questions = loadLabels(corpus).questions.filter((q) => (splits as string[]).includes(q.split));
  const { root, files } = readMarkdownFiles(docs);
  // a record's file: its provenance path when it carries one, else its document id (as the importer derives it)
  const fileOfId = new Map<string, string>();
  for (const f of files) {
    const id = documentIdOf('wiki', root, f);
    if (id !== undefined) fileOfId.set(id, relative(root, f.path));
  }
  const fileOf = (key: string, sourcePath?: string): string | undefined => {
    if (sourcePath) return relative(root, sourcePath);
    const ref = parseEvidenceKey(key);
    return ref ? fileOfId.get(ref.id) : undefined;
  };

  const chunks: Chunk[] = files.flatMap((f) => chunkMarkdown(f.markdown).map((text) => ({ file: relative(root, f.path), text })));
  const bm25 = new Bm25(chunks);

  const t0 = performance.now();
  const data = freshDataDir(`docs-${corpus}`);
  const imported = await runKioku(['import', 'wiki', docs, '--data', data]);
  const importMs = performance.now() - t0;
  log(`${corpus}: imported ${String(imported['files'])} files; starting kioku serve and waiting for the embedding job`);
  const svc = await startService(data);
  const outcomes: Outcome[] = [];
  let status: Record<string, unknown> = {};
  let embedMs = 0;
  let askMs = 0;
  let namespace = '';
  try {
    const t1 = performance.now();
    status = await embedded(svc);
    embedMs = performance.now() - t1;
    const t2 = performance.now();
    for (const q of questions) {
      const t = performance.now();
      const packet = await svc.post<RecallPacket>('/v1/recall', { query: q.question, limit: 10 });
      const ms = performance.now() - t;
      namespace = packet.namespace;
      outcomes.push(score(q, packet, ms, fileOf, bm25));
    }
    askMs = performance.now() - t2;
  } finally {
    await svc.stop();
    removeDir(data);
  }
  log(`${corpus}: ${questions.length} questions asked in ${Math.round(askMs / 1000)} s`);
  const bySplit = Object.fromEntries(splits.map((s) => [s, summarise(outcomes.filter((o) => o.split === s), s)]));
  return {
    corpus,
    docs_files: files.length,
    baseline_chunks: chunks.length,
    namespace,
    import: { files: imported['files'], added: (imported['added'] as unknown[] | undefined)?.length ?? 0, errors: (imported['errors'] as unknown[] | undefined)?.length ?? 0 },
    ingest_status: status,
    seconds: { import: Math.round(importMs / 1000), embedding_wait: Math.round(embedMs / 1000), questions: Math.round(askMs / 1000) },
    splits: bySplit,
    all: summarise(outcomes, 'all'),
  };
}

function score(q: Label, packet: RecallPacket, ms: number, fileOf: (key: string, source?: string) => string | undefined, bm25: Bm25): Outcome {
  const top = packet.records.slice(0, 10);
  const sourceOf = new Map(top.map((r) => [r.evidence_key, r.provenance.source_path]));
  const gold = q.answerable ? q.gold_file : undefined;
  const goldIdx = gold === undefined ? -1 : top.findIndex((r) => fileOf(r.evidence_key, r.provenance.source_path) === gold);
  const delivered = packet.delivery;
  const hits = bm25.search(q.question, 10);
  return {
    id: q.id,
    split: q.split,
    answerable: q.answerable,
    ms,
    gold_rank: goldIdx >= 0 ? goldIdx + 1 : null,
    gold_delivered: gold !== undefined && delivered.some((d) => fileOf(d.evidence_key, sourceOf.get(d.evidence_key)) === gold),
    answer_delivered: q.answerable && delivered.some((d) => containsAnswer(d.text, q.answer)),
    answer_in_top10_excerpts: q.answerable && top.some((r) => containsAnswer(r.excerpt, q.answer)),
    items: delivered.length,
    baseline: {
      answer_at: [1, 2, 3].map((k) => q.answerable && hits.slice(0, k).some((c) => containsAnswer(c.text, q.answer))) as [boolean, boolean, boolean],
      gold_in_top10_chunks: gold !== undefined && hits.some((c) => c.file === gold),
      nothing_matched: hits.length === 0,
    },
  };
}

/** Baseline answer rate at a fractional number of chunks handed over (linear between top-k points; 0 at k = 0). */
function baselineAt(items: number, at: readonly number[]): number {
  const points = [0, ...at];
  const k = Math.min(Math.max(items, 0), at.length);
  const lo = Math.floor(k);
  const hi = Math.min(lo + 1, at.length);
  return r4((points[lo] as number) + ((points[hi] as number) - (points[lo] as number)) * (k - lo));
}

function summarise(list: readonly Outcome[], split: Split | 'all'): Record<string, unknown> {
  const ans = list.filter((o) => o.answerable);
  const un = list.filter((o) => !o.answerable);
  const items = mean(ans.map((o) => o.items));
  const at = [0, 1, 2].map((k) => share(ans.map((o) => o.baseline.answer_at[k] as boolean)) ?? 0);
  const kioku = {
    answerable: ans.length,
    recall_at_10_gold_file: share(ans.map((o) => o.gold_rank !== null)),
    recall_at_1_gold_file: share(ans.map((o) => o.gold_rank === 1)),
    gold_delivered: share(ans.map((o) => o.gold_delivered)),
    answer_delivered: share(ans.map((o) => o.answer_delivered)),
    answer_in_top10_excerpts: share(ans.map((o) => o.answer_in_top10_excerpts)),
    items_per_question: items,
    unanswerable: un.length,
    quiet_on_unanswerable: share(un.map((o) => o.items === 0)),
    items_on_unanswerable: mean(un.map((o) => o.items)),
    query_ms: percentiles(list.map((o) => o.ms)),
  };
  const baseline = {
    answer_delivered_top1: at[0],
    answer_delivered_top2: at[1],
    answer_delivered_top3: at[2],
    at_kioku_items: items === null ? null : baselineAt(items, at),
    gold_file_in_top10_chunks: share(ans.map((o) => o.baseline.gold_in_top10_chunks)),
    quiet_on_unanswerable: share(un.map((o) => o.baseline.nothing_matched)),
  };
  const goals = {
    answer_delivered_080: (kioku.answer_delivered ?? 0) >= 0.8,
    above_baseline_at_same_items: baseline.at_kioku_items !== null && (kioku.answer_delivered ?? 0) > baseline.at_kioku_items,
    gold_file_top10_095: (kioku.recall_at_10_gold_file ?? 0) >= 0.95,
    items_at_most_2: (items ?? 0) <= 2,
    quiet_075: (kioku.quiet_on_unanswerable ?? 0) >= 0.75,
  };
  return {
    questions: list.length,
    kioku,
    baseline,
    goals,
    // dev only: the misses by id, and each dev question's outcome (held-out questions stay out of view)
    ...(split === 'dev'
      ? {
          missed_dev: ans.filter((o) => !o.answer_delivered).map((o) => o.id),
          loud_dev: un.filter((o) => o.items > 0).map((o) => o.id),
          per_question: list.map(({ id, gold_rank, gold_delivered, answer_delivered, answer_in_top10_excerpts, items, baseline: b }) => ({
            id,
            gold_rank,
            gold_delivered,
            answer_delivered,
            answer_in_top10_excerpts,
            items,
            baseline_top2: b.answer_at[1],
          })),
        }
      : {}),
  };
}

const started = performance.now();
const results: Record<string, unknown>[] = [];
for (const c of corpora) results.push(await runCorpus(c));
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: import.meta.dirname, encoding: 'utf8' }).trim();
} catch {
  // not a git checkout: the figures stand without it
}
const pass = results.every((r) =>
  Object.values(r['splits'] as Record<string, { goals: Record<string, boolean> }>).every((s) => Object.values(s.goals).every(Boolean)),
);
const report = {
  eval: 'docs',
  path: 'kioku import wiki + kioku serve; POST /v1/recall {query, limit: 10} per question in id order, state kept',
  answer_match: 'answer string in the delivered text, whitespace collapsed, backticks and ** removed on both sides, case-sensitive',
  baseline: 'BM25 (k1 1.2, b 0.75) over ≤ 1,500-character paragraph-packed chunks, Kioku src/text tokenize (CJK bigrams)',
  commit,
  splits,
  corpora: results,
  seconds: Math.round((performance.now() - started) / 1000),
  pass,
};

type Summary = { questions: number; kioku: Record<string, unknown> & { query_ms: { p50: number } }; baseline: Record<string, unknown>; missed_dev?: string[] };
const f = (x: unknown): string => (x === null || x === undefined ? '—' : String(x));
const lines = [`Real documentation (issue 30), commit ${commit}: ${splits.join(' + ')} split(s), Kioku through the front door beside BM25 chunks`];
for (const r of results) {
  lines.push(
    `${String(r['corpus'])}: ${String(r['docs_files'])} files, ${String(r['baseline_chunks'])} baseline chunks; import ${f((r['seconds'] as Record<string, number>)['import'])} s, embedding wait ${f((r['seconds'] as Record<string, number>)['embedding_wait'])} s`,
  );
  lines.push(
    `  ${'split'.padEnd(8)} ${'n'.padStart(3)}  ${'gold@10'.padStart(7)} ${'gold dlv'.padStart(8)} ${'ans dlv'.padStart(7)} ${'items'.padStart(5)} ${'quiet'.padStart(5)} ${'p50 ms'.padStart(7)} | BM25 ans top1/2/3 (at same items)`,
  );
  for (const [name, s] of Object.entries(r['splits'] as Record<string, Summary>)) {
    const k = s.kioku;
    const b = s.baseline;
    lines.push(
      `  ${name.padEnd(8)} ${String(s.questions).padStart(3)}  ${f(k['recall_at_10_gold_file']).padStart(7)} ${f(k['gold_delivered']).padStart(8)} ${f(k['answer_delivered']).padStart(7)} ${f(k['items_per_question']).padStart(5)} ${f(k['quiet_on_unanswerable']).padStart(5)} ${String(k.query_ms.p50).padStart(7)} | ${f(b['answer_delivered_top1'])} / ${f(b['answer_delivered_top2'])} / ${f(b['answer_delivered_top3'])} (${f(b['at_kioku_items'])})`,
    );
    if (s.missed_dev?.length) lines.push(`    dev misses (answer not delivered): ${s.missed_dev.join(' ')}`);
  }
}
lines.push(`${pass ? 'PASS' : 'FAIL'} (issue 30 goals: answer delivered ≥ 0.80 and above BM25 at the same items, gold file top 10 ≥ 0.95, ≤ 2.0 items, quiet ≥ 0.75) — ${report.seconds} s`);
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = pass ? 0 : 1;
