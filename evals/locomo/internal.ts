// npm run eval:locomo:internal [-- --json] [--embedder use-lite|hash] [--compare] [--judge-check] [--conversations N]
// The in-process ablation harness (read-only, no usage accounting): the headline figure comes
// from `npm run eval:locomo` (evals/locomo/run.ts), through a real server with state.
// LoCoMo development split: every dialogue turn stored as a trace of its conversation
// (one namespace per conversation, the session date as occurred_at, the speaker as an
// entity), every question recalled with limit 10 through the real recall core.
// Reports recall@5, recall@10 and MRR of the gold evidence turns per category, beside
// a plain BM25 baseline computed in the same run. Reads ../shared/evals/locomo/ at run
// time; skips cleanly when it is absent. Never tune on anything but this dev split.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryLevel } from 'memory-level';
import { dataMissing } from '../data.js';
import { namespaceOf, score, sessionTime, zero, type Sample, type Scores, type Turn } from './data.js';
import { defaultProjections, ProjectionRunner } from '../../projections/index.js';
import { CachedEmbedder, createEmbedder, type Embedder, type EmbedderKind } from '../../src/embed/index.js';
import type { AppendInput } from '../../src/events/index.js';
import { EmbeddingIndexer } from '../../src/indexer/embedding-job.js';
import { EventLog, type LevelStore } from '../../src/log/index.js';
import {
  DEFAULT_RECALL_CONFIG,
  DisabledJudge,
  LocalJudge,
  judgeFeatures,
  recall,
  type JudgeFeatures,
  type JudgeRequest,
  type JudgeResult,
  type RecallConfig,
} from '../../src/recall/index.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    embedder: { type: 'string', default: 'use-lite' },
    compare: { type: 'boolean', default: false },
    'judge-check': { type: 'boolean', default: false },
    // with --judge-check: write every judged candidate's signals and gold label (for eval:fit-judge --with-locomo)
    'judge-rows': { type: 'string' },
    grid: { type: 'boolean', default: false },
    'window-radius': { type: 'string' },
    'grid-spec': { type: 'string' },
    conversations: { type: 'string' },
    data: { type: 'string' },
  },
});
const file = resolve(values.data ?? resolve(import.meta.dirname, '../../../shared/evals/locomo/locomo-dev.json'));
if (!existsSync(file)) dataMissing('locomo', file, values.json);

const samples = (JSON.parse(readFileSync(file, 'utf8')) as Sample[]).slice(0, values.conversations ? Number(values.conversations) : undefined);

