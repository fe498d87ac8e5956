// Stage 3, rank: fuse the lanes over evidence keys, add the cue boosts (an entity or speaker
// the query names, a time range it mentions), drop this session's own visible traces, lift
// the neighbours of strong turns, demote by a bounded share, sort, and apply the per-layer caps.
import type { RecordsProjection } from '../../../projections/records/index.js';
import { isDemoted } from '../../../projections/usage.js';
import type { Layer } from '../../knowledge/evidence.js';
import { carriesTags, inConversation, type RecordEntry } from '../../knowledge/item.js';
import { lowerNfkc } from '../../text/script.js';
import { laneWeights, type RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import { inRange, nameCandidates, parseTimeRange, type TimeRange } from '../cues.js';
import { headingCueTerms, headingNamed, ownHeading } from '../heading-cue.js';
import { addLinkCue } from '../link-cue.js';
import { fuse, type LaneHit } from '../fusion.js';
import type { Scored } from '../judging.js';
import { isQuestion, neighbourBoosts, sessionNeighbours } from '../neighbours.js';
import { applyTurnPrior } from '../turn-prior.js';
import type { BackendDiagnostic } from '../packet.js';
import { LAYER_OPTIONS } from '../request.js';
import { ageAndDemote, agingAdjustments } from './activation.js';
import type { RecallPlan } from './plan.js';
import { canSee, type OrgCaller } from '../../knowledge/audience.js';

export interface Ranked {
  /** every candidate after caps, best first */
  ranked: Scored[];
  range: TimeRange | undefined;
  filtered: { total: number; by_layer: Record<string, number> };
  backends: Record<string, BackendDiagnostic>;
  warnings: string[];
}

export function rankCandidates(
  core: RecallCore,
  config: RecallConfig,
  plan: RecallPlan,
  lists: Map<string, LaneHit[]>,
  filteredByLayer: Record<string, number>,
  /** who asks within the namespace's org: what it may not see is left out and counted (issue 34) */
  audience?: OrgCaller,
): Ranked {
  const { ns, request, asked } = plan;
  const hidden: Record<string, number> = {};
  const visible = (entry: RecordEntry): boolean => {
    if (canSee(entry, audience)) return true;
    hidden[entry.layer] = (hidden[entry.layer] ?? 0) + 1;
    return false;
  };
  const records = core.projections.views.records;
  const usage = core.projections.views.usage;
  const fused = fuse(config.fusion, lists, laneWeights(config, lists.keys()), config.rrf_k);
  // the names the question holds: the entity cue and the turn prior read them
  const names = new Set(nameCandidates(asked));
  const entityKeys = entityCue(records, ns, names);
  const range = parseTimeRange(asked, plan.now);
  const backends: Record<string, BackendDiagnostic> = {
    entity_cue: entityKeys.size ? { attempted: true, used: true, status: 'used' } : { attempted: true, used: false, status: 'empty' },
    time_cue: range ? { attempted: true, used: true, status: 'used' } : { attempted: true, used: false, status: 'empty' },
  };
  const warnings: string[] = [];
  const ownSince = request.context_since ? Date.parse(request.context_since) : -Infinity;
  let ownSession = 0;
  const isOwnVisibleTrace = (entry: RecordEntry): boolean =>
    Boolean(request.session_id) && entry.layer === 'trace' && entry.session_id === request.session_id && Date.parse(entry.occurred_at) >= ownSince;
  const scored: Scored[] = [];
  const headingWeight = config.cue_weights.heading ?? 0;
  const namesHeading = headingWeight > 0 ? headingCue(asked) : undefined;
  const tags = request.options.tags?.map((t) => lowerNfkc(t));
  for (const f of fused) {
    const entry = records.get(f.key);
    if (!entry || entry.status !== 'active' || !carriesTags(entry, tags)) continue;
    if (!visible(entry)) continue;
    // this session's own traces in the visible range never come back (the agent can still see them)
    if (isOwnVisibleTrace(entry)) {
      ownSession += 1;
      continue;
    }
    const parts = { ...f.parts };
    let score = f.score;
    if (entityKeys.has(f.key)) score += parts['entity_cue'] = config.cue_weights.entity;
    if (range && inRange(entry.occurred_at, range)) score += parts['time_cue'] = config.cue_weights.time;
    if (namesHeading?.(entry)) score += parts['heading_cue'] = headingWeight;
    scored.push({ entry, score, parts, demoted: isDemoted(usage.get(ns, f.key)) });
  }
  // the sections the best ones link to (link-cue.ts): documentation's reference pages
  addLinkCue(scored, config.cue_weights.link ?? 0, records, (e) => carriesTags(e, tags) && canSee(e, audience), (key) => isDemoted(usage.get(ns, key)));
  // a strong trace lifts its neighbours in the same session (they may not have been found at all)
  if (config.neighbour_weight > 0) {
    const plainGap = config.plain_session_gap_min;
    const sources = scored
      .filter((s) => inConversation(s.entry) || (plainGap > 0 && s.entry.layer === 'memory' && !s.entry.session_id))
      .sort((a, b) => b.score - a.score)
      .slice(0, config.neighbour_sources)
      .map((s) => ({ key: s.entry.key, score: s.score, question: isQuestion(s.entry.text) }));
    const boosts = neighbourBoosts(sources, sessionNeighbours(records, core.projections.views.graph, ns, plainGap), config.neighbour_weight, config.neighbour_reply_factor);
    const byKey = new Map(scored.map((s) => [s.entry.key, s]));
    for (const [key, boost] of boosts) {
      const have = byKey.get(key);
      if (have) have.score += have.parts['neighbour'] = boost;
      else {
        const entry = records.get(key);
        if (entry?.status === 'active' && !isOwnVisibleTrace(entry) && carriesTags(entry, tags) && canSee(entry, audience))
          scored.push({ entry, score: boost, parts: { neighbour: boost }, demoted: isDemoted(usage.get(ns, key)) });
      }
    }
  }
  applyTurnPrior(scored, config.turn_prior, { plainGapMin: config.plain_session_gap_min, names });
  // ACT-R activation (when enabled), then demoted and archived evidence sink (stages/activation.ts)
  ageAndDemote(scored, agingAdjustments(core.projections.views, config.aging, ns, plan.now, scored.map((s) => s.entry)), config);
  scored.sort((a, b) => b.score - a.score || (a.entry.key < b.entry.key ? -1 : 1));
  if (ownSession) warnings.push(`own_session_traces_excluded:${ownSession}`);

  // per-layer quotas, then the global limit (applied by the caller)
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
  // the seed's honest "filtered N": matches another member's audience keeps from this caller, by layer
  for (const [layer, n] of Object.entries(hidden)) filtered.by_layer[layer] = (filtered.by_layer[layer] ?? 0) + n;
  const hiddenTotal = Object.values(hidden).reduce((a, b) => a + b, 0);
  filtered.total += hiddenTotal;
  if (hiddenTotal > 0) warnings.push('records_filtered_by_audience');
  return { ranked, range, filtered, backends, warnings };
}

/**
 * Whether the question names `entry`'s own heading. The question's terms are computed at the first
 * candidate that has a heading (wiki and card sections): a recall over memories and turns alone
 * tokenizes nothing for the cue (Porter2 over the question, and a call per candidate, in every turn).
 */
function headingCue(asked: string): (entry: RecordEntry) => boolean {
  let terms: ReadonlySet<string> | undefined | null = null;
  return (entry) => {
    const heading = ownHeading(entry);
    if (heading === '') return false;
    if (terms === null) terms = headingCueTerms(asked);
    return terms !== undefined && headingNamed(heading, terms);
  };
}

/** Items by or about an entity/speaker the query names. */
function entityCue(records: RecordsProjection, ns: string, names: ReadonlySet<string>): Set<string> {
  const keys = new Set<string>();
  for (const name of names) for (const e of records.byEntityName(ns, name)) keys.add(e.key);
  return keys;
}

/** How many matching items the caller's namespace rules kept out, by layer (counts, never content). */
function aclCounts(byLayer: Record<string, number>): { total: number; by_layer: Record<string, number> } {
  return { total: Object.values(byLayer).reduce((a, b) => a + b, 0), by_layer: { card: 0, wiki: 0, memory: 0, note: 0, trace: 0, ...byLayer } };
}
