// npm run eval:cmrc [-- --json] [--limit N] [--data FILE] [--orders file,reverse,shuffled] [--contribution]
// CMRC 2018 (Chinese) development split, measured the way users run Kioku: one markdown file
// per article (`# title`, then `## para-N`), `kioku import wiki`, `kioku serve` in its own
// process, then every question in order as `POST /v1/recall {query, limit: 10}` — state kept,
// usage accounting on. Each order (file order, reverse, seeded shuffle) starts from a copy of
// the same imported library. Beside it, in the same run: the read-only in-process recall (no
// accounting) and the keyword lane alone. Headline: recall@10 of the source article through
// HTTP; the source paragraph and what delivery hands over are reported too.
// Reads ../shared/evals/cmrc2018/ at run time; when it is absent the script skips on a
// developer's machine and fails (exit 2) in CI.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { documentKey, evidenceKey } from '../../src/knowledge/index.js';
import { openKioku } from '../../src/kioku.js';
import { createRecallCore, DEFAULT_RECALL_CONFIG, LocalJudge, recall, type RecallPacket } from '../../src/recall/index.js';
import { contributionLines, measureContribution, type ContributionReport } from '../contribution.js';
import { askInOrder, freshDataDir, ORDERS, percentiles, removeDir, runKioku, type Order } from '../service.js';
import { dataMissing } from '../data.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    limit: { type: 'string' },
    data: { type: 'string' },
    orders: { type: 'string', default: 'file,reverse' },
    // per lane: article recall@10 without it and the questions found only thanks to it (read-only, in process)
    contribution: { type: 'boolean', default: false },
  },
});
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/cmrc2018/cmrc2018-dev.json'));
if (!existsSync(file)) dataMissing('cmrc', file, values.json);
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const orders = values.orders.split(',').map((o) => o.trim()) as Order[];
if (!(limit > 0) || orders.length === 0 || orders.some((o) => !ORDERS.includes(o))) {
  process.stderr.write(`usage: --limit must be a positive number; --orders a list of ${ORDERS.join(', ')}\n`);
  process.exit(2);
}

interface Cmrc {
  data: { id?: string; title?: string; paragraphs: { id: string; context: string; qas: { id: string; question: string }[] }[] }[];
}
const data = JSON.parse(readFileSync(file, 'utf8')) as Cmrc;
const ns = 'cmrc';
const articles = data.data.map((a, i) => ({
  id: (a.id ?? `A${i}`).replace(/[^\w.-]+/g, '-'),
  title: a.title ?? a.paragraphs[0]?.id ?? `A${i}`,
  paragraphs: a.paragraphs,
}));
const questions = articles
  .flatMap((a) =>
    a.paragraphs.flatMap((p, i) =>
      p.qas.map((q) => ({
        id: q.id,
        question: q.question,
        article: evidenceKey({ ns, layer: 'wiki', id: a.id }),
        paragraph: evidenceKey({ ns, layer: 'wiki', id: a.id, section: `para-${i + 1}` }),
      })),
    ),
  )
  .slice(0, limit);
type Question = (typeof questions)[number];

// ---- the library, as a user builds it: markdown files and `kioku import wiki` ----
const t0 = performance.now();
const work = freshDataDir('cmrc-md');
const mdDir = join(work, 'wiki');
mkdirSync(mdDir);
for (const a of articles) {
  const body = a.paragraphs.map((p, i) => `## para-${i + 1}\n\n${p.context.trim()}\n`).join('\n');
  writeFileSync(join(mdDir, `${a.id}.md`), `# ${a.title}\n\n${body}`);
}
const base = freshDataDir('cmrc-base');
const imported = await runKioku(['import', 'wiki', mdDir, '--data', base, '--ns', ns]);
const ingestMs = performance.now() - t0;

interface Ranking {
  article: { at1: number; at10: number; rr: number };
  paragraph: { at1: number; at10: number };
  latencies: number[];
  misses: { id: string; question: string; rank: number | null }[];
  delivery: { delivered: number; gold: number; items: number; gold_items: number };
  demoted_in_top10: number;
}
const ranking = (): Ranking => ({
  article: { at1: 0, at10: 0, rr: 0 },
  paragraph: { at1: 0, at10: 0 },
  latencies: [],
  misses: [],
  delivery: { delivered: 0, gold: 0, items: 0, gold_items: 0 },
  demoted_in_top10: 0,
});
function tally(r: Ranking, keys: string[], q: Question, ms: number, packet?: RecallPacket): void {
  r.latencies.push(ms);
  const docRank = keys.findIndex((k) => documentKey(k) === q.article);
  if (docRank === 0) r.article.at1 += 1;
  if (docRank >= 0 && docRank < 10) {
    r.article.at10 += 1;
    r.article.rr += 1 / (docRank + 1);
  } else r.misses.push({ id: q.id, question: q.question, rank: null });
  const paraRank = keys.indexOf(q.paragraph);
  if (paraRank === 0) r.paragraph.at1 += 1;
  if (paraRank >= 0 && paraRank < 10) r.paragraph.at10 += 1;
  if (!packet) return;
  r.demoted_in_top10 += packet.records.filter((x) => x.why.demoted).length;
  const d = r.delivery;
  if (packet.delivery.length) d.delivered += 1;
  if (packet.delivery.some((x) => documentKey(x.evidence_key) === q.article)) d.gold += 1;
  d.items += packet.delivery.length;
  d.gold_items += packet.delivery.filter((x) => documentKey(x.evidence_key) === q.article).length;
}

