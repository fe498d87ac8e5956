// The turn prior (src/recall/turn-prior.ts, issue 35): after the neighbour lifts, a short conversation
// turn loses ln(chars / length_chars) × weight and a turn the entity cue matched gains the speaker share;
// documents, cards and plain memories are never touched, and a long turn never gains from its length.
import { describe, expect, it } from 'vitest';
import type { RecordEntry } from '../src/knowledge/item.js';
import type { Scored } from '../src/recall/judging.js';
import { DEFAULT_RECALL_CONFIG } from '../src/recall/index.js';
import { applyTurnPrior, TURN_PRIOR_OFF } from '../src/recall/turn-prior.js';

const entry = (key: string, text: string, layer: RecordEntry['layer'], session_id?: string): RecordEntry =>
  ({ key, text, layer, ...(session_id ? { session_id } : {}) }) as unknown as RecordEntry;
const scored = (e: RecordEntry, parts: Record<string, number> = {}): Scored => ({ entry: e, score: 1, parts: { ...parts }, demoted: false });
const prior = { length_weight: 0.4, length_chars: 240, speaker_weight: 0.3 };

describe('turn prior', () => {
  it('lowers a short turn by the log of its share of length_chars, and leaves a long one', () => {
    const short = scored(entry('t1', 'Mel: Thanks!', 'trace', 's1'));
    const long = scored(entry('t2', `Mel: ${'x'.repeat(300)}`, 'memory', 's1'));
    applyTurnPrior([short, long], prior);
    expect(short.score).toBeCloseTo(1 + 0.4 * Math.log(12 / 240), 6);
    expect(short.parts['turn_length']).toBeLessThan(0);
    expect(long.score).toBe(1);
    expect(long.parts['turn_length']).toBeUndefined();
  });

  it('adds the speaker share to a turn the entity cue matched, after the neighbours', () => {
    const named = scored(entry('t1', `Caroline: ${'y'.repeat(300)}`, 'trace', 's1'), { entity_cue: 0.4 });
    applyTurnPrior([named], prior);
    expect(named.score).toBeCloseTo(1.3, 9);
    expect(named.parts['turn_speaker']).toBe(0.3);
  });

  it("never touches an agent's own trace (no speaker line), however short", () => {
    const own = scored(entry('t9', 'How do we move the reindex job? Change the cron.', 'trace', 's1'), { entity_cue: 0.4 });
    applyTurnPrior([own], prior);
    expect(own.score).toBe(1);
  });

  it('never touches documents, cards or memories written without a session', () => {
    const others = [scored(entry('w', 'Short.', 'wiki')), scored(entry('c', 'Tiny', 'card')), scored(entry('m', 'Mel: ok', 'memory'), { entity_cue: 0.4 })];
    applyTurnPrior(others, prior);
    expect(others.map((s) => s.score)).toEqual([1, 1, 1]);
  });

  it('with plain_lines, a plain memory that opens with a speaker is a turn (the speaker share when the question names them)', () => {
    const named = scored(entry('m1', 'Caroline: Hi', 'memory'));
    const other = scored(entry('m2', 'Melanie: Hi', 'memory'));
    const label = scored(entry('m3', 'Note: Hi', 'memory'));
    const query = { plainGapMin: 30, names: new Set(['caroline']) };
    applyTurnPrior([named, other, label], { ...prior, plain_lines: true }, query);
    expect(named.score).toBeCloseTo(1 + 0.4 * Math.log(12 / 240) + 0.3, 6);
    expect(other.score).toBeCloseTo(1 + 0.4 * Math.log(11 / 240), 6);
    expect(label.score).toBe(1);
    // without plain neighbours (gap 0) plain memories are no turns
    const again = scored(entry('m1', 'Caroline: Hi', 'memory'));
    applyTurnPrior([again], { ...prior, plain_lines: true }, { ...query, plainGapMin: 0 });
    expect(again.score).toBe(1);
  });

  it('is a no-op when off, and on by default', () => {
    const s = scored(entry('t1', 'Mel: Hi', 'trace', 's1'), { entity_cue: 0.4 });
    applyTurnPrior([s], TURN_PRIOR_OFF);
    expect(s.score).toBe(1);
    expect(DEFAULT_RECALL_CONFIG.turn_prior.length_weight).toBeGreaterThan(0);
  });
});
