// Conversation neighbours: a strongly matching trace lifts the turns just before and
// after it in the same session (the question's answer is often the reply, or the
// turn that set it up). LoCoMo dev, R@10: 0.749 without, 0.751–0.754 for a weight of
// 0.1–0.4 of the trace's score, 0.740 at 0.5 (evals/README.md).

export interface NeighbourSource {
  key: string;
  score: number;
}

/**
 * Boost per evidence key: each source passes `weight × its score` to its neighbours;
 * a key lifted by two sources keeps the larger boost (boosts never stack).
 */
export function neighbourBoosts(sources: readonly NeighbourSource[], neighboursOf: (key: string) => readonly string[], weight: number): Map<string, number> {
  const boosts = new Map<string, number>();
  if (weight <= 0) return boosts;
  for (const s of sources) {
    for (const n of neighboursOf(s.key)) boosts.set(n, Math.max(boosts.get(n) ?? 0, weight * s.score));
  }
  return boosts;
}
