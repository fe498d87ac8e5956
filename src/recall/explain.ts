// Explaining a recall: each record's lane ranks and scores, fused score, demotion,
// verdict and the rule that held it back.
import { describePassage, passageFor } from '../text/passage.js';
import { repairTitle, type HoldReason } from './delivery.js';
import type { LaneHit } from './fusion.js';
import type { JudgeResult } from './judge/index.js';
import type { Scored } from './judging.js';
import type { PacketRecord } from './packet.js';

export type LaneRanks = Record<string, { rank: number; score: number }>;

/**
 * Each key's rank (from 1) and raw score in every lane it appears in, in one pass over the lanes —
 * for the recorded candidates and for `why.lane_hits` alike. A key listed twice in a lane keeps its first place.
 */
export function laneRankIndex(lists: ReadonlyMap<string, readonly LaneHit[]>): Map<string, LaneRanks> {
  const index = new Map<string, LaneRanks>();
  for (const [lane, hits] of lists) {
    hits.forEach((h, i) => {
      let ranks = index.get(h.key);
      if (!ranks) index.set(h.key, (ranks = {}));
      ranks[lane] ??= { rank: i + 1, score: round6(h.score) };
    });
  }
  return index;
}

export function toPacketRecord(
  s: Scored,
  rank: number,
  judged: JudgeResult,
  held: Map<string, HoldReason>,
  delivered: Set<string>,
  excerptChars: number,
  laneHits: LaneRanks = {},
  /** the words asked: a section longer than the excerpt shows the passage that holds them */
  query = '',
): PacketRecord {
  const e = s.entry;
  const cut = passageFor(e.text, excerptChars, query);
  const verdict = judged.verdicts.has(e.key) ? (judged.verdicts.get(e.key) ?? null) : undefined;
  return {
    id: e.id,
    evidence_key: e.key,
    layer: e.layer,
    title: repairTitle(e.title, e.text),
    ...(e.heading ? { heading: e.heading } : {}),
    excerpt: cut.text,
    excerpt_truncated: cut.excerpt,
    score: round6(s.score),
    rank_score: rank + 1,
    occurred_at: e.occurred_at,
    provenance: {
      ns: e.ns,
      seq: e.seq,
      ...(e.source_path ? { source_path: e.source_path } : {}),
      ...(e.session_id ? { session_id: e.session_id } : {}),
      ...(e.kind ? { kind: e.kind } : {}),
    },
    why: {
      lanes: Object.fromEntries(Object.entries(s.parts).map(([k, v]) => [k, round6(v)])),
      lane_hits: laneHits,
      fused_score: round6(s.score),
      demoted: s.demoted,
      ...(verdict !== undefined ? { verdict } : {}),
      delivered: delivered.has(e.key),
      ...(cut.passage && cut.passage.count > 1 ? { passage: describePassage(cut.passage) } : {}),
      ...(held.has(e.key)
        ? { held_back: held.get(e.key) as HoldReason }
        : verdict === undefined && !delivered.has(e.key)
          ? { held_back: 'not_judged' as const }
          : {}),
    },
  };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
