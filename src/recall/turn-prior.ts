// The turn prior (issue 35): after the neighbour lifts, a conversation turn's score is adjusted
// by what a turn alone says about being an answer. A short turn ("Thanks!", "Wow, that's great!")
// rarely holds one; BM25's length normalisation and the window lane favour it anyway. And a turn
// by (or naming) the person the question names gets a second speaker share that, unlike the entity
// cue, its neighbours do not inherit (the cue counts in the score the neighbours' lift is a share of).
// Only dialogue lines that open with a speaker (lineSpeaker), written in a session (a trace or memory)
// or, with plain_lines, as plain memories: documents, cards, other memories and an agent's own traces
// (question and answer in one item) are untouched, and the length term only ever lowers a turn, so a
// turn never climbs above another layer.
import { inConversation, type RecordEntry } from '../knowledge/item.js';
import { lineSpeaker } from '../text/turn-shape.js';
import type { TurnPriorConfig } from './config.js';
import type { Scored } from './judging.js';

/** What the prior needs of the recall: whether plain memories have neighbours, and the names the question holds (lower case). */
export interface TurnPriorQuery {
  plainGapMin: number;
  names: ReadonlySet<string>;
}

/** A turn the prior applies to, and whether the question names its speaker. */
function turnOf(entry: RecordEntry, parts: Record<string, number>, prior: TurnPriorConfig, query?: TurnPriorQuery): { named: boolean } | undefined {
  // a dialogue line ("Caroline: …"): an agent's own trace (question and answer in one item) is no such turn
  const speaker = lineSpeaker(entry.text);
  if (speaker === undefined) return undefined;
  if (inConversation(entry)) return { named: parts['entity_cue'] !== undefined };
  if (!prior.plain_lines || !query || query.plainGapMin <= 0 || entry.layer !== 'memory' || entry.session_id) return undefined;
  return { named: parts['entity_cue'] !== undefined || query.names.has(speaker.toLowerCase()) };
}

/** Off: the measured values are in DEFAULT_RECALL_CONFIG (src/recall/config.ts). */
export const TURN_PRIOR_OFF: TurnPriorConfig = { length_weight: 0, length_chars: 240, speaker_weight: 0 };

/** Add the prior's parts (`turn_length`, `turn_speaker`) to each conversation turn's score, in place. */
export function applyTurnPrior(scored: readonly Scored[], prior: TurnPriorConfig, query?: TurnPriorQuery): void {
  if (prior.length_weight <= 0 && prior.speaker_weight <= 0) return;
  for (const s of scored) {
    const turn = turnOf(s.entry, s.parts, prior, query);
    if (!turn) continue;
    const share = Math.min(s.entry.text.length, prior.length_chars) / prior.length_chars;
    if (prior.length_weight > 0 && share < 1) s.score += s.parts['turn_length'] = prior.length_weight * Math.log(Math.max(share, 0.01));
    if (prior.speaker_weight > 0 && turn.named) s.score += s.parts['turn_speaker'] = prior.speaker_weight;
  }
}
