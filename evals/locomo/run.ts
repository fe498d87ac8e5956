// npm run eval:locomo [-- --json] [--conversations N] [--only ID,ID] [--orders file,reverse,shuffled] [--data FILE] [--reuse-library] [--delivery] [--keep-delivery DIR] [--delivery-only] [--contribution] [--plain]
// LoCoMo development split, measured the way users run Kioku: `kioku serve` in its own
// process; each conversation's turns written through `POST /v1/memories` as a user would
// write a chat history (id = LoCoMo's own turn id such as "D1:3", kind event, text
// "Speaker: utterance", occurred_at from the session date, session_id per session), the
// write waiting for its vectors; then every question in order as `POST /v1/recall
// {query, namespace, limit: 10}` — state kept, usage accounting on. Each order starts from a
// copy of the same library. Beside it in the same run: BM25 (the keyword lane alone) and
// the read-only in-process recall over the same store. Headline: recall@10 of the gold turns
// over categories 1–4, file order. Per-conversation figures give leave-one-conversation-out
// for anything tuned. Reads ../shared/evals/locomo/ at run time (exit 2 in CI when absent).
// The server's embedder is the configured one (KIOKU_EMBEDDER, default the bundled model).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openKioku } from '../../src/kioku.js';
import { createRecallCore, DEFAULT_RECALL_CONFIG, recall, type RecallPacket } from '../../src/recall/index.js';
import { dataMissing } from '../data.js';
import { canonical, namespaceOf, questionsOf, score, sessionTime, turnIdsOf, zero, type Sample, type Scores, type Turn } from './data.js';
import { contributionLines, measureContribution } from '../contribution.js';
import { measureDelivery } from './delivery.js';
import { askInOrder, freshDataDir, ORDERS, percentiles, removeDir, startService, type Order } from '../service.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    conversations: { type: 'string' },
    orders: { type: 'string', default: 'file,reverse' },
    data: { type: 'string' },
    // keep the written and embedded library in the OS temp dir between runs (it holds no recall history)
    'reuse-library': { type: 'boolean', default: false },
    // also ask every question through POST /v1/turns/start and score what is delivered (delivery.ts)
    delivery: { type: 'boolean', default: false },
    // run the delivery in this directory and keep it: its log holds every recorded turn (evals/locomo/delivery-replay.ts replays them)
    'keep-delivery': { type: 'string' },
    // only the delivery (implies --delivery): no BM25, in-process or /v1/recall pass
    'delivery-only': { type: 'boolean', default: false },
    // per lane: recall@10 without it and the questions found only thanks to it, read-only in process (contribution.ts)
    contribution: { type: 'boolean', default: false },
    // the plain-memory write shape (issue 35): the same turns without session_id, as an agent writes them through write_memory
    plain: { type: 'boolean', default: false },
    // only these conversations (sample ids such as conv-26, comma-separated): a subset run, reported as one
    only: { type: 'string' },
  },
});
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/locomo/locomo-dev.json'));
if (!existsSync(file)) dataMissing('locomo', file, values.json);
const deliveryOnly = values['delivery-only'];
const orders = (deliveryOnly ? 'file' : values.orders).split(',').map((o) => o.trim()) as Order[];
if (orders.length === 0 || orders.some((o) => !ORDERS.includes(o)) || (values.conversations !== undefined && !(Number(values.conversations) > 0))) {
  process.stderr.write(`usage: --orders takes a list of ${ORDERS.join(', ')}; --conversations a positive number\n`);
  process.exit(2);
}

const raw = readFileSync(file, 'utf8');
const only = values.only?.split(',').map((x) => x.trim());
const samples = (JSON.parse(raw) as Sample[])
  .filter((s) => !only || only.includes(String(s.sample_id)))
  .slice(0, values.conversations ? Number(values.conversations) : undefined);
if (samples.length === 0) {
  process.stderr.write(`no conversation matches --only ${values.only}\n`);
  process.exit(2);
}
// plain memories get window vectors at write time under the service's neighbour rule (KIOKU_PLAIN_SESSION_GAP_MIN, and since v2 the reply rule): a library per gap and rule
const writeShape = values.plain ? `plain-v2:gap=${process.env['KIOKU_PLAIN_SESSION_GAP_MIN'] ?? ''}` : 'write-shape-v1';

let malformedEvidence = 0;
const nsOf = namespaceOf;

// ---- the library, written through the public API ----
const started = performance.now();
const embedderKind = process.env['KIOKU_EMBEDDER'] ?? 'use-lite';
const libraryKey = createHash('sha256')
  .update(raw)
  .update(`${only ? samples.map((x) => x.sample_id).join(',') : samples.length}:${embedderKind}:${writeShape}`)
  .digest('hex')
  .slice(0, 16);
