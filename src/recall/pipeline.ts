// recall(request) → packet: the one search path behind HTTP, MCP, the hook and the CLI.
// Plan queries, run every channel concurrently, fuse over evidence keys, judge once,
// deliver by local rules, account usage — and record it all as events.
import { randomBytes } from 'node:crypto';
import type { ProjectionRunner } from '../../projections/runner.js';
import type { DeliveredProjection } from '../../projections/delivered.js';
import type { RecordEntry, RecordsProjection } from '../../projections/records.js';
import { isDemoted } from '../../projections/usage.js';
import type { Embedder } from '../embed/index.js';
import { namespaceOf } from '../access.js';
import { KiokuError } from '../errors.js';
import { DEFAULT_NAMESPACE, type AppendInput } from '../events/index.js';
import { KNOWLEDGE_LAYERS, type Layer } from '../knowledge/evidence.js';
import { parseInput } from '../knowledge/validate.js';
import type { EventStore } from '../log/index.js';
import { isAcknowledgement } from './acknowledge.js';
import { DEFAULT_RECALL_CONFIG, laneWeights, type RecallConfig } from './config.js';
import { embedQueries } from './dense.js';
import { laneRankIndex, toPacketRecord } from './explain.js';
import { isQuestion, neighbourBoosts, type Neighbours } from './neighbours.js';
import { judgePool, runJudge } from './judging.js';
import { boundConversation, conversationFingerprint, isTopicChange, planQueries, withoutTopicChange } from './conversation.js';
import { inRange, nameCandidates, parseTimeRange } from './cues.js';
import { deliver, type DeliveryCandidate, type HoldReason } from './delivery.js';
import { matchText, turnQueryTerms } from './terms.js';
import { fuse, type LaneHit } from './fusion.js';
import type { Judge } from './judge/index.js';
import { EmbeddingCache } from './embedding-cache.js';
import { inConversation } from '../knowledge/item.js';
import { LAYER_OPTIONS, enabledLayers, recallRequestSchema } from './request.js';
import type { BackendDiagnostic, PacketRecord, RecallPacket } from './packet.js';
import type { RecallContext, RecallCore } from './core.js';

export { denseQueryText } from './dense.js';

export type { RecallContext, RecallCore } from './core.js';

