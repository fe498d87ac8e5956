// npm run eval:cmrc [-- --json] [--limit N]
// CMRC 2018 (Chinese) development split: every paragraph stored as a wiki section
// through the real knowledge writes; every question searched through the keyword
// projection. Reports recall@1/@10 of the source paragraph and query latency.
// Reads ../shared/evals/cmrc2018/ at run time; skips cleanly when it is absent.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryLevel } from 'memory-level';
import { KeywordProjection, ProjectionRunner, RecordsProjection } from '../../projections/index.js';
import { Knowledge, evidenceKey } from '../../src/knowledge/index.js';
import { EventLog, type LevelStore } from '../../src/log/index.js';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, limit: { type: 'string' }, data: { type: 'string' } } });
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/cmrc2018/cmrc2018-dev.json'));
if (!existsSync(file)) {
  process.stdout.write(`CMRC data not found at ${file}: skipped (see ../shared/evals/README.md)\n`);
  if (values.json) process.stdout.write(`${JSON.stringify({ eval: 'cmrc', skipped: true, reason: 'data not found' })}\n`);
  process.exit(0);
}

interface Cmrc {
  data: { paragraphs: { id: string; context: string; qas: { id: string; question: string }[] }[] }[];
}
const data = JSON.parse(readFileSync(file, 'utf8')) as Cmrc;
const paragraphs = data.data.flatMap((a) => a.paragraphs);

const log = await EventLog.open(new MemoryLevel<string, string>() as unknown as LevelStore);
const runner = new ProjectionRunner(log, [new RecordsProjection(), new KeywordProjection()]);
await runner.open();
const knowledge = new Knowledge({ log, projections: runner }, 'eval');
const ns = 'cmrc';
const t0 = performance.now();
for (const p of paragraphs) {
  // one wiki topic per paragraph, one section: the paragraph is the unit being found
  await knowledge.upsertWiki({ ns, id: p.id, markdown: `## 段落\n${p.context}`, title: p.id });
}
const ingestMs = performance.now() - t0;
const keyword = runner.get<KeywordProjection>('keyword');

const questions = paragraphs.flatMap((p) => p.qas.map((q) => ({ ...q, paragraph: p.id })));
const limit = values.limit ? Number(values.limit) : questions.length;
let at1 = 0;
let at10 = 0;
let rr = 0;
const latencies: number[] = [];
const misses: { id: string; question: string }[] = [];
for (const q of questions.slice(0, limit)) {
  const t = performance.now();
  const hits = keyword.search(q.question, { namespaces: [ns], limit: 10 });
  latencies.push(performance.now() - t);
  const gold = evidenceKey({ ns, layer: 'wiki', id: q.paragraph, section: '段落' });
  const rank = hits.findIndex((h) => h.key === gold);
  if (rank === 0) at1 += 1;
  if (rank >= 0 && rank < 10) at10 += 1;
  else misses.push({ id: q.id, question: q.question });
  if (rank >= 0) rr += 1 / (rank + 1);
}
const n = Math.min(limit, questions.length);
latencies.sort((a, b) => a - b);
const pct = (p: number): number => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0) * 1000) / 1000;
const report = {
  eval: 'cmrc',
  questions: n,
  paragraphs: paragraphs.length,
  recall_at_1: Math.round((at1 / n) * 10000) / 10000,
  recall_at_10: Math.round((at10 / n) * 10000) / 10000,
  mrr_at_10: Math.round((rr / n) * 10000) / 10000,
  goal_recall_at_10: 0.99,
  pass: at10 / n >= 0.99,
  query_ms: { p50: pct(0.5), p95: pct(0.95) },
  ingest_ms: Math.round(ingestMs),
  tokenizer: 'latin words (light stem) + CJK bigrams, stop words removed; complete-match-first BM25',
  misses: misses.slice(0, 20),
};
process.stdout.write(
  [
    `CMRC 2018 dev: ${n} questions over ${paragraphs.length} paragraphs`,
    `recall@1  ${report.recall_at_1}`,
    `recall@10 ${report.recall_at_10} (goal ≥ 0.99) ${report.pass ? 'PASS' : 'FAIL'}`,
    `MRR@10    ${report.mrr_at_10}`,
    `query p50 ${report.query_ms.p50} ms, p95 ${report.query_ms.p95} ms`,
  ].join('\n') + '\n',
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
await runner.close();
await log.close();
process.exitCode = report.pass ? 0 : 1;
