// npm run bench:recall -- --records 100000 [--json] [--turns 300] [--no-model] [--org [--members 50] [--spaces 20]] [--graph-weight W] [--sealing [--rounds 3]]
// --graph-weight (issue 35): the graph channel's weight for the turns (default 0, the shipped default: the channel does not run).
// --org (issue 34): the namespace is an org of --members members in a tree of --spaces spaces; the
// records are owned by its members with audiences mixed (own only, a space, the org), and the turns
// run as one member, so the one audience policy filters every candidate (beside the single-user figure).
// Turn-start latency (capture + recall with three planned queries + local judge +
// delivery + events) at N records, with the bundled model embedding the queries, and
// the same with embedding excluded (what Kioku itself controls). Item vectors are
// synthetic clustered 512-d vectors filed under the bundled model's id: that keeps the
// HNSW work real without 30 minutes of document embedding; the query embedding is the
// real model. Then a fresh process opens the library from its snapshots (three runs, as
// `kioku serve` starts) for start-up, RSS, heap, external memory, disk and the dominant part
// (tools/bench/service-probe.ts). Prints a table, then one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UseLiteEmbedder, type Embedder } from '../../src/embed/index.js';
import { encodeVector, type AppendInput } from '../../src/events/index.js';
import { openKioku } from '../../src/kioku.js';
import { Knowledge, evidenceKey } from '../../src/knowledge/index.js';
import { DEFAULT_RECALL_CONFIG, EmbeddingCache, LocalJudge, openSession, startTurn, type RecallCore } from '../../src/recall/index.js';
import { diskUsage, probeService, serviceRows } from './service-probe.js';
import { Synthetic, percentile } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    turns: { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
    'no-model': { type: 'boolean', default: false },
    org: { type: 'boolean', default: false },
    members: { type: 'string', default: '50' },
    spaces: { type: 'string', default: '20' },
    'graph-weight': { type: 'string', default: '0' },
    sealing: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
  },
});
if (values.sealing) {
  // issue 33: sealed and plain turns in one run (child processes, alternating): recall-sealing.ts
  const { recallSealingBench } = await import('./recall-sealing.js');
  const args = ['--records', values.records, '--turns', values.turns, ...(values['no-model'] ? ['--no-model'] : [])];
  recallSealingBench({ args, rounds: Number(values.rounds), json: values.json });
  process.exit(0);
}
const ORG = values.org ? { members: Number(values.members), spaces: Number(values.spaces) } : undefined;
const RECORDS = Number(values.records);
const TURNS = Number(values.turns);
if (![RECORDS, TURNS].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:recall -- --records N [--turns N] [--json] [--no-model]\n');
  process.exit(2);
}
const dataDir = mkdtempSync(join(tmpdir(), 'kioku-bench-recall-'));
const syn = new Synthetic(7);
const log = (m: string): void => void process.stderr.write(`${m}\n`);

// A real model for queries; the stand-in for --no-model is a deterministic 512-d map.
const model: Embedder = values['no-model']
  ? {
      id: 'use-lite-512',
      dim: 512,
      readsCjk: false,
      init: async () => undefined,
      close: async () => undefined,
      embed: async (t) => t.map((_, i) => syn.near(syn.centers(1, 512)[0] as Float32Array, 0.5 + i * 0)),
    }
  : new UseLiteEmbedder();
await model.init();

const store = await openKioku({ data: dataDir });

/** A memory's owner and audience in the org: owned round-robin by the members; own only, a space, or the org in turn. */
function orgFields(i: number): { owner?: string; audience?: string[] } {
  if (!ORG) return {};
  const audience = i % 3 === 0 ? [] : i % 3 === 1 ? [`space:s${i % ORG.spaces}`] : ['org'];
  return { owner: `m${i % ORG.members}`, audience };
}

/** The org as `kioku org` builds it: a tree of spaces (s0 at the top, each next one below an earlier one), members each in one space. */
async function buildOrg(members: number, spaces: number): Promise<void> {
  for (let s = 0; s < spaces; s++) await store.changeOrg({ action: 'space_add', space: `s${s}`, ...(s > 0 ? { parent: `s${Math.floor((s - 1) / 4)}` } : {}) });
  for (let m = 0; m < members; m++) {
    await store.changeOrg({ action: 'member_add', member: `m${m}`, tokens: [`m${m}`] });
    await store.changeOrg({ action: 'member_join', member: `m${m}`, space: `s${m % spaces}` });
  }
}
const knowledge = new Knowledge(store, 'bench');
const centers = syn.centers(200, 512);
for (let i = 0; i < RECORDS; i += 500) {
  const n = Math.min(500, RECORDS - i);
  await knowledge.writeMemories({
    memories: Array.from({ length: n }, (_, j) => ({ id: `r${i + j}`, kind: 'fact' as const, text: syn.text(i + j), terms: [syn.word()], ...orgFields(i + j) })),
  });
  const events: AppendInput[] = Array.from({ length: n }, (_, j) => ({
    type: 'embedding.computed',
    actor: 'bench',
    data: {
      evidence_key: evidenceKey({ ns: 'private', layer: 'memory', id: `r${i + j}` }),
      model: model.id,
      lane: 'text',
      dim: 512,
      vector: encodeVector(syn.near(centers[(i + j) % 200] as Float32Array, 0.8), 'f16'),
      encoding: 'f16',
    },
  }));
  const appended = await store.log.appendAll(events);
  await store.projections.waitFor(appended.at(-1)?.seq ?? 0);
  if ((i / 500) % 40 === 0) log(`  ${i + n}/${RECORDS} records`);
}

