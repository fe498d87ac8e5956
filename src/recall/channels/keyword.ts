// The lexical channel: BM25 over the searchable text of every enabled layer (lane
// `keyword`), and over memories' expansion terms (lane `terms`), once per planned query —
// or, when the request gives expansion terms apart from its sentence, over those terms only.
import type { Channel } from './channel.js';

export const keywordChannel: Channel = {
  name: 'keyword',
  dense: false,
  run({ core, config, plan, exclude }) {
    const keyword = core.projections.views.keyword;
    const { ns, searchLayers } = plan;
    // expansion terms given apart from the sentence are what the lexical lanes search
    const terms = plan.request.terms;
    const queries = terms ? [{ kind: 'utterance' as const, text: terms.join(' ') }] : plan.queries;
    const lanes: [string, { key: string; score: number }[]][] = [];
    let keywordHits = 0;
    let termHits = 0;
    let filteredByLayer: Record<string, number> = {};
    let ownExcluded = 0;
    for (const q of queries) {
      const { hits, filtered, excluded } = keyword.searchCounting(q.text, { namespaces: [ns], layers: searchLayers, limit: config.lane_budget, exclude });
      if (q.kind === 'utterance') filteredByLayer = filtered;
      ownExcluded = Math.max(ownExcluded, excluded);
      // a complete match of the query's words wins a tie with a partial one
      lanes.push([`keyword:${q.kind}`, hits.map((h) => ({ key: h.key, score: h.score + (h.complete ? 1e-9 : 0) }))]);
      keywordHits += hits.length;
      if (searchLayers.includes('memory')) {
        const terms = keyword.search(q.text, { namespaces: [ns], layers: ['memory'], lane: 'terms', limit: config.lane_budget });
        lanes.push([`terms:${q.kind}`, terms.map((h) => ({ key: h.key, score: h.score }))]);
        termHits += terms.length;
      }
    }
    return {
      lanes,
      filteredByLayer,
      // how many of the session's own traces a query matched (the most any one did): kept out of every lane
      warnings: ownExcluded ? [`own_session_traces_excluded:${ownExcluded}`] : [],
      backends: {
        keyword: { attempted: true, used: keywordHits > 0, status: keywordHits > 0 ? 'used' : 'empty' },
        terms: searchLayers.includes('memory')
          ? { attempted: true, used: termHits > 0, status: termHits > 0 ? 'used' : 'empty' }
          : { attempted: false, used: false, status: 'disabled' },
      },
    };
  },
};