const kept = join(tmpdir(), `kioku-eval-locomo-library-${libraryKey}`);
const turns = samples.reduce((n, s) => n + turnIdsOf(s).size, 0);
let base: string;
let writes = { requests: 0, seconds: 0, embedded_wait_seconds: 0 };
if (values['reuse-library'] && existsSync(join(kept, 'log'))) {
  base = kept;
  process.stderr.write(`reusing the library written earlier at ${kept}\n`);
} else {
  base = values['reuse-library'] ? kept : freshDataDir('locomo-base');
  const svc = await startService(base);
  try {
    const t = performance.now();
    let requests = 0;
    for (const s of samples) {
      const ns = nsOf(s);
      const memories: Record<string, unknown>[] = [];
      for (let n = 1; s.conversation[`session_${n}`]; n++) {
        const at = sessionTime(String(s.conversation[`session_${n}_date_time`] ?? ''));
        (s.conversation[`session_${n}`] as Turn[]).forEach((turn, i) => {
          const text = turn.blip_caption ? `${turn.text} [shares a photo: ${turn.blip_caption}]` : turn.text;
          memories.push({
            id: canonical(turn.dia_id) ?? turn.dia_id,
            kind: 'event',
            text: `${turn.speaker}: ${text}`,
            occurred_at: new Date(at + i * 1000).toISOString(),
            ...(values.plain ? {} : { session_id: `${ns}-s${n}` }),
          });
        });
      }
      // batches of 200, back to back, as a chat-history import would send them
      for (let i = 0; i < memories.length; i += 200) {
        await svc.post('/v1/memories', { namespace: ns, memories: memories.slice(i, i + 200) });
        requests += 1;
      }
    }
    const wrote = performance.now();
    // then wait until every item has its vectors (the service embeds in the background)
    for (let polls = 0; ; polls++) {
      const st = await svc.get<{ waiting_for_vectors: number; indexing: { running: boolean; pending: number } }>('/v1/ingest/status');
      if (st.indexing.pending === 0 && !st.indexing.running) break;
      if (polls % 15 === 0)
        process.stderr.write(`  embedding: ${st.indexing.pending} vector(s) to compute (${st.waiting_for_vectors} item(s) without a text vector)\n`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    writes = { requests, seconds: round((wrote - t) / 1000), embedded_wait_seconds: round((performance.now() - wrote) / 1000) };
  } finally {
    await svc.stop();
  }
}
const ingestSeconds = (performance.now() - started) / 1000;

// ---- scoring ----
interface Run {
  overall: Scores;
  byCategory: Record<string, Scores>;
  byConversation: Record<string, Scores>;
  latencies: number[];
  demoted_in_top10: number;
}
const run = (): Run => ({ overall: zero(), byCategory: {}, byConversation: {}, latencies: [], demoted_in_top10: 0 });
function tally(r: Run, ns: string, category: number, ranked: string[], gold: string[], ms: number): void {
  const sc = score(ranked, gold);
  r.latencies.push(ms);
  const cat = String(category);
  const buckets = [(r.byCategory[cat] ??= zero())];
  if (category !== 5) buckets.push(r.overall, (r.byConversation[ns] ??= zero()));
  for (const b of buckets) {
    b.n += 1;
    b.r5 += sc.r5;
    b.r10 += sc.r10;
    b.mrr += sc.mrr;
  }
}
const questions = questionsOf(samples, () => void (malformedEvidence += 1));

// ---- BM25 and the read-only recall, in process over the same store ----
const bm25 = run();
const readOnly = run();
let contribution: Awaited<ReturnType<typeof measureContribution>> | undefined;
if (!deliveryOnly) {
  const store = await openKioku({ data: base });
  const core = createRecallCore(store, { backgroundIndexing: false });
  const keyword = store.projections.views.keyword;
  for (const q of questions) {
    let t = performance.now();
    const hits = keyword.search(q.question, { namespaces: [q.ns], limit: 10 });
    const idOf = (key: string): string => store.projections.views.records.get(key)?.id ?? key;
    tally(
      bm25,
      q.ns,
      q.category,
      hits.map((h) => idOf(h.key)),
      q.gold,
      performance.now() - t,
    );
    t = performance.now();
    const packet = await recall(core, { query: q.question, namespace: q.ns, limit: 10 }, { readOnly: true });
    tally(
      readOnly,
      q.ns,
      q.category,
      packet.records.map((x) => x.id),
      q.gold,
      performance.now() - t,
    );
  }
  if (values.contribution)
    contribution = await measureContribution(
      core,
      core.config ?? DEFAULT_RECALL_CONFIG,
      // categories 1–4, as the headline; found = the share of its gold turns in the top 10
      questions
        .filter((q) => q.category !== 5)
        .map((q) => ({ request: { query: q.question, namespace: q.ns }, category: String(q.category), found: (records) => score(records.map((r) => r.id), q.gold).r10 })),
    );
  await core.close();
  await store.close();
}

// ---- through HTTP with state, per order ----
const http: Record<string, Run> = {};
const asked = deliveryOnly ? [] : orders;
for (const order of asked) {
  const r = (http[order] = run());
  await askInOrder(base, 'locomo', order, questions, async (svc, q) => {
    const t = performance.now();
    const packet = await svc.post<RecallPacket>('/v1/recall', { query: q.question, namespace: q.ns, limit: 10 });
    r.demoted_in_top10 += packet.records.filter((x) => x.why.demoted).length;
    tally(
      r,
      q.ns,
      q.category,
      packet.records.map((x) => x.id),
      q.gold,
      performance.now() - t,
    );
  });
  process.stderr.write(`  ${order} order through HTTP: R@10 ${round(r.overall.r10 / r.overall.n, 4)}\n`);
}
const delivery = values.delivery || deliveryOnly ? await measureDelivery(base, questions, values['keep-delivery']) : undefined;
if (!values['reuse-library']) removeDir(base);

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
const avg = (x: Scores) => ({ n: x.n, r5: round(x.r5 / x.n, 4), r10: round(x.r10 / x.n, 4), mrr: round(x.mrr / x.n, 4) });
const summary = (r: Run) => ({
  overall: avg(r.overall),
  by_category_r10: Object.fromEntries(
    Object.entries(r.byCategory)
      .sort()
      .map(([k, x]) => [k, round(x.r10 / x.n, 4)]),
  ),
  by_conversation_r10: Object.fromEntries(
    Object.entries(r.byConversation)
      .sort()
      .map(([k, x]) => [k, round(x.r10 / x.n, 4)]),
  ),
  query_ms: percentiles(r.latencies),
});
const GOAL = 0.75;
const headline = http[orders[0] as Order] ?? run();
const report = {
  eval: 'locomo',
  path: `kioku serve; POST /v1/memories (LoCoMo turn ids, "Speaker: text", occurred_at${values.plain ? ', no session_id: plain memories' : ', session_id'}); POST /v1/recall per question in order, usage accounting on`,
  write_shape: values.plain ? 'plain' : 'session',
  plain_session_gap_min: process.env['KIOKU_PLAIN_SESSION_GAP_MIN'] ?? 'default',
  conversations: samples.length,
  ...(only ? { subset: samples.map((x) => x.sample_id) } : {}),
  turns,
  questions: questions.length,
  embedder: embedderKind,
  note: 'overall = categories 1-4 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop); category 5 (adversarial) reported apart',
  recall_at_10: avg(headline.overall).r10,
  goal_recall_at_10: GOAL,
  pass: !deliveryOnly && asked.every((o) => (http[o] as Run).overall.r10 / (http[o] as Run).overall.n >= GOAL),
  orders: Object.fromEntries(asked.map((o) => [o, { ...summary(http[o] as Run), demoted_in_top10: (http[o] as Run).demoted_in_top10 }])),
  read_only_in_process: summary(readOnly),
  bm25: summary(bm25),
  malformed_evidence_ids: malformedEvidence,
  writes,
  ingest_seconds: Math.round(ingestSeconds),
  ...(delivery ? { delivery } : {}),
  ...(contribution ? { channel_contribution: contribution } : {}),
};
const line = (name: string, r: Run): string => {
  const s = summary(r);
  const c = (k: string): string => String(s.by_category_r10[k] ?? '-');
  return `${name.padEnd(30)} R@5 ${String(s.overall.r5).padEnd(6)} R@10 ${String(s.overall.r10).padEnd(6)} MRR ${String(s.overall.mrr).padEnd(6)} by category R@10 ${c('1')}/${c('2')}/${c('3')}/${c('4')} | ${c('5')}  p50 ${s.query_ms.p50} ms`;
};
process.stdout.write(
  [
    `LoCoMo dev: ${samples.length} conversations, ${turns} turns written through POST /v1/memories, ${questions.length} questions (embedder ${embedderKind}; goal R@10 ≥ ${GOAL} in every order)`,
    ...asked.map((o) => line(`HTTP with state, ${o} order`, http[o] as Run)),
    ...(deliveryOnly ? [] : [line('read-only, in process', readOnly), line('BM25 (keyword lane alone)', bm25)]),
    ...(delivery
      ? [
          `through POST /v1/turns/start (categories 1–4): gold delivered ${delivery.overall.gold_delivered}, items/question ${delivery.overall.items_per_question}, gold share ${delivery.overall.gold_share}; by category ${Object.entries(delivery.by_category)
            .map(([c, r]) => `${c}: ${r.gold_delivered}/${r.items_per_question}/${r.gold_share}`)
            .join('  ')} (delivered/items/share)`,
          `  gold in a delivered item's text (its own turn or its window's, turn_window): ${delivery.overall.gold_delivered_in_window} (${delivery.overall.chars_per_question} characters a question); by category ${Object.entries(delivery.by_category)
            .map(([c, r]) => `${c}: ${r.gold_delivered_in_window}`)
            .join('  ')}`,
          `  gold among the judged: ${delivery.overall.gold_judged}; no gold delivered, why (the best-judged gold turn): ${Object.entries(delivery.by_category)
            .map(([c, r]) => `${c}: ${JSON.stringify(r.missed)}`)
            .join('  ')}`,
        ]
      : []),
    ...(contribution ? contributionLines(contribution) : []),
    report.pass ? 'PASS' : 'FAIL',
  ].join('\n') + '\n',
);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = report.pass ? 0 : 1;
