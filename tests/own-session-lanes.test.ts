// Seed rule: a session's own visible traces are left out inside every lane's query (keyword,
// dense text, dense window), so a session that kept talking about one subject cannot fill a
// lane's budget with its own turns and push another session's item out before fusion.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { completeTurn, DEFAULT_RECALL_CONFIG, openSession, recall, startTurn, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { VectorLane } from '../projections/vector/lane.js';
import { memoryStore } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
let embedder: HashedEmbedder;
let core: RecallCore;
const OTHER = 'ev1:private:trace:';

beforeEach(async () => {
  store = await memoryStore();
  embedder = new HashedEmbedder(64);
  // a lane budget of 3: the session's own five turns would fill every lane
  core = { log: store.log, projections: store.projections, embedder, judge: new DoubleJudge(() => 0.9), config: { ...DEFAULT_RECALL_CONFIG, lane_budget: 3 } };
});
afterEach(async () => store.close());

async function talk(session: string, query: string, answer: string): Promise<string> {
  const t = await startTurn(core, { session_id: session, query });
  await completeTurn(core, t.turn_id, { answer });
  return t.turn_id;
}

describe("a session's own traces, left out inside the lanes", () => {
  it('still finds the other session’s item with a lane budget of 3', async () => {
    await openSession(core, { agent: 'test', session_id: 'busy' });
    const own: string[] = [];
    for (let i = 0; i < 5; i++) own.push(await talk('busy', `zebra herd migration route ${i}`, `the zebra herd migration route crosses the river ${i}`));
    await openSession(core, { agent: 'test', session_id: 'earlier' });
    const other = await talk('earlier', 'where did the zebra herd go last year, and what did the rangers say about the drought?', 'north, the rangers said');
    await new EmbeddingIndexer(store, embedder).run();
    const otherKey = `${OTHER}${other}`;
    const query = 'zebra herd migration route';

    // seen from elsewhere, the busy session's turns take every slot of the budget-3 lanes
    const outside = await recall(core, { query });
    const lanesOf = (p: typeof outside, key: string) => Object.keys(p.records.find((r) => r.evidence_key === key)?.why.lane_hits ?? {});
    expect(lanesOf(outside, otherKey)).not.toContain('keyword:utterance');
    expect(lanesOf(outside, otherKey)).not.toContain('vector:utterance');

    const mine = await recall(core, { query, session_id: 'busy' });
    expect(mine.records.map((r) => r.evidence_key)).toContain(otherKey);
    expect(mine.records.some((r) => own.some((t) => r.evidence_key === `${OTHER}${t}`))).toBe(false);
    // found by every lane kind (the dense lanes read the query with the session's dialogue)
    for (const lane of ['keyword:', 'vector:', 'window:']) expect(lanesOf(mine, otherKey).some((l) => l.startsWith(lane))).toBe(true);
    expect(mine.warnings).toContain('own_session_traces_excluded:5');

    // after a compaction the turns before it are recallable again (the agent no longer sees them)
    const compacted = await recall(core, { query, session_id: 'busy', context_since: new Date(Date.now() + 1_000).toISOString() });
    expect(compacted.records.some((r) => own.some((t) => r.evidence_key === `${OTHER}${t}`))).toBe(true);
  });

  it('keeps excluded keys out of the projections’ top k without counting them as filtered by namespace', async () => {
    await store.knowledge.writeMemories({ memories: Array.from({ length: 6 }, (_, i) => ({ id: `m${i}`, kind: 'fact' as const, text: `kestrel nest ${i}` })) });
    await new EmbeddingIndexer(store, embedder).run();
    const { keyword, vector } = store.projections.views;
    const all = keyword.searchCounting('kestrel nest', { namespaces: ['private'], limit: 3 });
    const skip = new Set(all.hits.map((h) => h.key));
    const rest = keyword.searchCounting('kestrel nest', { namespaces: ['private'], limit: 3, exclude: skip });
    expect(rest.hits).toHaveLength(3);
    expect(rest.hits.some((h) => skip.has(h.key))).toBe(false);
    expect(rest.excluded).toBe(3);
    expect(rest.filtered).toEqual(all.filtered);
    const [v] = await embedder.embed(['kestrel nest']);
    const dense = vector.search(v as Float32Array, { lane: 'text', model: embedder.id, k: 3, namespaces: ['private'] });
    const denseRest = vector.search(v as Float32Array, {
      lane: 'text',
      model: embedder.id,
      k: 3,
      namespaces: ['private'],
      exclude: new Set(dense.map((h) => h.key)),
    });
    expect(denseRest).toHaveLength(3);
    expect(denseRest.some((h) => dense.some((d) => d.key === h.key))).toBe(false);
  });

  it('an HNSW lane refuses excluded labels inside the graph walk: with its 200 nearest excluded, a query still gets the 10 nearest of the rest', () => {
    const dim = 16;
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const vectors = Array.from({ length: 3_000 }, () => Float32Array.from({ length: dim }, rand));
    const lane = new VectorLane('text', 'synthetic', dim);
    vectors.forEach((v, i) => lane.put(`k${i}`, v, undefined, `h${i}`, 0));
    const accept = Uint8Array.of(1);
    const query = vectors[0] as Float32Array;
    const cosine = (a: Float32Array, b: Float32Array): number => {
      let dot = 0,
        na = 0,
        nb = 0;
      for (let i = 0; i < dim; i++) ((dot += a[i]! * b[i]!), (na += a[i]! ** 2), (nb += b[i]! ** 2));
      return dot / Math.sqrt(na * nb);
    };
    const exact = vectors.map((v, i) => ({ key: `k${i}`, score: cosine(query, v) })).sort((a, b) => b.score - a.score);
    const excluded = new Set(exact.slice(0, 200).map((h) => h.key));
    const hits = lane.searchGated(query, 10, accept, excluded);
    expect(hits).toHaveLength(10);
    expect(hits.some((h) => excluded.has(h.key))).toBe(false);
    const truth = new Set(exact.slice(200, 210).map((h) => h.key));
    expect(hits.filter((h) => truth.has(h.key)).length).toBeGreaterThanOrEqual(9); // HNSW is approximate
  });
});
