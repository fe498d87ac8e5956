// Fusion rules (pure functions): weights, normalisation, duplicates within a lane,
// zero-weight lanes and a deterministic order on ties.
import { describe, expect, it } from 'vitest';
import { fuse, fuseRrf, fuseWeightedMinMax, laneWeight, type LaneHit } from '../src/recall/fusion.js';

const lanes = (entries: Record<string, [string, number][]>): Map<string, LaneHit[]> =>
  new Map(Object.entries(entries).map(([lane, hits]) => [lane, hits.map(([key, score]) => ({ key, score }))]));

describe('fusion', () => {
  it('weighs a lane by its exact name, then its channel, else 0', () => {
    expect(laneWeight({ 'keyword:utterance': 2, keyword: 1 }, 'keyword:utterance')).toBe(2);
    expect(laneWeight({ keyword: 1 }, 'keyword:context')).toBe(1);
    expect(laneWeight({ keyword: 1 }, 'vector:utterance')).toBe(0);
  });

  it('leaves out a lane of weight 0 entirely: its keys do not appear', () => {
    const l = lanes({ 'keyword:u': [['a', 3]], 'vector:u': [['z', 0.9]] });
    for (const f of [fuseRrf(l, { keyword: 1, vector: 0 }), fuseWeightedMinMax(l, { keyword: 1, vector: 0 })]) expect(f.map((x) => x.key)).toEqual(['a']);
  });

  it('counts a key listed twice in one lane once, at its best', () => {
    const l = lanes({
      'keyword:u': [
        ['a', 4],
        ['b', 2],
        ['a', 1],
        ['c', 0],
      ],
    });
    const rrf = fuseRrf(l, { keyword: 1 }, 60);
    expect(rrf.find((x) => x.key === 'a')).toEqual({ key: 'a', score: 1 / 61, parts: { 'keyword:u': 1 / 61 } });
    const w = fuseWeightedMinMax(l, { keyword: 1 });
    expect(w.find((x) => x.key === 'a')).toEqual({ key: 'a', score: 1, parts: { 'keyword:u': 1 } });
    // listed best-last: still its best
    const late = fuseWeightedMinMax(
      lanes({
        'keyword:u': [
          ['a', 1],
          ['b', 2],
          ['a', 4],
          ['c', 0],
        ],
      }),
      { keyword: 1 },
    );
    expect(late.find((x) => x.key === 'a')?.score).toBe(1);
  });

  it('normalises each lane by min-max and adds weighted parts; a lane of equal scores counts 1 per hit', () => {
    const f = fuseWeightedMinMax(
      lanes({
        'keyword:u': [
          ['a', 10],
          ['b', 5],
          ['c', 0],
        ],
        'vector:u': [
          ['b', 0.7],
          ['c', 0.7],
        ],
      }),
      { keyword: 1, vector: 0.5 },
    );
    expect(f).toEqual(
      [
        { key: 'b', score: 1, parts: { 'keyword:u': 0.5, 'vector:u': 0.5 } },
        { key: 'a', score: 1, parts: { 'keyword:u': 1 } },
        { key: 'c', score: 0.5, parts: { 'keyword:u': 0, 'vector:u': 0.5 } },
      ].sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : 1)),
    );
  });

  it('breaks ties by evidence key, ascending, whatever the input order', () => {
    const f = fuseWeightedMinMax(
      lanes({
        'keyword:u': [
          ['m', 1],
          ['b', 1],
          ['x', 1],
        ],
      }),
      { keyword: 1 },
    );
    expect(f.map((x) => x.key)).toEqual(['b', 'm', 'x']);
  });

  it('dispatches on the method', () => {
    const l = lanes({
      'keyword:u': [
        ['a', 2],
        ['b', 1],
      ],
      'vector:u': [
        ['b', 0.9],
        ['a', 0.1],
      ],
    });
    expect(fuse('rrf', l, { keyword: 1, vector: 1 }, 10)).toEqual(fuseRrf(l, { keyword: 1, vector: 1 }, 10));
    expect(fuse('weighted', l, { keyword: 1, vector: 1 })).toEqual(fuseWeightedMinMax(l, { keyword: 1, vector: 1 }));
    expect(fuse('rrf', l, { keyword: 1, vector: 1 }, 10)).not.toEqual(fuseWeightedMinMax(l, { keyword: 1, vector: 1 }));
  });
});
