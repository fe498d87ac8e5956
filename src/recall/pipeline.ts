// recall(request) → packet: the one search path behind HTTP, MCP, the hook and the CLI.
// The stages, each a function with typed input and output (src/recall/stages/):
// plan → channels (lexical while the model embeds, then dense) → rank (fuse, cues,
// neighbours, demotion, caps) → judge → deliver → record. This file only wires them and
// assembles the packet; docs/architecture.md says where to add a channel.
import { namespaceOf, seesService } from '../access.js';
import { parseInput } from '../knowledge/validate.js';
import { DEFAULT_RECALL_CONFIG } from './config.js';
import type { RecallContext, RecallCore } from './core.js';
import { embedQueries } from './dense.js';
import { laneRankIndex, toPacketRecord } from './explain.js';
import type { PacketRecord, RecallPacket } from './packet.js';
import { recallRequestSchema, type ParsedRecallRequest } from './request.js';
import { passageFor } from '../text/passage.js';
import { runChannels } from './stages/channels.js';
import { deliverCandidates } from './stages/deliver.js';
import { judgeCandidates } from './stages/judge.js';
import { planRecall, type BoundDialogue } from './stages/plan.js';
import { rankCandidates } from './stages/rank.js';
import { orgCaller, ownerMark } from '../knowledge/audience.js';
import { record, recallEvents, skippedEvent } from './stages/record.js';
import { othersSession } from './session-holder.js';

export type { RecallContext, RecallCore } from './core.js';
export { denseQueryText } from './dense.js';

/** Parse the request (unless it was parsed already), settle its namespace, and recall. */
export async function recall(core: RecallCore, input: unknown, context: RecallContext = {}): Promise<RecallPacket> {
  const request = parseInput(recallRequestSchema, input, 'recall');
  return recallParsed(core, request, namespaceOf(request.namespace, context), context);
}

/**
 * The request as recall may answer it: naming another member's session (issue 34), it is answered as
 * one with no session — what that session was handed is not the caller's to read (held items, where a
 * turn window stops) nor to add to; a turn start there is refused before this (visibleSession).
 */
function ownSessionOnly(core: RecallCore, request: ParsedRecallRequest, ns: string, context: RecallContext): ParsedRecallRequest {
  if (request.session_id === undefined || !othersSession(core.projections.views, ns, request.session_id, context)) return request;
  const { session_id: _others, context_since: _since, ...sessionless } = request;
  return sessionless;
}

/**
 * Recall a parsed request in namespace `ns`, already settled (and checked) by the caller. A turn
 * start hands on the dialogue it bounded and fingerprinted for its own event, so neither runs twice.
 */
export async function recallParsed(
  core: RecallCore,
  request: ParsedRecallRequest,
  ns: string,
  context: RecallContext,
  bound?: BoundDialogue,
): Promise<RecallPacket> {
  const started = performance.now();
  const config = core.config ?? DEFAULT_RECALL_CONFIG;
  const plan = planRecall(core, ownSessionOnly(core, request, ns, context), ns, context, bound);

  if (plan.acknowledgement) {
    const notSaved = await record(core, context, [skippedEvent(plan, context)]);
    return {
      ...plan.base,
      retrieval_mode: 'skipped',
      records: [],
      delivery: [],
      judge: { status: 'disabled', judge: core.judge.id, calls: 0, ms: 0 },
      backends: {},
      filtered_counts: { total: 0, by_layer: {} },
      warnings: notSaved,
      degraded: false,
      queries: [],
      timings: { total_ms: round(performance.now() - started) },
    };
  }

  // a service just started may still be reading its HNSW graphs: the dense channel waits for them,
  // as it waits for the query vectors (the model loads meanwhile), instead of finding nothing
  const embedding = embedQueries(core, config, plan.request, plan.queries);
  const audience = orgCaller(core.projections.views.org.org(ns), context.principal, context.orgAdmin === true); // the one audience policy (issue 34)
  const channels = await runChannels(core, config, plan, core.projections.restored().then(() => embedding), audience);
  const t1 = performance.now();
  // matches kept out are another namespace's: counting them for a caller confined to its own would
  // tell it what other namespaces hold (a search oracle), so only a caller who sees them all gets counts
  const ranked = rankCandidates(core, config, plan, channels.lists, seesService(context) ? channels.filteredByLayer : {}, audience);
  const fusionMs = round(performance.now() - t1);
  const judged = await judgeCandidates(core, config, plan, ranked, channels.lists, channels.embedded);
  const backends = { ...channels.backends, ...ranked.backends };
  const degraded =
    judged.judged.status === 'partial' ||
    judged.judged.status === 'failed' ||
    Object.values(backends).some((b) => b.status === 'error' || b.status === 'timeout' || b.status === 'invalid_response');
  const result = deliverCandidates(core, config, plan, judged);
  const deliveredKeys = new Set(result.items.map((i) => i.key));

  const laneRanks = laneRankIndex(channels.lists);
  const packetRecords: PacketRecord[] = ranked.ranked
    .slice(0, plan.request.limit)
    .map((s, i) => ({ ...toPacketRecord(s, i, judged.judged, result.held, deliveredKeys, config.delivery.excerpt_chars, laneRanks.get(s.entry.key), plan.asked), ...ownerMark(s.entry, audience) }));
  // a delivered section longer than one excerpt: the passage that matches what was asked, not its opening
  const fullText = new Map(judged.pool.filter((s) => deliveredKeys.has(s.entry.key)).map((s) => [s.entry.key, s.entry.text]));
  const delivered = result.items.map((it) => {
    const text = fullText.get(it.key);
    return text !== undefined && text.length > config.delivery.excerpt_chars
      ? { ...it, text: passageFor(text, config.delivery.excerpt_chars, plan.asked).text, excerpt: true }
      : it;
  });
  const mode = !channels.embedded.vectors || backends['vector']?.status !== 'used' ? 'keyword' : 'hybrid';
  const notSaved = await record(core, context, recallEvents(config, plan, context, { mode, ranked, judged, result, laneRanks, backends }));

  const { judged: j } = judged;
  return {
    ...plan.base,
    retrieval_mode: mode,
    records: packetRecords,
    delivery: delivered.map((it) => ({
      evidence_key: it.key,
      layer: it.layer,
      kind: it.kind,
      title: it.title,
      text: it.text,
      excerpt: it.excerpt,
      verdict: it.verdict,
      ...(it.window ? { window: it.window } : {}),
      ...ownerMark(core.projections.views.records.get(it.key) ?? {}, audience),
    })),
    judge: {
      status: j.status,
      judge: j.judge,
      calls: j.calls,
      ms: round(j.ms),
      ...(j.tokens ? { tokens: j.tokens } : {}),
      ...(j.error ? { error: j.error } : {}),
    },
    backends,
    filtered_counts: ranked.filtered,
    warnings: [...plan.warnings, ...channels.warnings, ...ranked.warnings, ...notSaved],
    degraded,
    queries: plan.queries.map((q) => ({ kind: q.kind, text: q.text })),
    timings: { ...channels.timings, fusion_ms: fusionMs, judge_ms: judged.ms, total_ms: round(performance.now() - started) },
    ...(ranked.range ? { time_cue: { from: ranked.range.from.toISOString(), to: ranked.range.to.toISOString(), phrase: ranked.range.phrase } } : {}),
  };
}

const round = (x: number): number => Math.round(x * 100) / 100;