// ---- read-only, in process: no accounting (the figure this script reported before) ----
const lane = ranking();
const readOnly = ranking();
let contribution: ContributionReport | undefined;
{
  const store = await openKioku({ data: base });
  const core = createRecallCore(store, { judge: new LocalJudge(), backgroundIndexing: false });
  const keyword = store.projections.views.keyword;
  for (const q of questions) {
    let t = performance.now();
    const hits = keyword.search(q.question, { namespaces: [ns], limit: 10 });
    tally(
      lane,
      hits.map((h) => h.key),
      q,
      performance.now() - t,
    );
    t = performance.now();
    const packet = await recall(core, { query: q.question, namespace: ns, limit: 10 }, { readOnly: true });
    tally(
      readOnly,
      packet.records.map((r) => r.evidence_key),
      q,
      performance.now() - t,
      packet,
    );
  }
  if (values.contribution)
    contribution = await measureContribution(
      core,
      core.config ?? DEFAULT_RECALL_CONFIG,
      questions.map((q) => ({
        request: { query: q.question, namespace: ns },
        category: 'cmrc',
        found: (records) => (records.some((r) => documentKey(r.evidence_key) === q.article) ? 1 : 0),
      })),
    );
  await core.close();
  await store.close();
}

// ---- through HTTP with state, one question after another, per order ----
const http: Record<string, Ranking> = {};
for (const order of orders) {
  const r = (http[order] = ranking());
  await askInOrder(base, 'cmrc', order, questions, async (svc, q) => {
    const t = performance.now();
    const packet = await svc.post<RecallPacket>('/v1/recall', { query: q.question, namespace: ns, limit: 10 });
    tally(
      r,
      packet.records.map((x) => x.evidence_key),
      q,
      performance.now() - t,
      packet,
    );
  });
  process.stderr.write(`  ${order} order through HTTP: article recall@10 ${r4(r.article.at10 / questions.length)}\n`);
}
removeDir(base);
removeDir(work);

const n = questions.length;
function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
const scores = (r: Ranking) => ({
  recall_at_1: r4(r.article.at1 / n),
  recall_at_10: r4(r.article.at10 / n),
  mrr_at_10: r4(r.article.rr / n),
  paragraph_recall_at_1: r4(r.paragraph.at1 / n),
  paragraph_recall_at_10: r4(r.paragraph.at10 / n),
  query_ms: percentiles(r.latencies),
});
const deliveryOf = (r: Ranking) => ({
  delivered_share: r4(r.delivery.delivered / Math.max(1, n)),
  source_delivered: r4(r.delivery.gold / Math.max(1, n)),
  precision: r4(r.delivery.gold_items / Math.max(1, r.delivery.items)),
  items_per_question: r4(r.delivery.items / Math.max(1, n)),
});
const GOAL = 0.99;
const headline = http[orders[0] as Order] as Ranking;
const report = {
  eval: 'cmrc',
  path: 'kioku import wiki + kioku serve; POST /v1/recall per question in order, usage accounting on',
  questions: n,
  articles: articles.length,
  ...scores(headline),
  goal_recall_at_10: GOAL,
  pass: orders.every((o) => (http[o] as Ranking).article.at10 / n >= GOAL),
  orders: Object.fromEntries(
    orders.map((o) => {
      const r = http[o] as Ranking;
      return [o, { ...scores(r), demoted_in_top10: r.demoted_in_top10, delivery: deliveryOf(r), misses: r.misses.slice(0, 10) }];
    }),
  ),
  read_only_in_process: { ...scores(readOnly), delivery: deliveryOf(readOnly) },
  keyword_lane: scores(lane),
  ...(contribution ? { channel_contribution: contribution } : {}),
  import: { files: imported['files'], added: (imported['added'] as unknown[] | undefined)?.length ?? 0 },
  ingest_ms: Math.round(ingestMs),
  judge: 'local',
};
const line = (name: string, s: ReturnType<typeof scores>): string =>
  `${name.padEnd(30)} R@1 ${String(s.recall_at_1).padEnd(6)} R@10 ${String(s.recall_at_10).padEnd(6)} MRR ${String(s.mrr_at_10).padEnd(6)} paragraph R@10 ${String(s.paragraph_recall_at_10).padEnd(6)} p50 ${s.query_ms.p50} ms`;
process.stdout.write(
  [
    `CMRC 2018 dev: ${n} questions over ${articles.length} articles (source article in the top 10; goal ≥ ${GOAL} in every order)`,
    ...orders.map((o) => line(`HTTP with state, ${o} order`, scores(http[o] as Ranking))),
    line('read-only, in process', scores(readOnly)),
    line('keyword lane alone', scores(lane)),
    `delivery (${orders[0]} order): something on ${report.orders[orders[0] as string]?.delivery.delivered_share} of questions, the source article on ${report.orders[orders[0] as string]?.delivery.source_delivered}; ${report.orders[orders[0] as string]?.delivery.items_per_question} items per question, ${report.orders[orders[0] as string]?.delivery.precision} of them from the source`,
    ...(contribution ? contributionLines(contribution) : []),
    report.pass ? 'PASS' : 'FAIL',
  ].join('\n') + '\n',
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = report.pass ? 0 : 1;
