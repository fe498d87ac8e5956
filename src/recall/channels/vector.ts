// The dense channel: the query vectors against the HNSW lanes, `text` over every enabled
// layer and `window` (a turn with its neighbours) over traces and session memories.
import type { Embedder } from '../../embed/index.js';
import type { BackendDiagnostic } from '../packet.js';
import type { Channel, ChannelOutput } from './channel.js';

export const vectorChannel: Channel = {
  name: 'vector',
  dense: true,
  run({ core, config, plan, embedded, exclude }): ChannelOutput {
    if (!embedded.vectors) return { lanes: [], backends: {} };
    const vectors = core.projections.views.vector;
    const { ns, queries, searchLayers } = plan;
    const model = (core.embedder as Embedder).id;
    const lanes: [string, { key: string; score: number }[]][] = [];
    let vectorHits = 0;
    for (const q of queries) {
      const v = embedded.vectors.get(q.kind);
      if (!v) continue;
      const text = vectors.search(v, { lane: 'text', model, k: config.lane_budget, namespaces: [ns], layers: searchLayers, exclude });
      lanes.push([`vector:${q.kind}`, text.map((h) => ({ key: h.key, score: h.score }))]);
      vectorHits += text.length;
      const conversational = searchLayers.filter((l) => l === 'trace' || l === 'memory');
      if (conversational.length) {
        const window = vectors.search(v, { lane: 'window', model, k: config.lane_budget, namespaces: [ns], layers: conversational, exclude });
        lanes.push([`window:${q.kind}`, window.map((h) => ({ key: h.key, score: h.score }))]);
      }
    }
    const waiting = core.waitingForVectors?.(ns) ?? 0;
    const lane: BackendDiagnostic =
      embedded.vectors.size === 0
        ? { attempted: false, used: false, status: 'disabled' }
        : waiting > 0 && vectorHits === 0
          ? { attempted: true, used: false, status: 'unavailable' }
          : { attempted: true, used: vectorHits > 0, status: vectorHits > 0 ? 'used' : 'empty' };
    return {
      lanes,
      backends: { vector: waiting > 0 ? { ...lane, waiting_for_vectors: waiting } : lane },
      warnings: waiting > 0 ? [`vectors_pending:${waiting}`] : [],
    };
  },
};
