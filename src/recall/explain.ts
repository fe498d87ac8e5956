// Explaining a recall: each record's lane ranks and scores, fused score, demotion,
// verdict and the rule that held it back.
import { repairTitle, excerpt, type HoldReason } from './delivery.js';
import type { LaneHit } from './fusion.js';
import type { JudgeResult } from './judge/index.js';
import type { Scored } from './judging.js';
import type { PacketRecord } from './packet.js';

export function laneRanks(lists: Map<string, LaneHit[]>, key: string): Record<string, { rank: number; score: number }> {
  const out: Record<string, { rank: number; score: number }> = {};
  for (const [lane, hits] of lists) {
    const i = hits.findIndex((h) => h.key === key);
    if (i >= 0) out[lane] = { rank: i + 1, score: round6((hits[i] as LaneHit).score) };
  }
  return out;
}

export function toPacketRecord(
  s: Scored,
  rank: number,
  judged: JudgeResult,
  held: Map<string, HoldReason>,
  delivered: Set<string>,
  excerptChars: number,
  laneHits: Record<string, { rank: number; score: number }> = {},
): PacketRecord {
  const e = s.entry;
  const cut = excerpt(e.text, excerptChars);
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
      ...(held.has(e.key)
        ? { held_back: held.get(e.key) as HoldReason }
        : verdict === undefined && !delivered.has(e.key)
          ? { held_back: 'not_judged' as const }
          : {}),
    },
  };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