export async function recall(core: RecallCore, input: unknown, context: RecallContext = {}): Promise<RecallPacket> {
  const started = performance.now();
  const config = core.config ?? DEFAULT_RECALL_CONFIG;
  const request = parseInput(recallRequestSchema, input, 'recall');
  const ns = namespaceOf(request.namespace, context);
  const received = boundConversation(request.conversation ?? []);
  // an explicit change of subject drops the dialogue before it from queries and judge
  const topicChange = received.length > 0 && isTopicChange(request.query);
  const dialogue = topicChange ? [] : received;
  const recallId = `r-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const base = {
    recall_id: recallId,
    namespace: ns,
    options: request.options,
    limit: request.limit,
    conversation_fingerprint: conversationFingerprint(received),
    conversation_messages: received.length,
  };
  const records = core.projections.views.records;

  if (isAcknowledgement(request.query)) {
    if (!context.readOnly)
      await core.log.append({
        type: 'recall.performed',
        ns,
        actor: context.actor ?? 'recall',
        data: {
          recall_id: recallId,
          retrieval_mode: 'skipped',
          queries: [],
          candidates: [],
          ...(context.turn_id ? { turn_id: context.turn_id } : {}),
          ...(request.session_id ? { session_id: request.session_id } : {}),
        },
      });
    return {
      ...base,
      retrieval_mode: 'skipped',
      records: [],
      delivery: [],
      judge: { status: 'disabled', judge: core.judge.id, calls: 0, ms: 0 },
      backends: {},
      filtered_counts: { total: 0, by_layer: {} },
      warnings: [],
      degraded: false,
      queries: [],
      timings: { total_ms: round(performance.now() - started) },
    };
  }

  const layers = enabledLayers(request.options);
  // what is asked: the utterance without a topic-change lead, whose words would only dilute the query
  const asked = withoutTopicChange(request.query);
  const queries = planQueries(asked, dialogue);
  const warnings: string[] = topicChange ? ['topic_change_dialogue_ignored'] : [];
  const backends: Record<string, BackendDiagnostic> = {};
  const timings: Record<string, number> = {};
  const now = core.now?.() ?? new Date();

  // ---- channels, concurrently: the model embeds while the keyword lanes run ----
  const t0 = performance.now();
  const embedding = embedQueries(core, config, request, queries, backends, warnings);
  const lists = new Map<string, LaneHit[]>();
  const keyword = core.projections.views.keyword;
  const searchLayers = layers.filter((l) => l !== 'episode' || request.options.episodes);
  let keywordHits = 0;
  let termHits = 0;
  let filteredByLayer: Record<string, number> = {};
  for (const q of queries) {
    const { hits, filtered } = keyword.searchCounting(q.text, { namespaces: [ns], layers: searchLayers, limit: config.lane_budget });
    if (q.kind === 'utterance') filteredByLayer = filtered;
    lists.set(
      `keyword:${q.kind}`,
      hits.map((h) => ({ key: h.key, score: h.score + (h.complete ? 1e-9 : 0) })),
    );
    keywordHits += hits.length;
    if (searchLayers.includes('memory')) {
      const terms = keyword.search(q.text, { namespaces: [ns], layers: ['memory'], lane: 'terms', limit: config.lane_budget });
      lists.set(
        `terms:${q.kind}`,
        terms.map((h) => ({ key: h.key, score: h.score })),
      );
      termHits += terms.length;
    }
  }
  backends['keyword'] = { attempted: true, used: keywordHits > 0, status: keywordHits > 0 ? 'used' : 'empty' };
  backends['terms'] = searchLayers.includes('memory')
    ? { attempted: true, used: termHits > 0, status: termHits > 0 ? 'used' : 'empty' }
    : { attempted: false, used: false, status: 'disabled' };
  timings['keyword_ms'] = round(performance.now() - t0);

  const embedded = await embedding;
  timings['embed_ms'] = embedded.ms;
  const vectors = core.projections.views.vector;
  if (embedded.vectors) {
    const model = (core.embedder as Embedder).id;
    let vectorHits = 0;
    for (const q of queries) {
      const v = embedded.vectors.get(q.kind);
      if (!v) continue;
      const text = vectors.search(v, { lane: 'text', model, k: config.lane_budget, namespaces: [ns], layers: searchLayers });
      lists.set(
        `vector:${q.kind}`,
        text.map((h) => ({ key: h.key, score: h.score })),
      );
      vectorHits += text.length;
      const conversational = searchLayers.filter((l) => l === 'trace' || l === 'memory');
      if (conversational.length) {
        const window = vectors.search(v, { lane: 'window', model, k: config.lane_budget, namespaces: [ns], layers: conversational });
        lists.set(
          `window:${q.kind}`,
          window.map((h) => ({ key: h.key, score: h.score })),
        );
      }
    }
    const waiting = core.waitingForVectors?.(ns) ?? 0;
    if (waiting > 0) warnings.push(`vectors_pending:${waiting}`);
    const lane: BackendDiagnostic =
      embedded.vectors.size === 0
        ? { attempted: false, used: false, status: 'disabled' }
        : waiting > 0 && vectorHits === 0
          ? { attempted: true, used: false, status: 'unavailable' }
          : { attempted: true, used: vectorHits > 0, status: vectorHits > 0 ? 'used' : 'empty' };
    backends['vector'] = waiting > 0 ? { ...lane, waiting_for_vectors: waiting } : lane;
  }

  // ---- fuse over evidence keys ----
  const t1 = performance.now();
  const fused = fuse(config.fusion, lists, laneWeights(config, lists.keys()), config.rrf_k);
  // cue boosts: an entity or speaker the query names, a time range it mentions
  const entityKeys = entityCue(records, ns, asked);
  const range = parseTimeRange(asked, now);
  backends['entity_cue'] = entityKeys.size ? { attempted: true, used: true, status: 'used' } : { attempted: true, used: false, status: 'empty' };
  backends['time_cue'] = range ? { attempted: true, used: true, status: 'used' } : { attempted: true, used: false, status: 'empty' };
  const usage = core.projections.views.usage;
  const ownSince = request.context_since ? Date.parse(request.context_since) : -Infinity;
  let ownSession = 0;
  const isOwnVisibleTrace = (entry: RecordEntry): boolean =>
    Boolean(request.session_id) && entry.layer === 'trace' && entry.session_id === request.session_id && Date.parse(entry.occurred_at) >= ownSince;
  const scored: { entry: RecordEntry; score: number; parts: Record<string, number>; demoted: boolean }[] = [];
  for (const f of fused) {
    const entry = records.get(f.key);
    if (!entry || entry.status !== 'active') continue;
    // this session's own traces in the visible range never come back (DESIGN §4 step 7)
    if (isOwnVisibleTrace(entry)) {
      ownSession += 1;
      continue;
    }
    const parts = { ...f.parts };
    let score = f.score;
    if (entityKeys.has(f.key)) score += parts['entity_cue'] = config.cue_weights.entity;
    if (range && inRange(entry.occurred_at, range)) score += parts['time_cue'] = config.cue_weights.time;
    scored.push({ entry, score, parts, demoted: isDemoted(usage.get(ns, f.key)) });
  }
  // a strong trace lifts its neighbours in the same session (they may not have been found at all)
  if (config.neighbour_weight > 0) {
    const sources = scored
      .filter((s) => inConversation(s.entry))
      .sort((a, b) => b.score - a.score)
      .slice(0, config.neighbour_sources)
      .map((s) => ({ key: s.entry.key, score: s.score, question: isQuestion(s.entry.text) }));
    const boosts = neighbourBoosts(sources, sessionNeighbours(records, ns), config.neighbour_weight, config.neighbour_reply_factor);
    const byKey = new Map(scored.map((s) => [s.entry.key, s]));
    for (const [key, boost] of boosts) {
      const have = byKey.get(key);
      if (have) have.score += have.parts['neighbour'] = boost;
      else {
        const entry = records.get(key);
        if (entry?.status === 'active' && !isOwnVisibleTrace(entry))
          scored.push({ entry, score: boost, parts: { neighbour: boost }, demoted: isDemoted(usage.get(ns, key)) });
      }
    }
  }
  // demoted evidence loses a bounded share of its score: it can fall below near-equals, never
  // below candidates that match much more weakly, and it never vanishes (DESIGN §4 step 8)
  for (const s of scored) {
    if (!s.demoted || config.demotion_factor >= 1) continue;
    s.parts['demotion'] = -(1 - config.demotion_factor) * s.score;
    s.score *= config.demotion_factor;
  }
  scored.sort((a, b) => b.score - a.score || (a.entry.key < b.entry.key ? -1 : 1));
  if (ownSession) warnings.push(`own_session_traces_excluded:${ownSession}`);

  // ---- per-layer quotas, then the global limit ----
  const perLayer = new Map<Layer, number>();
  const ranked = scored.filter((s) => {
    const max = LAYER_OPTIONS[s.entry.layer].max;
    const cap = max ? (request.options[max] as number | undefined) : undefined;
    const n = perLayer.get(s.entry.layer) ?? 0;
    if (cap !== undefined && n >= cap) return false;
    perLayer.set(s.entry.layer, n + 1);
    return true;
  });
  const filtered = aclCounts(filteredByLayer);
  if (filtered.total > 0) warnings.push('records_filtered_by_acl');
  timings['fusion_ms'] = round(performance.now() - t1);

  // ---- the judge sees the top of the fused list, at most two sections per document ----
  const pool = judgePool(ranked, config, asked);
  const t2 = performance.now();
  // cosines the vector lane already measured for the judge's query, so the judge reads fewer vectors
  const judgeKind = embedded.vectors?.has('context') ? 'context' : 'utterance';
  const measured = new Map((lists.get(`vector:${judgeKind}`) ?? []).map((h) => [h.key, h.score]));
  const judged = await runJudge(core, config, {
    request: { ...request, query: asked },
    ns,
    dialogue,
    pool,
    queryVector: embedded.judgeVector,
    measured,
    range,
  });
  timings['judge_ms'] = round(performance.now() - t2);
  const degraded =
    judged.status === 'partial' ||
    judged.status === 'failed' ||
    Object.values(backends).some((b) => b.status === 'error' || b.status === 'timeout' || b.status === 'invalid_response');

  // ---- delivery: local rules over every judged candidate ----
  const delivered = core.projections.views.delivered;
  const candidates: DeliveryCandidate[] = pool.map((s, rank) => ({
    key: s.entry.key,
    kind: KNOWLEDGE_LAYERS.has(s.entry.layer) ? 'knowledge' : 'history',
    layer: s.entry.layer,
    verdict: judged.verdicts.get(s.entry.key) ?? null,
    fingerprint: s.entry.fingerprint,
    title: s.entry.title,
    text: s.entry.text,
    match_text: matchText(s.entry),
    meta: s.entry.meta,
    session_id: s.entry.session_id,
    occurred_at: s.entry.occurred_at,
    rank,
  }));
  const result =
    judged.status === 'failed' || judged.status === 'disabled'
      ? { items: [], held: new Map<string, HoldReason>(candidates.map((c) => [c.key, 'unjudged'])) }
      : deliver(
          candidates,
          {
            session_id: request.session_id,
            context_since: request.context_since,
            delivered: request.session_id ? delivered.deliveredSince(request.session_id, request.context_since) : new Map(),
            assistant_texts: dialogue.filter((m) => m.role === 'assistant').map((m) => m.content),
            query_terms: turnQueryTerms(request.query, now),
          },
          config.delivery,
        );
  const deliveredKeys = new Set(result.items.map((i) => i.key));

  // ---- the packet ----
  const top = ranked.slice(0, request.limit);
  const laneRanks = laneRankIndex(lists);
  const packetRecords: PacketRecord[] = top.map((s, i) =>
    toPacketRecord(s, i, judged, result.held, deliveredKeys, config.delivery.excerpt_chars, laneRanks.get(s.entry.key)),
  );
  const mode = !embedded.vectors || backends['vector']?.status !== 'used' ? 'keyword' : 'hybrid';

  // ---- events: what was considered, judged and delivered ----
  const actor = context.actor ?? 'recall';
  const ids = { ...(context.turn_id ? { turn_id: context.turn_id } : {}), ...(request.session_id ? { session_id: request.session_id } : {}) };
  const returned = new Set(top.map((s) => s.entry.key));
  const inPool = new Set(pool.map((s) => s.entry.key));
  const logged = ranked.slice(0, Math.max(request.limit, config.judge_pool, 50));
  const events: AppendInput[] = [
    {
      type: 'recall.performed',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...ids,
        retrieval_mode: mode,
        queries: queries.map((q) => ({ kind: q.kind, text: q.text.slice(0, 2_000) })),
        candidates: logged.map((s) => ({
          evidence_key: s.entry.key,
          layer: s.entry.layer,
          score: round6(s.score),
          lanes: laneRanks.get(s.entry.key) ?? {},
          ...(s.entry.fingerprint ? { fingerprint: s.entry.fingerprint } : {}),
          flags: [
            ...(returned.has(s.entry.key) || deliveredKeys.has(s.entry.key) ? ['returned'] : []),
            ...(inPool.has(s.entry.key) ? ['judged'] : []),
            ...(s.demoted ? ['demoted'] : []),
            ...(s.entry.meta ? ['meta'] : []),
          ],
        })),
        backends,
        filtered_counts: filtered,
        options: request.options as unknown as Record<string, unknown>,
      },
    },
  ];
  if (judged.status !== 'disabled' && pool.length) {
    events.push({
      type: 'verdict.recorded',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...(context.turn_id ? { turn_id: context.turn_id } : {}),
        judge: judged.judge,
        status: judged.status,
        verdicts: pool.map((s) => ({ evidence_key: s.entry.key, score: judged.verdicts.get(s.entry.key) ?? null })),
      },
    });
  }
  if (result.items.length) {
    events.push({
      type: 'delivery.made',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...ids,
        items: result.items.map((it) => ({ evidence_key: it.key, verdict: it.verdict, ...(it.fingerprint ? { fingerprint: it.fingerprint } : {}) })),
      },
    });
  }
  if (!context.readOnly) {
    const appended = await core.log.appendAll(events);
    await core.projections.waitFor(appended.at(-1)?.seq ?? 0);
  }

  timings['total_ms'] = round(performance.now() - started);
  return {
    ...base,
    retrieval_mode: mode,
    records: packetRecords,
    delivery: result.items.map((it) => ({
      evidence_key: it.key,
      layer: it.layer,
      kind: it.kind,
      title: it.title,
      text: it.text,
      excerpt: it.excerpt,
      verdict: it.verdict,
    })),
    judge: {
      status: judged.status,
      judge: judged.judge,
      calls: judged.calls,
      ms: round(judged.ms),
      ...(judged.tokens ? { tokens: judged.tokens } : {}),
      ...(judged.error ? { error: judged.error } : {}),
    },
    backends,
    filtered_counts: filtered,
    warnings,
    degraded,
    queries: queries.map((q) => ({ kind: q.kind, text: q.text })),
    timings,
    ...(range ? { time_cue: { from: range.from.toISOString(), to: range.to.toISOString(), phrase: range.phrase } } : {}),
  };
}

function entityCue(records: RecordsProjection, ns: string, query: string): Set<string> {
  const keys = new Set<string>();
  for (const name of nameCandidates(query)) for (const e of records.byEntityName(ns, name)) keys.add(e.key);
  return keys;
}

/** How many matching items the caller's namespace rules kept out, by layer (counts, never content). */
function aclCounts(byLayer: Record<string, number>): { total: number; by_layer: Record<string, number> } {
  return { total: Object.values(byLayer).reduce((a, b) => a + b, 0), by_layer: { card: 0, wiki: 0, memory: 0, note: 0, trace: 0, ...byLayer } };
}

const round = (x: number): number => Math.round(x * 100) / 100;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** The turns just before and after a trace in its session, when they are in the namespace searched. */
function sessionNeighbours(records: RecordsProjection, ns: string): (key: string) => Neighbours {
  return (key) => {
    const { before, after } = records.turnNeighbours(key);
    const inNs = (k: string | undefined): string | undefined => (k !== undefined && records.get(k)?.ns === ns ? k : undefined);
    return { before: inNs(before), after: inNs(after) };
  };
}
