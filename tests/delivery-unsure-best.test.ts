// When the judge is unsure of its best, retrieval's first choices get a lower floor
// (DeliveryRules.unsure_best, issue 30): on the Chinese Vue docs "nextTick 是做什么用的？" ranked the
// answer's section 2nd and the judge, without a vector for CJK text, scored it 0.32 beside a
// best of 0.54 that did not answer.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_RULES, deliver, rulesWith, type DeliveryCandidate, type DeliveryState } from '../src/recall/index.js';

const empty: DeliveryState = { delivered: new Map(), assistant_texts: [] };
const cand = (name: string, verdict: number, rank: number, over: Partial<DeliveryCandidate> = {}): DeliveryCandidate => ({
  key: `ev1:private:wiki:${name}#s`,
  kind: 'knowledge',
  layer: 'wiki',
  verdict,
  title: name,
  text: `The section ${name}, with a body of its own.`,
  occurred_at: '2026-11-01T00:00:00Z',
  rank,
  ...over,
});
const keys = (r: ReturnType<typeof deliver>): string[] => r.items.map((i) => i.key.split(':').at(-1) as string);

describe('unsure_best: a weak best lets retrieval’s first choices through a lower floor', () => {
  const rules = rulesWith({ unsure_best: { below: 0.6, floor: 0.3, ranks: 2 } });

  it('is on by default: best below 0.6, the first two ranks at 0.3', () => {
    expect(DEFAULT_DELIVERY_RULES.unsure_best).toEqual({ below: 0.6, floor: 0.3, ranks: 2 });
  });

  it('delivers the second-ranked candidate beside a best barely over the floor', () => {
    const r = deliver([cand('best', 0.54, 0), cand('second', 0.32, 1), cand('third', 0.45, 2)], empty, rules);
    expect(keys(r)).toEqual(['best#s', 'second#s']);
    // beyond the first two ranks the floor is the usual one
    expect(r.held.get('ev1:private:wiki:third#s')).toBe('below_floor');
  });

  it('changes nothing when the best is sure, when nothing passes the floor, or below the lower floor', () => {
    expect(keys(deliver([cand('best', 0.8, 0), cand('second', 0.32, 1)], empty, rules))).toEqual(['best#s']);
    // the unanswerable stay quiet: no knowledge over the floor, nothing to be unsure of
    expect(keys(deliver([cand('a', 0.45, 0), cand('b', 0.4, 1)], empty, rules))).toEqual([]);
    expect(keys(deliver([cand('best', 0.54, 0), cand('second', 0.25, 1)], empty, rules))).toEqual(['best#s']);
    // off: the usual floor
    expect(keys(deliver([cand('best', 0.54, 0), cand('second', 0.32, 1)], empty, rulesWith({ unsure_best: undefined })))).toEqual(['best#s']);
  });

  it('a lifted candidate is not held behind the best, but every other rule still holds it', () => {
    const r = deliver([cand('best', 0.59, 0), cand('second', 0.31, 1)], empty, rulesWith({ unsure_best: { below: 0.6, floor: 0.3, ranks: 2 }, behind_best: 0.2 }));
    expect(keys(r)).toEqual(['best#s', 'second#s']);
    const meta = deliver([cand('best', 0.54, 0), cand('second', 0.32, 1, { meta: true })], empty, rules);
    expect(meta.held.get('ev1:private:wiki:second#s')).toBe('metadata_section');
    const history = deliver([cand('best', 0.54, 0), cand('trace', 0.32, 1, { kind: 'history', layer: 'trace' })], empty, rules);
    expect(keys(history)).toEqual(['best#s']);
  });
});