const graphWeight = Number(values['graph-weight']);
const config = { ...DEFAULT_RECALL_CONFIG, channel_weights: { ...DEFAULT_RECALL_CONFIG.channel_weights, graph: graphWeight } };
const core: RecallCore = { log: store.log, projections: store.projections, embedder: model, judge: new LocalJudge(), cache: new EmbeddingCache(), config };
if (ORG) await buildOrg(ORG.members, ORG.spaces);
// in an org the turns are member m0's (its token is named m0): every candidate passes the audience policy
const asMember = ORG ? { principal: 'm0' } : {};
const { session_id } = await openSession(core, { agent: 'bench' });
const conversation = [
  { role: 'user' as const, content: `We are planning the ${syn.word()} migration for next week.` },
  { role: 'assistant' as const, content: `Noted: the ${syn.word()} service moves first.` },
];
// Turns: a two-sentence utterance with dialogue → three planned queries each.
const utterance = (i: number): string =>
  `${syn.word()} ${syn.word()} ${syn.word()} broke again in turn ${i}. How do we fix the ${syn.word()} ${syn.word()} problem?`;
const whole: number[] = [];
const controlled: number[] = [];
const embedMs: number[] = [];
/** each turn's CPU time (process.cpuUsage: user + system, µs resolution): what the turn costs the machine, less swayed than wall time by other work on the cores */
const cpuMs: number[] = [];
for (let i = 0; i < 10; i++) await startTurn(core, { session_id, query: utterance(-i), conversation }, asMember); // warm-up
for (let i = 0; i < TURNS; i++) {
  const t = performance.now();
  const c = process.cpuUsage();
  const packet = await startTurn(core, { session_id, query: utterance(i), conversation }, asMember);
  const ms = performance.now() - t;
  const used = process.cpuUsage(c);
  cpuMs.push((used.user + used.system) / 1000);
  whole.push(ms);
  embedMs.push(packet.timings['embed_ms'] ?? 0);
  controlled.push(ms - (packet.timings['embed_ms'] ?? 0));
}
const rssMB = Math.round(process.memoryUsage().rss / 1e6);
await store.close(); // writes every snapshot, as a service stopping does
await model.close();
// The library as the service holds it: a fresh process opens it from its snapshots, the model beside it.
const disk = diskUsage(dataDir);
log('  measuring the service: a fresh process opens the library from its snapshots (3 runs)');
const probed = probeService({ data: dataDir, model: !values['no-model'] });
rmSync(dataDir, { recursive: true, force: true });
const service = { ...probed.median, openMsRuns: probed.openMs };

const result = {
  bench: 'recall',
  records: RECORDS,
  graph_weight: graphWeight,
  turns: TURNS,
  org: ORG ?? null,
  queries_per_turn: 3,
  model: values['no-model'] ? 'stand-in (no model)' : model.id,
  judge: 'local-calibrated',
  turnMs: { p50: percentile(whole, 0.5), p95: percentile(whole, 0.95), p99: percentile(whole, 0.99) },
  embeddingExcludedMs: { p50: percentile(controlled, 0.5), p95: percentile(controlled, 0.95), p99: percentile(controlled, 0.99) },
  embedMs: { p50: percentile(embedMs, 0.5), p95: percentile(embedMs, 0.95) },
  /** CPU time per turn (all threads of the process; the turns run on the main thread) */
  turnCpuMs: { p50: percentile(cpuMs, 0.5), p95: percentile(cpuMs, 0.95), mean: Math.round((cpuMs.reduce((a, b) => a + b, 0) / cpuMs.length) * 1000) / 1000 },
  /** the bench process after the turns (it also wrote the library) */
  rssMB,
  disk,
  /** a fresh process opening the library (median of 3): start-up and memory as the service has them */
  service,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
};
const rows: [string, string][] = [
  ['records / turns (3 queries each)', `${RECORDS} / ${TURNS}`],
  ['org (members / spaces)', ORG ? `${ORG.members} / ${ORG.spaces}` : 'none (single user)'],
  ['turn start ms p50 / p95 / p99 (with the model)', `${result.turnMs.p50} / ${result.turnMs.p95} / ${result.turnMs.p99}`],
  ['embedding excluded ms p50 / p95 / p99', `${result.embeddingExcludedMs.p50} / ${result.embeddingExcludedMs.p95} / ${result.embeddingExcludedMs.p99}`],
  ['query embedding ms p50 / p95', `${result.embedMs.p50} / ${result.embedMs.p95}`],
  ['turn CPU ms p50 / p95 / mean (process, all threads)', `${result.turnCpuMs.p50} / ${result.turnCpuMs.p95} / ${result.turnCpuMs.mean}`],
  ['bench process RSS MB (wrote the library, ran the turns)', String(rssMB)],
  ['disk MB log / projections', `${disk.logMB} / ${disk.projectionsMB}`],
  ...serviceRows(service),
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(58)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