const turnId = (dia: string): string => dia.replace(/[:\s#]+/g, '-');
/** Evidence ids as written ("D8:6; D9:17", "D:11:26", "D30:05") → normalised turn ids; malformed ones counted. */
let malformedEvidence = 0;
let countingMalformed = true;
function goldIds(evidence: string[] | undefined): string[] {
  const out: string[] = [];
  for (const raw of evidence ?? []) {
    for (const part of raw.split(/[;,]\s*/)) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(part.trim());
      if (m) out.push(`D${m[1]}-${m[2]}`);
      else if (countingMalformed) malformedEvidence += 1;
    }
  }
  return out;
}

// ---- ingest ----
const started = performance.now();
const log = await EventLog.open(new MemoryLevel<string, string>() as unknown as LevelStore);
const projections = new ProjectionRunner(log, defaultProjections());
await projections.open();
const base = createEmbedder({ kind: values.embedder as EmbedderKind });
// the bundled model takes minutes over 2,760 turns: its vectors are cached between runs; the hashed one is instant
const embedder: Embedder = values.embedder === 'hash' ? base : new CachedEmbedder(base, join(tmpdir(), `kioku-locomo-embeddings-${base.id}.msgpack`));
const known = new Map<string, Set<string>>();
for (const s of samples) {
  const ns = namespaceOf(s);
  const ids = new Set<string>();
  const events: AppendInput[] = [];
  for (let n = 1; ; n++) {
    const turns = s.conversation[`session_${n}`] as Turn[] | undefined;
    if (!turns) break;
    const at = sessionTime(String(s.conversation[`session_${n}_date_time`] ?? ''));
    turns.forEach((t, i) => {
      const id = turnId(t.dia_id);
      ids.add(id);
      const text = t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text;
      events.push({
        type: 'turn.started',
        ns,
        actor: 'locomo',
        data: { turn_id: id, session_id: `${ns}-s${n}`, query: text, speaker: t.speaker, occurred_at: new Date(at + i * 1000).toISOString() },
      });
    });
  }
  known.set(ns, ids);
  for (let i = 0; i < events.length; i += 500) await log.appendAll(events.slice(i, i + 500));
}
await projections.waitFor(log.head().seq);
process.stderr.write(`ingested ${log.head().seq} turns; embedding with ${embedder.id}…\n`);
const job = await new EmbeddingIndexer({ log, projections }, embedder, {
  batchSize: 64,
  ...(values['window-radius'] ? { windowRadius: Number(values['window-radius']) } : {}),
}).run((d, t) => {
  if (d % 640 === 0) process.stderr.write(`  embedded ${d}/${t}\n`);
});
const ingestSeconds = (performance.now() - started) / 1000;

// ---- evaluate ----

interface Variant {
  name: string;
  config?: RecallConfig;
  bm25?: boolean;
}
const cfg = (over: Partial<RecallConfig>): RecallConfig => ({ ...DEFAULT_RECALL_CONFIG, ...over });
/** The ablation's starting point: one query, no cue boosts, no neighbours. */
const bare = (over: Partial<RecallConfig>): RecallConfig =>
  cfg({ query_weights: { utterance: 1 }, cue_weights: { entity: 0, time: 0 }, neighbour_weight: 0, ...over });
const variants: Variant[] = values.compare
  ? [
      { name: 'bm25 (keyword lane alone, stop words removed)', bm25: true },
      {
        name: 'rrf k=60, keyword + vector, equal weights',
        config: bare({ fusion: 'rrf', channel_weights: { keyword: 1, vector: 1 } }),
      },
      {
        name: 'weighted min-max, keyword + vector',
        config: bare({ channel_weights: { keyword: 1, vector: 0.4 } }),
      },
      {
        name: '+ window lane',
        config: bare({ channel_weights: { keyword: 1, vector: 0.4, window: 0.6 } }),
      },
      { name: '+ speaker and date cues', config: cfg({ neighbour_weight: 0 }) },
      { name: '+ session neighbours (default)', config: DEFAULT_RECALL_CONFIG },
    ]
  : values.grid
    ? gridVariants()
    : [
        { name: 'bm25 baseline', bm25: true },
        { name: 'kioku default', config: DEFAULT_RECALL_CONFIG },
      ];

/**
 * A small grid around the default, for tuning on this dev split (leave-one-conversation-out
 * is reported beside it). --grid-spec '{"vector":[0.6],"window":[0.6],"entity":[0.6],"time":[0.6],"neighbour":[0.3]}' overrides the axes.
 */
function gridVariants(): Variant[] {
  const spec = {
    vector: [0.6, 0.9, 1.2],
    window: [0.3, 0.6, 0.9],
    entity: [0.2, 0.4, 0.6],
    time: [0.2, 0.4, 0.6],
    keyword: [1],
    neighbour: [DEFAULT_RECALL_CONFIG.neighbour_weight],
    ...(values['grid-spec'] ? (JSON.parse(values['grid-spec']) as Record<string, number[]>) : {}),
  };
  const out: Variant[] = [];
  for (const keyword of spec.keyword)
    for (const vector of spec.vector)
      for (const window of spec.window)
        for (const entity of spec.entity)
          for (const time of spec.time)
            for (const neighbour of spec.neighbour)
              out.push({
                name: `keyword ${keyword} vector ${vector} window ${window} entity ${entity} time ${time} neighbour ${neighbour}`,
                config: cfg({
                  channel_weights: { ...DEFAULT_RECALL_CONFIG.channel_weights, keyword, vector, window },
                  cue_weights: { entity, time },
                  neighbour_weight: neighbour,
                }),
              });
  return out;
}

const judge = new DisabledJudge();
const keyword = projections.views.keyword;
const results: {
  name: string;
  overall: Scores;
  byCategory: Record<string, Scores>;
  byConversation: Record<string, Scores>;
  latency: { p50: number; p95: number };
}[] = [];
const judgeRows: { verdict: number; y: number }[] = [];
const judgeTurns: { delivered: boolean; gold: boolean }[] = [];
/** The local judge, keeping the last request so its signals can be written out with gold labels. */
class KeepingLocalJudge extends LocalJudge {
  last: JudgeRequest | undefined;
  override async judge(request: JudgeRequest): Promise<JudgeResult> {
    this.last = request;
    return super.judge(request);
  }
}
const judgeCheck = values['judge-check'] ? new KeepingLocalJudge() : undefined;
const judgeFeatureRows: (JudgeFeatures & { conversation: string; y: number })[] = [];
for (const v of variants) {
  const byCategory: Record<string, Scores> = {};
  const byConversation: Record<string, Scores> = {};
  const overall = zero();
  const lat: number[] = [];
  for (const s of samples) {
    const ns = namespaceOf(s);
    for (const q of s.qa) {
      const gold = goldIds(q.evidence).filter((g) => known.get(ns)?.has(g));
      if (gold.length === 0) continue;
      const t = performance.now();
      let ranked: string[];
      if (v.bm25) {
        ranked = keyword.search(q.question, { namespaces: [ns], layers: ['trace'], limit: 10 }).map((h) => h.key.slice(h.key.lastIndexOf(':') + 1));
      } else {
        const packet = await recall(
          { log, projections, embedder, judge, config: v.config as RecallConfig },
          { query: q.question, namespace: ns, limit: 10, options: { cards: false, wiki: false, memories: false, notes: false, assets: false } },
        );
        ranked = packet.records.map((r) => r.id);
        if (judgeCheck && v.config === DEFAULT_RECALL_CONFIG && q.category !== 5) {
          // the local judge, fitted on the offline cases, never saw LoCoMo: a held-out check
          const judged = await recall(
            { log, projections, embedder, judge: judgeCheck, config: v.config as RecallConfig },
            { query: q.question, namespace: ns, limit: 20, options: { cards: false, wiki: false, memories: false, notes: false, assets: false } },
            { readOnly: true },
          );
          for (const r of judged.records) if (typeof r.why.verdict === 'number') judgeRows.push({ verdict: r.why.verdict, y: gold.includes(r.id) ? 1 : 0 });
          if (values['judge-rows'] && judgeCheck.last) {
            const idOf = new Map(judged.records.map((r) => [r.evidence_key, r.id]));
            for (const [key, f] of judgeFeatures(judgeCheck.last))
              judgeFeatureRows.push({ ...f, conversation: ns, y: gold.includes(idOf.get(key) ?? '') ? 1 : 0 });
          }
          // what delivery would hand over: the one history slot, the best verdict at or above 0.75
          const top = judged.delivery[0];
          const topId = top ? judged.records.find((r) => r.evidence_key === top.evidence_key)?.id : undefined;
          judgeTurns.push({ delivered: Boolean(top), gold: topId !== undefined && gold.includes(topId) });
        }
      }
      lat.push(performance.now() - t);
      const sc = score(ranked, gold);
      const cat = q.category === 5 ? '5' : String(q.category);
      const bucket = (byCategory[cat] ??= zero());
      const conv = (byConversation[ns] ??= zero());
      for (const b of q.category === 5 ? [bucket] : [bucket, overall, conv]) {
        b.n += 1;
        b.r5 += sc.r5;
        b.r10 += sc.r10;
        b.mrr += sc.mrr;
      }
    }
  }
  const avg = (x: Scores): Scores => ({ n: x.n, r5: r4(x.r5 / x.n), r10: r4(x.r10 / x.n), mrr: r4(x.mrr / x.n) });
  lat.sort((a, b) => a - b);
  results.push({
    name: v.name,
    overall: avg(overall),
    byCategory: Object.fromEntries(
      Object.entries(byCategory)
        .sort()
        .map(([k, x]) => [k, avg(x)]),
    ),
    byConversation: Object.fromEntries(
      Object.entries(byConversation)
        .sort()
        .map(([k, x]) => [k, { ...x }]),
    ),
    latency: { p50: r4(lat[Math.floor(lat.length / 2)] ?? 0), p95: r4(lat[Math.floor(lat.length * 0.95)] ?? 0) },
  });
  process.stderr.write(`  ${v.name}: R@10 ${results.at(-1)?.overall.r10}\n`);
  countingMalformed = false;
}

// Leave-one-conversation-out: choose the best variant on four conversations, score it on the fifth.
let leaveOneOut: { r10: number; picks: Record<string, string> } | undefined;
const tuned = results.filter((r) => !r.name.startsWith('bm25'));
if (values.grid && tuned.length > 1) {
  let hits = 0;
  let n = 0;
  const picks: Record<string, string> = {};
  for (const held of Object.keys(tuned[0]?.byConversation ?? {})) {
    const trainScore = (r: (typeof tuned)[number]): number => {
      let s = 0;
      let c = 0;
      for (const [conv, x] of Object.entries(r.byConversation)) if (conv !== held) ((s += x.r10), (c += x.n));
      return s / c;
    };
    const best = [...tuned].sort((a, b) => trainScore(b) - trainScore(a))[0] as (typeof tuned)[number];
    picks[held] = best.name;
    hits += best.byConversation[held]?.r10 ?? 0;
    n += best.byConversation[held]?.n ?? 0;
  }
  leaveOneOut = { r10: r4(hits / n), picks };
}

// How the local judge separates gold turns from the rest at the delivery floors.
let judgeReport:
  | {
      candidates: number;
      gold: number;
      floors: Record<string, { passed: number; precision: number; recall: number }>;
      questions: number;
      delivered_share: number;
      delivered_gold_precision: number;
    }
  | undefined;
if (judgeRows.length) {
  const gold = judgeRows.filter((r) => r.y === 1).length;
  const at = (floor: number): { passed: number; precision: number; recall: number } => {
    const passed = judgeRows.filter((r) => r.verdict >= floor);
    const tp = passed.filter((r) => r.y === 1).length;
    return { passed: passed.length, precision: r4(tp / Math.max(1, passed.length)), recall: r4(tp / Math.max(1, gold)) };
  };
  const delivered = judgeTurns.filter((t) => t.delivered);
  judgeReport = {
    candidates: judgeRows.length,
    gold,
    floors: { '0.5': at(0.5), '0.75': at(0.75) },
    questions: judgeTurns.length,
    delivered_share: r4(delivered.length / Math.max(1, judgeTurns.length)),
    delivered_gold_precision: r4(delivered.filter((t) => t.gold).length / Math.max(1, delivered.length)),
  };
}

if (embedder instanceof CachedEmbedder) embedder.save();
await embedder.close();

const report = {
  eval: 'locomo',
  conversations: samples.length,
  turns: [...known.values()].reduce((n, s) => n + s.size, 0),
  embedder: embedder.id,
  embedding_job: { status: job.status, embedded: job.embedded, skipped_cjk: job.skipped_cjk },
  malformed_evidence_ids: malformedEvidence,
  ingest_seconds: Math.round(ingestSeconds),
  note: 'overall = categories 1-4 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop); category 5 (adversarial) reported apart',
  goal_recall_at_10: 0.75,
  variants: results.map(({ byConversation, ...r }) => (values.grid ? r : { ...r, byConversation })),
  ...(leaveOneOut ? { leave_one_conversation_out_r10: leaveOneOut } : {}),
  ...(judgeReport ? { local_judge: judgeReport } : {}),
};
const lines = [`LoCoMo dev: ${report.conversations} conversations, ${report.turns} turns, embedder ${report.embedder}`];
lines.push(`${'variant'.padEnd(48)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'MRR'.padStart(6)}  by category R@10 (1/2/3/4 | 5)   p50 ms`);
for (const r of [...results].sort((a, b) => (values.grid ? b.overall.r10 - a.overall.r10 : 0))) {
  const c = (k: string): string => String(r.byCategory[k]?.r10 ?? '-');
  lines.push(
    `${r.name.padEnd(48)} ${String(r.overall.r5).padStart(6)} ${String(r.overall.r10).padStart(6)} ${String(r.overall.mrr).padStart(6)}  ${c('1')}/${c('2')}/${c('3')}/${c('4')} | ${c('5')}   ${r.latency.p50}`,
  );
}
if (leaveOneOut) lines.push(`leave-one-conversation-out R@10 (best variant picked on the other four each time): ${leaveOneOut.r10}`);
if (judgeReport) {
  const f = judgeReport.floors;
  lines.push(
    `local judge (held out: fitted on the offline cases) over ${judgeReport.candidates} judged candidates, ${judgeReport.gold} gold: at 0.5 ${f['0.5']?.passed} pass, precision ${f['0.5']?.precision}, recall ${f['0.5']?.recall}; at the history floor 0.75 ${f['0.75']?.passed} pass, precision ${f['0.75']?.precision}, recall ${f['0.75']?.recall}; delivery hands a turn on ${judgeReport.delivered_share} of questions, a gold one ${judgeReport.delivered_gold_precision} of the time`,
  );
}
if (values['judge-rows']) {
  writeFileSync(values['judge-rows'], JSON.stringify(judgeFeatureRows));
  lines.push(`judge signals of ${judgeFeatureRows.length} candidates written to ${values['judge-rows']}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
await projections.close();
await log.close();

function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
