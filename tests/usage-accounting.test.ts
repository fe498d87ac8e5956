// Usage accounting that informs and never buries: unknown verdicts are no observation,
// a weak neighbour's negative does not count, demotion costs a bounded share of the score,
// and a soak of 2,000 recalls in a fixed order never pushes an item that is the strongest
// lexical and dense match for its own question out of the top 10.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMOTION_MIN_JUDGED, RELEVANT_AT, SERIOUS_RANKS, seriousCandidates, UsageProjection as Usage } from '../projections/usage.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { upcast, type LogRecord } from '../src/events/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { DEFAULT_RECALL_CONFIG, recall, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { memoryStore } from './helpers.js';

let seq = 0;
// v1 records, read as the log reads them (upcast to the current version)
const rec = (type: string, data: unknown, ns = 'private'): LogRecord => upcast({ seq: ++seq, ts: 0, type, v: 1, ns, actor: 't', data, hash: '', bytes: 0 });
const performed = (id: string, candidates: [string, number][]) =>
  rec('recall.performed', {
    recall_id: id,
    retrieval_mode: 'keyword',
    queries: [],
    candidates: candidates.map(([k, score]) => ({ evidence_key: k, layer: 'memory', score })),
  });
const verdicts = (id: string, v: [string, number | null][]) =>
  rec('verdict.recorded', { recall_id: id, judge: 'double', status: 'complete', verdicts: v.map(([k, score]) => ({ evidence_key: k, score })) });

describe('usage projection rules', () => {
  it('counts an unknown verdict as no observation at all, however often it comes', () => {
    const u = new Usage();
    for (let i = 0; i < 2 * DEMOTION_MIN_JUDGED; i++) {
      u.apply(performed(`r${i}`, [['a', 1]]));
      u.apply(verdicts(`r${i}`, [['a', null]]));
    }
    expect(u.get('private', 'a')).toEqual({ considered: 10, judged: 0, relevant: 0, returned: 0 });
    expect(u.demoted('private', 'a')).toBe(false);
  });

  it('counts a verdict exactly at the relevance threshold as relevant', () => {
    const u = new Usage();
    u.apply(performed('r', [['a', 1]]));
    u.apply(verdicts('r', [['a', RELEVANT_AT]]));
    expect(u.get('private', 'a')).toMatchObject({ judged: 1, relevant: 1 });
    u.apply(performed('s', [['a', 1]]));
    u.apply(verdicts('s', [['a', RELEVANT_AT - 1e-9]]));
    expect(u.get('private', 'a')).toMatchObject({ judged: 2, relevant: 1 });
  });

  it('counts a negative only for a serious candidate: among the first three, with half the best score', () => {
    expect(seriousCandidates([])).toEqual([]);
    expect(
      seriousCandidates([
        { evidence_key: 'a', score: 1 },
        { evidence_key: 'b', score: 0.5 },
        { evidence_key: 'c', score: 0.49 },
        { evidence_key: 'd', score: 0.9 },
      ]),
    ).toEqual(['a', 'b']);
    const u = new Usage();
    const cands: [string, number][] = [
      ['a', 1],
      ['b', 0.8],
      ['c', 0.7],
      ['d', 0.69],
      ['weak', 0.1],
    ];
    for (let i = 0; i < DEMOTION_MIN_JUDGED; i++) {
      u.apply(performed(`r${i}`, cands));
      u.apply(
        verdicts(
          `r${i}`,
          cands.map(([k]) => [k, 0.1] as [string, number]),
        ),
      );
    }
    expect(SERIOUS_RANKS).toBe(3);
    for (const k of ['a', 'b', 'c']) expect(u.demoted('private', k)).toBe(true);
    // considered every time, never a judged negative: a weak neighbour, and the fourth
    expect(u.get('private', 'weak')).toEqual({ considered: 5, judged: 0, relevant: 0, returned: 0 });
    expect(u.get('private', 'd')).toMatchObject({ judged: 0 });
    // a positive always counts, wherever the item ranked, and lifts demotion
    u.apply(performed('lift', cands));
    u.apply(
      verdicts('lift', [
        ['c', 0.1],
        ['weak', 0.9],
      ]),
    );
    expect(u.get('private', 'weak')).toMatchObject({ judged: 1, relevant: 1 });
  });
});

