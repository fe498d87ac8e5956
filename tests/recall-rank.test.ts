// recall, stage 3 (rank): fusion, cue boosts, neighbours, and how a recall explains itself.
import { describe, expect, it } from 'vitest';
import type { HashedEmbedder } from '../src/embed/index.js';
import {
  DEFAULT_RECALL_CONFIG,
  fuseRrf,
  fuseWeightedMinMax,
  isQuestion,
  neighbourBoosts,
  type Neighbours,
  parseTimeRange,
  recall,
  type RecallCore,
} from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { type LibraryStore, useRecallLibrary } from './fixtures/recall-library.js';
import { memoryStore } from './helpers.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

describe('fusion and cues', () => {
  const lists = new Map([
    [
      'keyword:utterance',
      [
        { key: 'a', score: 10 },
        { key: 'b', score: 5 },
        { key: 'c', score: 0 },
      ],
    ],
    [
      'vector:utterance',
      [
        { key: 'c', score: 0.9 },
        { key: 'b', score: 0.8 },
      ],
    ],
  ]);
  it('RRF sums weighted reciprocal ranks', () => {
    const f = fuseRrf(lists, { keyword: 1, vector: 1 }, 60);
    expect(f.map((x) => x.key)).toEqual(['c', 'b', 'a']);
    expect(f.find((x) => x.key === 'b')?.score).toBeCloseTo(1 / 62 + 1 / 62, 10);
  });
  it('the weighted sum normalises each lane before adding', () => {
    const f = fuseWeightedMinMax(lists, { keyword: 1, vector: 1 });
    expect(f.map((x) => [x.key, Math.round(x.score * 1000) / 1000])).toEqual([
      ['a', 1],
      ['c', 1],
      ['b', 0.5],
    ]);
  });
  it('parses dates, months and relative times in English and Chinese', () => {
    const now = new Date('2026-11-29T12:00:00Z');
    expect(parseTimeRange('what happened on 8 May 2023?', now)).toMatchObject({ from: new Date('2023-05-08T00:00:00Z'), to: new Date('2023-05-09T00:00:00Z') });
    expect(parseTimeRange('plans for May 2023', now)?.to).toEqual(new Date('2023-06-01T00:00:00Z'));
    expect(parseTimeRange('昨天的会议', now)?.from).toEqual(new Date('2026-11-28T00:00:00Z'));
    expect(parseTimeRange('2023年5月的计划', now)?.from).toEqual(new Date('2023-05-01T00:00:00Z'));
    expect(parseTimeRange('what did we do last week', now)?.from).toEqual(new Date('2026-11-16T00:00:00Z'));
    expect(parseTimeRange('roll back please', now)).toBeUndefined();
  });
  it('boosts items by a speaker the query names and items in the time range it mentions', async () => {
    const log = store.log;
    await log.append({
      type: 'turn.started',
      ns: 'private',
      data: { turn_id: 'c1', session_id: 'conv', query: 'I adopted a dog named Rex.', speaker: 'Caroline', occurred_at: '2023-05-08T13:56:00Z' },
    });
    await log.append({
      type: 'turn.started',
      ns: 'private',
      data: { turn_id: 'c2', session_id: 'conv', query: 'I adopted a cat named Tom.', speaker: 'Melanie', occurred_at: '2023-06-20T10:00:00Z' },
    });
    await store.projections.waitFor(log.head().seq);
    const bySpeaker = await recall(core, { query: 'What pet did Caroline adopt?' });
    expect(bySpeaker.records[0]?.evidence_key).toBe('ev1:private:trace:c1');
    expect(bySpeaker.records[0]?.why.lanes['entity_cue']).toBeGreaterThan(0);
    const byDate = await recall(core, { query: 'Which pet was adopted in June 2023?' });
    expect(byDate.records[0]?.evidence_key).toBe('ev1:private:trace:c2');
    expect(byDate.time_cue?.phrase).toBe('June 2023'); // as written
  });

  it('passes a share of a strong trace score to the turns around it, more to the reply to a question, never stacking boosts', () => {
    const around: Record<string, Neighbours> = { t2: { before: 't1', after: 't3' }, t4: { before: 't3', after: 't5' } };
    const of = (k: string): Neighbours => around[k] ?? {};
    const boosts = neighbourBoosts(
      [
        { key: 't2', score: 2 },
        { key: 't4', score: 1, question: true },
      ],
      of,
      0.3,
      1.5,
    );
    expect(Object.fromEntries([...boosts].map(([k, v]) => [k, Math.round(v * 100) / 100]))).toEqual({ t1: 0.6, t3: 0.6, t5: 0.45 });
    expect(neighbourBoosts([{ key: 't2', score: 2 }], of, 0).size).toBe(0);
    expect(['Where did you go camping?', '你去哪里露营了？'].every(isQuestion)).toBe(true);
    expect(isQuestion('We went camping.')).toBe(false);
  });

  it('orders a session by when its turns happened, and follows new turns', async () => {
    const turn = (turn_id: string, day: number) =>
      store.log.append({
        type: 'turn.started',
        ns: 'private',
        data: { turn_id, session_id: 'ordered', query: `turn ${turn_id}`, occurred_at: `2023-07-0${day}T10:00:00Z` },
      });
    await turn('b', 2);
    await turn('a', 1); // imported late, happened first
    await turn('c', 3);
    await store.projections.waitFor(store.log.head().seq);
    const records = store.projections.views.records;
    const key = (id: string): string => `ev1:private:trace:${id}`;
    expect(records.turnNeighbours(key('b'))).toEqual({ before: key('a'), after: key('c') });
    expect(records.turnNeighbours(key('a'))).toEqual({ before: undefined, after: key('b') });
    await turn('d', 4);
    await store.projections.waitFor(store.log.head().seq);
    expect(records.turnNeighbours(key('c'))).toEqual({ before: key('b'), after: key('d') });
    expect(records.turnNeighbours('ev1:private:memory:rollback')).toEqual({});
  });

  it('brings back the reply to a matching turn although it shares no words with the query', async () => {
    const turns: [string, string][] = [
      ['n1', 'Good morning, how was the weekend?'],
      ['n2', 'Where did Melanie go camping this summer?'],
      ['n3', 'Up in the Sierra mountains, near a lake.'],
      ['n4', 'I baked bread on Sunday.'],
    ];
    for (const [i, [turn_id, query]] of turns.entries())
      await store.log.append({ type: 'turn.started', ns: 'private', data: { turn_id, session_id: 'talk', query, occurred_at: `2023-07-0${i + 1}T10:00:00Z` } });
    await store.projections.waitFor(store.log.head().seq);
    const reply = (p: Awaited<ReturnType<typeof recall>>) => p.records.find((r) => r.id === 'n3');
    const lifted = await recall(core, { query: 'Where did Melanie go camping?', options: { semantic: false } });
    expect(reply(lifted)?.why.lanes['neighbour']).toBeGreaterThan(0);
    const off = await recall(
      { ...core, config: { ...DEFAULT_RECALL_CONFIG, neighbour_weight: 0 } },
      { query: 'Where did Melanie go camping?', options: { semantic: false } },
    );
    expect(reply(off)).toBeUndefined();
  });
});

describe('explaining a recall', () => {
  it('explains the weaker of two candidates by its raw lane score and rank, where min-max gives it 0', async () => {
    const two = await memoryStore();
    try {
      await two.knowledge.writeMemories({
        memories: [
          { id: 'strong', kind: 'fact', text: 'The zebra quokka ledger lives in vault seven.' },
          { id: 'weak', kind: 'fact', text: 'A quokka visited once.' },
        ],
      });
      const p = await recall({ log: two.log, projections: two.projections, judge: new DoubleJudge(() => 0.9) }, { query: 'zebra quokka ledger' });
      const weak = p.records.find((r) => r.id === 'weak');
      expect(p.records).toHaveLength(2);
      expect(weak?.why.lanes['keyword:utterance']).toBe(0);
      expect(weak?.why.lane_hits['keyword:utterance']).toMatchObject({ rank: 2 });
      expect(weak?.why.lane_hits['keyword:utterance']?.score).toBeGreaterThan(0);
    } finally {
      await two.close();
    }
  });
});
