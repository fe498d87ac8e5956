// The turn prior (issue 35): after the neighbour lifts, a conversation turn's score is adjusted
// by what a turn alone says about being an answer. A short turn ("Thanks!", "Wow, that's great!")
// rarely holds one; BM25's length normalisation and the window lane favour it anyway. And a turn
// by (or naming) the person the question names gets a second speaker share that, unlike the entity
// cue, its neighbours do not inherit (the cue counts in the score the neighbours' lift is a share of).
// Only turns (traces and memories written in a session): documents, cards and plain memories are
// untouched, and the length term only ever lowers a turn, so a turn never climbs above another layer.
import { inConversation } from '../knowledge/item.js';
import type { Scored } from './judging.js';

export interface TurnPriorConfig {
  /** weight of ln(min(chars, length_chars) / length_chars): ≤ 0, so only turns shorter than length_chars lose (0 = off) */
  length_weight: number;
  length_chars: number;
  /** added to a turn the entity cue matched, after the neighbour lifts (0 = off) */
  speaker_weight: number;
}

/** Off: the measured values are in DEFAULT_RECALL_CONFIG (src/recall/config.ts). */
export const TURN_PRIOR_OFF: TurnPriorConfig = { length_weight: 0, length_chars: 240, speaker_weight: 0 };

/** Add the prior's parts (`turn_length`, `turn_speaker`) to each conversation turn's score, in place. */
export function applyTurnPrior(scored: readonly Scored[], prior: TurnPriorConfig): void {
  if (prior.length_weight <= 0 && prior.speaker_weight <= 0) return;
  for (const s of scored) {
    if (!inConversation(s.entry)) continue;
    const share = Math.min(s.entry.text.length, prior.length_chars) / prior.length_chars;
    if (prior.length_weight > 0 && share < 1) s.score += s.parts['turn_length'] = prior.length_weight * Math.log(Math.max(share, 0.01));
    if (prior.speaker_weight > 0 && s.parts['entity_cue'] !== undefined) s.score += s.parts['turn_speaker'] = prior.speaker_weight;
  }
}
