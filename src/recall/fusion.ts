// Fusion over evidence keys. Two methods, chosen by measurement (architecture.md §measured): on
// LoCoMo with the bundled model, RRF (k = 60, equal weights) scored below BM25 alone
// while a weighted sum of min-max-normalised lane scores beat both. Raw scores of
// different kinds are never added: each lane is normalised (or ranked) first.

export interface LaneHit {
  key: string;
  score: number;
}

/** Ranked hits per lane, best first. Lane names are `<channel>:<query kind>`, e.g. `keyword:utterance`. */
export type LaneLists = ReadonlyMap<string, readonly LaneHit[]>;

export interface FusedScore {
  key: string;
  score: number;
  /** per-lane contribution, for `why` */
  parts: Record<string, number>;
}

/** Weight of a lane: exact lane name, then its channel (before ':'), else 0. */
export function laneWeight(weights: Readonly<Record<string, number>>, lane: string): number {
  return weights[lane] ?? weights[lane.split(':')[0] as string] ?? 0;
}

/** Reciprocal rank fusion: Σ w / (k + rank), rank from 1. */
export function fuseRrf(lists: LaneLists, weights: Readonly<Record<string, number>>, k = 60): FusedScore[] {
  const acc = new Map<string, FusedScore>();
  for (const [lane, hits] of lists) {
    const w = laneWeight(weights, lane);
    if (w === 0) continue;
    hits.forEach((h, i) => {
      const f = acc.get(h.key) ?? { key: h.key, score: 0, parts: {} };
      // the same key twice in one lane (should not happen) counts once, at its best rank
      if (f.parts[lane] !== undefined) return;
      const part = w / (k + i + 1);
      f.score += part;
      f.parts[lane] = part;
      acc.set(h.key, f);
    });
  }
  return sortFused(acc);
}

/** Weighted sum of min-max-normalised lane scores (a lane whose scores are all equal counts 1 for each hit). */
export function fuseWeightedMinMax(lists: LaneLists, weights: Readonly<Record<string, number>>): FusedScore[] {
  const acc = new Map<string, FusedScore>();
  for (const [lane, hits] of lists) {
    const w = laneWeight(weights, lane);
    if (w === 0 || hits.length === 0) continue;
    let min = Infinity;
    let max = -Infinity;
    for (const h of hits) {
      min = Math.min(min, h.score);
      max = Math.max(max, h.score);
    }
    const span = max - min;
    for (const h of hits) {
      const part = w * (span > 0 ? (h.score - min) / span : 1);
      const f = acc.get(h.key) ?? { key: h.key, score: 0, parts: {} };
      // the same key twice in one lane (should not happen) counts once, at its best
      if ((f.parts[lane] ?? -1) >= part) continue;
      f.score += part - (f.parts[lane] ?? 0);
      f.parts[lane] = part;
      acc.set(h.key, f);
    }
  }
  return sortFused(acc);
}

/** Deterministic order: score, then key. */
function sortFused(acc: Map<string, FusedScore>): FusedScore[] {
  return [...acc.values()].sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export type FusionMethod = 'weighted' | 'rrf';

export function fuse(method: FusionMethod, lists: LaneLists, weights: Readonly<Record<string, number>>, rrfK = 60): FusedScore[] {
  return method === 'rrf' ? fuseRrf(lists, weights, rrfK) : fuseWeightedMinMax(lists, weights);
}
