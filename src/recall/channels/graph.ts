// The graph channel (issue 35; seed 004's third channel): the entities the query names, then
// breadth-first over the graph projection to depth 2 — items naming a query entity (hop 1), then
// from the best of those the items sharing another of their entities, what superseded them or
// they superseded, the cards they reference, and the turns before and after them in their
// session (hop 2). Score: Σ edge weight / hops, an entity's weight its rarity
// (ln(1 + N/df)); an entity named by more than `graph.max_share` of a namespace's items (a
// conversation's speakers, a word every note has) is a noisy edge and is not walked.
import type { GraphProjection } from '../../../projections/graph.js';
import { canSee } from '../../knowledge/audience.js';
import { cjkTerms, extractEntities, mayNameEntity } from '../../text/entities.js';
import type { GraphConfig, RecallConfig } from '../config.js';
import { sessionNeighbours } from '../neighbours.js';
import type { Channel, ChannelInput, ChannelOutput } from './channel.js';

export const graphChannel: Channel = {
  name: 'graph',
  dense: false,
  run(input: ChannelInput): ChannelOutput {
    const { core, config, plan, exclude, audience } = input;
    if ((config.channel_weights['graph'] ?? 0) === 0) return { lanes: [], backends: { graph: { attempted: false, used: false, status: 'disabled' } } };
    const graph = core.projections.views.graph;
    const records = core.projections.views.records;
    const { ns, searchLayers } = plan;
    const queries = plan.queries.filter((q) => q.kind === 'utterance' || q.kind === 'context');
    const lanes: [string, { key: string; score: number }[]][] = [];
    let hits = 0;
    for (const q of queries) {
      const neighbours = sessionNeighbours(records, graph, ns, config.plain_session_gap_min);
      // the walk starts only from items the caller sees: another member's private memory naming the
      // query's words would otherwise lead to the shared items naming its other entities (issue 34)
      const sees = (key: string): boolean => {
        const e = records.get(key);
        return e !== undefined && canSee(e, audience);
      };
      const scores = walk(
        graph,
        config,
        ns,
        queryEntities(graph, ns, q.text, config),
        (key) => {
          const { before, after } = neighbours(key);
          return [before, after].filter((k): k is string => k !== undefined);
        },
        sees,
      );
      const ranked: { key: string; score: number }[] = [];
      for (const [key, score] of scores) {
        if (exclude.has(key)) continue;
        const e = records.get(key);
        if (!e || e.status !== 'active' || e.ns !== ns || !searchLayers.includes(e.layer)) continue;
        ranked.push({ key, score });
      }
      ranked.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
      const top = ranked.slice(0, config.lane_budget);
      lanes.push([`graph:${q.kind}`, top]);
      hits += top.length;
    }
    return { lanes, backends: { graph: { attempted: true, used: hits > 0, status: hits > 0 ? 'used' : 'empty' } } };
  },
};

/** The query's entities the namespace knows, with their weight (rarity); noisy ones left out. */
export function queryEntities(graph: GraphProjection, ns: string, text: string, config: RecallConfig): Map<string, number> {
  const n = Math.max(1, graph.size(ns));
  const candidates = new Set(extractEntities(text, 64));
  const words = (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’_.:/-]*/gu) ?? []).map((w) => w.replace(/['’]s$|[.:]+$/u, ''));
  for (let i = 0; i < words.length; i++)
    for (let len = 1; len <= 3 && i + len <= words.length; len++) {
      const gram = words.slice(i, i + len);
      if (mayNameEntity(gram[0] as string) && mayNameEntity(gram.at(-1) as string)) candidates.add(gram.join(' '));
    }
  for (const run of text.match(/[\p{Script=Han}]{2,}/gu) ?? []) for (const t of cjkTerms(run)) candidates.add(t);
  const out = new Map<string, number>();
  for (const e of candidates) {
    const df = graph.itemsNaming(ns, e).size;
    if (df > 0 && !noisy(df, n, config.graph)) out.set(e, Math.log(1 + n / df));
  }
  return out;
}

const noisy = (df: number, n: number, g: GraphConfig): boolean => df > g.max_df || (df > 2 && df > g.max_share * n);

/** Breadth-first to depth 2 from the query's entities: key → Σ weight / hops. */
export function walk(
  graph: GraphProjection,
  config: RecallConfig,
  ns: string,
  entities: ReadonlyMap<string, number>,
  sessionNeighbours: (key: string) => string[],
  /** the items the walk may start from (hop 1; default every one) */
  sees: (key: string) => boolean = () => true,
): Map<string, number> {
  const g = config.graph;
  const n = Math.max(1, graph.size(ns));
  const hop1 = new Map<string, number>();
  for (const [e, w] of entities) for (const key of graph.itemsNaming(ns, e)) if (sees(key)) hop1.set(key, (hop1.get(key) ?? 0) + w);
  const scores = new Map(hop1);
  const frontier = [...hop1].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, g.frontier);
  const best = frontier[0]?.[1] ?? 0;
  const add = (key: string, w: number): void => void scores.set(key, (scores.get(key) ?? 0) + w / 2);
  for (const [from, s] of frontier) {
    // an edge from a weaker hop-1 item carries less: its share of the best one's score
    const share = best > 0 ? s / best : 0;
    for (const e of graph.entitiesOf(from)) {
      if (entities.has(e)) continue;
      const naming = graph.itemsNaming(ns, e);
      if (naming.size < 2 || noisy(naming.size, n, g)) continue;
      const w = Math.log(1 + n / naming.size) * share;
      for (const key of naming) if (key !== from) add(key, w);
    }
    for (const key of graph.supersedeOf(from)) add(key, g.weights.supersede * share);
    for (const key of graph.referencesOf(from)) add(key, g.weights.reference * share);
    for (const key of sessionNeighbours(from)) add(key, g.weights.session * share);
  }
  return scores;
}
