// Conversation neighbours: a strongly matching trace lifts the turns just before and
// after it in the same session (the question's answer is often the reply, or the
// turn that set it up), and the reply to a question more. LoCoMo dev R@10: 0.749
// without; 0.751–0.754 for a share of 0.1–0.4 of the trace's score (0.740 at 0.5);
// 0.756 when the reply to a question gets 1.5× that share (evals/README.md).
import type { GraphProjection } from '../../projections/graph.js';
import type { RecordsProjection } from '../../projections/records/index.js';
import { sameReaders } from '../knowledge/audience.js';
import { isQuestion } from '../text/turn-shape.js';

export interface NeighbourSource {
  key: string;
  score: number;
  /** the trace asks something: the turn after it is likely its answer */
  question?: boolean;
}

export interface Neighbours {
  before?: string | undefined;
  after?: string | undefined;
}

/**
 * Boost per evidence key: each source passes `weight × its score` to its neighbours
 * (`× replyFactor` to the turn after a question); a key lifted by two sources keeps the
 * larger boost (boosts never stack).
 */
export function neighbourBoosts(
  sources: readonly NeighbourSource[],
  neighboursOf: (key: string) => Neighbours,
  weight: number,
  replyFactor = 1,
): Map<string, number> {
  const boosts = new Map<string, number>();
  if (weight <= 0) return boosts;
  const lift = (key: string | undefined, boost: number): void => {
    if (key !== undefined) boosts.set(key, Math.max(boosts.get(key) ?? 0, boost));
  };
  for (const s of sources) {
    const { before, after } = neighboursOf(s.key);
    lift(before, weight * s.score);
    lift(after, weight * s.score * (s.question ? replyFactor : 1));
  }
  return boosts;
}

/** A turn that asks (src/text/turn-shape.ts: the plain-memory neighbour rule reads it too). */
export { isQuestion };

/**
 * The turns just before and after a trace in its session, when they are in the namespace searched;
 * for a memory written without a session, its plain neighbours (plainNeighbours, projections/graph.ts:
 * within `plainGapMin` minutes and replying to each other; 0 = none). Only when the same callers see
 * both (sameReaders): another member's private memory just before yours lends it nothing (issue 34).
 */
export function sessionNeighbours(records: RecordsProjection, graph: GraphProjection, ns: string, plainGapMin: number): (key: string) => Neighbours {
  const textOf = (k: string): string | undefined => records.get(k)?.text;
  return (key) => {
    const turn = records.turnNeighbours(key);
    const { before, after } = turn.before || turn.after || plainGapMin <= 0 ? turn : graph.timeNeighbours(key, plainGapMin * 60_000, textOf);
    const self = records.get(key);
    const inNs = (k: string | undefined): string | undefined => {
      const other = k === undefined ? undefined : records.get(k);
      return other?.ns === ns && self !== undefined && sameReaders(self, other) ? k : undefined;
    };
    return { before: inNs(before), after: inNs(after) };
  };
}