describe('demotion through recall', () => {
  let store: Awaited<ReturnType<typeof memoryStore>>;
  let core: RecallCore;
  beforeEach(async () => {
    store = await memoryStore();
    const embedder = new HashedEmbedder(64);
    await store.knowledge.writeMemories({
      memories: [
        { id: 'target', kind: 'fact', text: 'The flamingo cluster backs up nightly to the vault in Oslo.' },
        ...Array.from({ length: 15 }, (_, i) => ({ id: `other-${i}`, kind: 'fact' as const, text: `Cluster note ${i}: nightly jobs run for team ${i}.` })),
      ],
    });
    await new EmbeddingIndexer(store, embedder).run();
    core = { log: store.log, projections: store.projections, embedder, judge: new DoubleJudge(() => 0.1) };
  });
  afterEach(async () => store.close());

  it('keeps a demoted strong match above weak ones: it loses a bounded share, never its place among them', async () => {
    for (let i = 0; i < DEMOTION_MIN_JUDGED; i++) await recall(core, { query: `flamingo cluster vault ${i}` });
    expect(store.projections.views.usage.demoted('private', 'ev1:private:memory:target')).toBe(true);
    const p = await recall(core, { query: 'where does the flamingo cluster back up?', limit: 5 });
    expect(p.records[0]).toMatchObject({ id: 'target', why: { demoted: true } });
    expect(p.records[0]?.why.lanes['demotion']).toBeCloseTo(
      -(1 - DEFAULT_RECALL_CONFIG.demotion_factor) * ((p.records[0]?.score ?? 0) / DEFAULT_RECALL_CONFIG.demotion_factor),
      6,
    );
    // the weaker candidates stay below it
    for (const r of p.records.slice(1)) expect(r.score).toBeLessThan(p.records[0]?.score ?? 0);
  });
});

/** A small seeded PRNG (mulberry32): the soak's order is fixed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('feedback-loop soak', () => {
  it('asks 2,000 questions in a fixed order and never drops a strongest match out of the top 10 because of accounting', async () => {
    const store = await memoryStore();
    try {
      const embedder = new HashedEmbedder(64);
      // pairs of documents sharing a topic word: asking about one makes the other a serious,
      // judged-negative candidate, so many items are demoted before their own question comes
      const PAIRS = 60;
      const word = (n: number): string => `w${n.toString(36)}q${((n * 7919) % 1000).toString(36)}`;
      const docs = Array.from({ length: PAIRS * 2 }, (_, i) => ({
        id: `doc-${i}`,
        kind: 'fact' as const,
        text: `Project notes on ${word(10_000 + Math.floor(i / 2))}: the ${word(i)} service is owned by the platform team.`,
      }));
      await store.knowledge.writeMemories({ memories: docs });
      await new EmbeddingIndexer(store, embedder).run();
      const question = (i: number): string => `who owns the ${word(i)} service in the ${word(10_000 + Math.floor(i / 2))} project notes?`;
      const target = new Map(docs.map((_, i) => [question(i), `ev1:private:memory:doc-${i}`]));
      const judge = new DoubleJudge((c, req) => (target.get(req.utterance) === c.key ? 0.9 : 0.1));
      const core: RecallCore = { log: store.log, projections: store.projections, embedder, judge };

      // before any accounting: which questions have their document as the strongest lexical and dense match
      const keyword = store.projections.views.keyword;
      const vectors = store.projections.views.vector;
      const strongest = new Set<number>();
      for (let i = 0; i < docs.length; i++) {
        const kw = keyword.search(question(i), { namespaces: ['private'], limit: 1 })[0]?.key;
        const [v] = await embedder.embed([question(i)]);
        const dense = vectors.search(v as Float32Array, { lane: 'text', model: embedder.id, k: 1, namespaces: ['private'] })[0]?.key;
        if (kw === target.get(question(i)) && dense === kw) strongest.add(i);
      }
      expect(strongest.size).toBeGreaterThan(docs.length / 2);

      const rand = prng(42);
      // one document of each pair is asked about nine times as often as the other: the rare one
      // collects serious negatives long before its own question comes (as in a library in use)
      const order = Array.from({ length: 2_000 }, () => {
        const pair = Math.floor(rand() * PAIRS);
        return 2 * pair + (rand() < 0.1 ? 1 : 0);
      });
      const misses: number[] = [];
      let demotedSeen = 0;
      const usage = store.projections.views.usage;
      for (const i of order) {
        // questions whose own document was demoted when they came
        if (usage.demoted('private', target.get(question(i)) as string)) demotedSeen += 1;
        const p = await recall(core, { query: question(i), limit: 10 });
        const rank = p.records.findIndex((r) => r.evidence_key === target.get(question(i)));
        if (strongest.has(i) && rank < 0) misses.push(i);
      }
      // the soak did exercise demotion, and accounting buried nothing
      expect(demotedSeen).toBeGreaterThan(5);
      expect(misses).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);
});
