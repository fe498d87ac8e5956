// npm run eval:cmrc [-- --json] [--limit N] [--data FILE]
// CMRC 2018 (Chinese) development split: every paragraph stored as a wiki section through
// the real knowledge writes; every question recalled (limit 10) through the real recall
// core with the bundled embedder and the local judge, beside the keyword lane alone as a
// baseline in the same run. Reports recall@1/@10 and MRR@10 of the source paragraph, query
// latency, and what delivery hands over (the source paragraph among the ≤ 3 items or not):
// a held-out check of the judge on Chinese, which it was not fitted on and where the bundled
// English model gives no vector (the judge's cosine-free model applies).
// Reads ../shared/evals/cmrc2018/ at run time; skips cleanly when it is absent.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryLevel } from 'memory-level';
import { defaultProjections, ProjectionRunner, type KeywordProjection } from '../../projections/index.js';
import { createEmbedder } from '../../src/embed/index.js';
import { Knowledge, evidenceKey } from '../../src/knowledge/index.js';
import { EventLog, type LevelStore } from '../../src/log/index.js';
import { LocalJudge, recall, type RecallCore } from '../../src/recall/index.js';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, limit: { type: 'string' }, data: { type: 'string' } } });
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/cmrc2018/cmrc2018-dev.json'));
if (!existsSync(file)) {
  process.stdout.write(`CMRC data not found at ${file}: skipped (see ../shared/evals/README.md)\n`);
  if (values.json) process.stdout.write(`${JSON.stringify({ eval: 'cmrc', skipped: true, reason: 'data not found' })}\n`);
  process.exit(0);
}
const limit = values.limit === undefined ? Infinity : Number(values.limit);
if (!(limit > 0)) {
  process.stderr.write(`--limit must be a positive number, got "${values.limit}"\n`);
  process.exit(2);
}

interface Cmrc {
  data: { paragraphs: { id: string; context: string; qas: { id: string; question: string }[] }[] }[];
}
const data = JSON.parse(readFileSync(file, 'utf8')) as Cmrc;
const paragraphs = data.data.flatMap((a) => a.paragraphs);

const log = await EventLog.open(new MemoryLevel<string, string>() as unknown as LevelStore);
const projections = new ProjectionRunner(log, defaultProjections());
await projections.open();
const knowledge = new Knowledge({ log, projections }, 'eval');
const ns = 'cmrc';
const t0 = performance.now();
for (const p of paragraphs) {
  // one wiki topic per paragraph, one section: the paragraph is the unit being found
  await knowledge.upsertWiki({ ns, id: p.id, markdown: `## 段落\n${p.context}`, title: p.id });
}
const ingestMs = performance.now() - t0;
const keyword = projections.get<KeywordProjection>('keyword');
const core: RecallCore = { log, projections, embedder: createEmbedder(), judge: new LocalJudge() };

const questions = paragraphs.flatMap((p) => p.qas.map((q) => ({ ...q, paragraph: p.id }))).slice(0, limit);
const goldOf = (paragraph: string): string => evidenceKey({ ns, layer: 'wiki', id: paragraph, section: '段落' });

interface Ranking {
  at1: number;
  at10: number;
  rr: number;
  latencies: number[];
  misses: { id: string; question: string }[];
}
const ranking = (): Ranking => ({ at1: 0, at10: 0, rr: 0, latencies: [], misses: [] });
const lane = ranking();
const full = ranking();
const delivery = { questions: 0, delivered: 0, gold: 0, items: 0, gold_items: 0 };
const modes: Record<string, number> = {};
const tally = (r: Ranking, keys: string[], gold: string, q: { id: string; question: string }, ms: number): void => {
  r.latencies.push(ms);
  const rank = keys.indexOf(gold);
  if (rank === 0) r.at1 += 1;
  if (rank >= 0 && rank < 10) {
    r.at10 += 1;
    r.rr += 1 / (rank + 1);
  } else r.misses.push({ id: q.id, question: q.question });
};
for (const q of questions) {
  const gold = goldOf(q.paragraph);
  let t = performance.now();
  const hits = keyword.search(q.question, { namespaces: [ns], limit: 10 });
  tally(
    lane,
    hits.map((h) => h.key),
    gold,
    q,
    performance.now() - t,
  );
  t = performance.now();
  // read-only: one question's verdicts and usage counts must not demote the next one's paragraphs
  const packet = await recall(core, { query: q.question, namespace: ns, limit: 10 }, { readOnly: true });
  tally(
    full,
    packet.records.map((r) => r.evidence_key),
    gold,
    q,
    performance.now() - t,
  );
  modes[packet.retrieval_mode] = (modes[packet.retrieval_mode] ?? 0) + 1;
  delivery.questions += 1;
  if (packet.delivery.length) delivery.delivered += 1;
  if (packet.delivery.some((d) => d.evidence_key === gold)) delivery.gold += 1;
  delivery.items += packet.delivery.length;
  delivery.gold_items += packet.delivery.filter((d) => d.evidence_key === gold).length;
}
const n = questions.length;
const r4 = (x: number): number => Math.round(x * 10000) / 10000;
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 1000) / 1000;
};
const scores = (r: Ranking) => ({
  recall_at_1: r4(r.at1 / n),
  recall_at_10: r4(r.at10 / n),
  mrr_at_10: r4(r.rr / n),
  query_ms: { p50: pct(r.latencies, 0.5), p95: pct(r.latencies, 0.95) },
});
const report = {
  eval: 'cmrc',
  questions: n,
  paragraphs: paragraphs.length,
  ...scores(full),
  goal_recall_at_10: 0.99,
  pass: full.at10 / n >= 0.99,
  keyword_lane: scores(lane),
  retrieval_modes: modes,
  delivery: {
    judge: core.judge.id,
    delivered_share: r4(delivery.delivered / Math.max(1, n)),
    source_paragraph_delivered: r4(delivery.gold / Math.max(1, n)),
    precision: r4(delivery.gold_items / Math.max(1, delivery.items)),
    items_per_question: r4(delivery.items / Math.max(1, n)),
  },
  ingest_ms: Math.round(ingestMs),
  tokenizer: 'latin words (light stem) + CJK bigrams, stop words removed; complete-match-first BM25',
  misses: full.misses.slice(0, 20),
};
process.stdout.write(
  [
    `CMRC 2018 dev: ${n} questions over ${paragraphs.length} paragraphs (recall core: ${core.embedder?.id ?? 'no embedder'}, ${core.judge.id} judge; modes ${JSON.stringify(modes)})`,
    `recall@1  ${report.recall_at_1}  (keyword lane alone ${report.keyword_lane.recall_at_1})`,
    `recall@10 ${report.recall_at_10}  (keyword lane alone ${report.keyword_lane.recall_at_10}; goal ≥ 0.99) ${report.pass ? 'PASS' : 'FAIL'}`,
    `MRR@10    ${report.mrr_at_10}  (keyword lane alone ${report.keyword_lane.mrr_at_10})`,
    `query p50 ${report.query_ms.p50} ms, p95 ${report.query_ms.p95} ms (keyword lane alone p50 ${report.keyword_lane.query_ms.p50} ms)`,
    `delivery: hands over something on ${report.delivery.delivered_share} of questions, the source paragraph on ${report.delivery.source_paragraph_delivered}; ${report.delivery.items_per_question} items per question, ${report.delivery.precision} of them the source`,
  ].join('\n') + '\n',
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
await projections.close();
await log.close();
process.exitCode = report.pass ? 0 : 1;
