// Pseudo-relevance feedback (issue 35): the best fused candidates of the first pass (config.feedback.docs)
// say what the question is about in the namespace's own words. Their stored text vectors, averaged with
// the query's (Rocchio), make a second dense query: lanes `feedback:<kind>` (text vectors) and
// `feedback_window:<kind>` (window vectors). Their most telling words, added to the question, make a
// second keyword query (RM3): lane `feedback_terms:utterance`. All are fused like any lane, weighed by
// channel_weights.feedback / feedback_window / feedback_terms; absent = 0 = off, and then no second
// search is made. Off by default: on LoCoMo dev none gains out of sample (evals/README.md, issue 35).
import type { Embedder } from '../embed/index.js';
import { canSee, type OrgCaller } from '../knowledge/audience.js';
import { searchableText } from '../knowledge/item.js';
import { queryTokens, tokenize } from '../text/index.js';
import { laneWeights, type RecallConfig } from './config.js';
import type { RecallCore } from './core.js';
import type { EmbeddedQueries } from './dense.js';
import { fuse, type LaneHit } from './fusion.js';
import type { RecallPlan } from './stages/plan.js';

/**
 * The feedback lanes for `lists` (the first pass, every channel's lanes): none when every feedback weight
 * is 0; no dense ones when there was no query vector or none of the best candidates has a text vector.
 */
export function feedbackLanes(
  core: RecallCore,
  config: RecallConfig,
  plan: RecallPlan,
  lists: ReadonlyMap<string, LaneHit[]>,
  embedded: EmbeddedQueries,
  exclude: ReadonlySet<string>,
  /** the caller's audience: feedback starts only from items it may see, as the graph walk does (issue 34) */
  audience?: OrgCaller,
): [string, LaneHit[]][] {
  const textWeight = config.channel_weights['feedback'] ?? 0;
  const windowWeight = config.channel_weights['feedback_window'] ?? 0;
  const termsWeight = config.channel_weights['feedback_terms'] ?? 0;
  if (textWeight <= 0 && windowWeight <= 0 && termsWeight <= 0) return [];
  // another member's private memory would otherwise lend its words and vector to the second query
  const sees = (key: string): boolean => {
    const e = core.projections.views.records.get(key);
    return e !== undefined && canSee(e, audience);
  };
  const top = fuse(config.fusion, lists, laneWeights(config, lists.keys()), config.rrf_k)
    .filter((f) => sees(f.key))
    .slice(0, config.feedback.docs);
  const lanes: [string, LaneHit[]][] = [];
  if (termsWeight > 0) lanes.push(...termLanes(core, config, plan, top.map((f) => f.key), exclude));
  if ((textWeight <= 0 && windowWeight <= 0) || !embedded.vectors?.size || !core.embedder) return lanes;
  const model = (core.embedder as Embedder).id;
  const vectors = core.projections.views.vector;
  const textLane = vectors.lane('text', model);
  if (!textLane) return lanes;
  const docVectors = top.map((f) => textLane.vectorOf(f.key)).filter((v): v is Float32Array => v !== undefined);
  if (!docVectors.length) return lanes;
  const { ns, searchLayers } = plan;
  const conversational = searchLayers.filter((l) => l === 'trace' || l === 'memory');
  for (const [kind, v] of embedded.vectors) {
    const q = rocchio(v, docVectors, config.feedback.query_share);
    if (textWeight > 0)
      lanes.push([`feedback:${kind}`, vectors.search(q, { lane: 'text', model, k: config.lane_budget, namespaces: [ns], layers: searchLayers, exclude })]);
    if (windowWeight > 0 && conversational.length)
      lanes.push([`feedback_window:${kind}`, vectors.search(q, { lane: 'window', model, k: config.lane_budget, namespaces: [ns], layers: conversational, exclude })]);
  }
  return lanes;
}

/**
 * RM3-style expansion of the keyword lane: the words the best candidates share that the question
 * does not hold (each candidate's term frequency over its length, times the term's idf in the
 * namespace), added to the question's own words: lane `feedback_terms:utterance`.
 */
function termLanes(core: RecallCore, config: RecallConfig, plan: RecallPlan, keys: readonly string[], exclude: ReadonlySet<string>): [string, LaneHit[]][] {
  const { ns, searchLayers } = plan;
  const records = core.projections.views.records;
  const keyword = core.projections.views.keyword;
  const asked = new Set(queryTokens(plan.asked));
  const weight = new Map<string, number>();
  for (const key of keys) {
    const entry = records.get(key);
    if (!entry) continue;
    const tokens = tokenize(searchableText(entry));
    if (!tokens.length) continue;
    for (const t of tokens) if (!asked.has(t) && t.length > 2 && !/^\d+$/.test(t)) weight.set(t, (weight.get(t) ?? 0) + 1 / tokens.length);
  }
  const terms = [...weight]
    .map(([t, w]) => [t, w * keyword.idf(t, ns)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, config.feedback.terms)
    .map(([t]) => t);
  if (!terms.length) return [];
  const hits = keyword.search(`${plan.asked} ${terms.join(' ')}`, { namespaces: [ns], layers: searchLayers, limit: config.lane_budget, exclude });
  return [['feedback_terms:utterance', hits.map((h) => ({ key: h.key, score: h.score }))]];
}

/** share × q̂ + (1 − share) × mean of the unit documents, normalised (the lanes hold unit vectors; cosine either way). */
export function rocchio(query: Float32Array, docs: readonly Float32Array[], share: number): Float32Array {
  const out = new Float32Array(query.length);
  const qn = norm(query) || 1;
  for (let i = 0; i < query.length; i++) out[i] = (share * (query[i] as number)) / qn;
  const each = (1 - share) / docs.length;
  for (const d of docs) {
    const dn = norm(d) || 1;
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (each * (d[i] as number)) / dn;
  }
  const n = norm(out) || 1;
  for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / n;
  return out;
}

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  return Math.sqrt(s);
}
