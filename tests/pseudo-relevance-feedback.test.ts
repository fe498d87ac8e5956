// Pseudo-relevance feedback (src/recall/feedback.ts, issue 35): the first pass's best candidates
// lend their words (lane feedback_terms) and their vectors (Rocchio, lanes feedback / feedback_window)
// to a second query, fused like any lane and visible in `why`; off (no second search) by default.
import { describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_RECALL_CONFIG, recall } from '../src/recall/index.js';
import { recallConfigFromEnv } from '../src/recall/config.js';
import { rocchio } from '../src/recall/feedback.js';
import { DoubleJudge } from './doubles/judge.js';
import { tempDir } from './helpers.js';

const at = (d: number): string => new Date(Date.UTC(2023, 4, d)).toISOString();

describe('pseudo-relevance feedback', () => {
  it('finds a turn that shares no word with the question but the best hits’ telling words, as lane feedback_terms', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      await kioku.writeMemories({
        memories: [
          { id: 'a', kind: 'event', session_id: 's1', occurred_at: at(1), text: 'Priya: On weekends I go bouldering at the Granite Gym.' },
          { id: 'b', kind: 'event', session_id: 's2', occurred_at: at(8), text: 'Priya: Weekends are for bouldering, always.' },
          { id: 'c', kind: 'event', session_id: 's3', occurred_at: at(15), text: 'Sam: The Granite Gym opened a new bouldering wall.' },
          { id: 'd', kind: 'event', session_id: 's3', occurred_at: at(16), text: 'Sam: My own gym was closed all month, sadly.' },
          ...Array.from({ length: 12 }, (_, i) => ({ id: `x${i}`, kind: 'event' as const, session_id: 's4', occurred_at: at(20), text: `Sam: I baked loaf number ${i} today.` })),
        ],
      });
      await kioku.core.indexer.run();
      const query = { query: 'What does Priya do on weekends?', limit: 10 };
      const config = { ...DEFAULT_RECALL_CONFIG, channel_weights: { ...DEFAULT_RECALL_CONFIG.channel_weights, feedback_terms: 0.4 } };
      const on = await recall({ ...kioku.core, config }, query);
      const wall = on.records.find((r) => r.evidence_key === 'ev1:private:memory:c');
      expect(wall?.why.lane_hits['keyword:utterance']).toBeUndefined();
      expect(wall?.why.lane_hits['feedback_terms:utterance']).toBeDefined();
      expect(wall?.why.lanes['feedback_terms:utterance']).toBeGreaterThan(0);
      // above a turn sharing one of the words only
      expect(on.records.findIndex((r) => r.evidence_key === 'ev1:private:memory:c')).toBeLessThan(on.records.findIndex((r) => r.evidence_key === 'ev1:private:memory:d'));
      // the dense side: a Rocchio query's lanes, fused and explained the same way
      const dense = { ...DEFAULT_RECALL_CONFIG, channel_weights: { ...DEFAULT_RECALL_CONFIG.channel_weights, feedback: 0.3, feedback_window: 0.3 } };
      const rocchioed = await recall({ ...kioku.core, config: dense }, query);
      expect(rocchioed.records.some((r) => r.why.lane_hits['feedback:context'] ?? r.why.lane_hits['feedback:utterance'])).toBe(true);
      expect(rocchioed.timings['feedback_ms']).toBeGreaterThanOrEqual(0);
      // off by default: no feedback lane, no second search
      const off = await recall(kioku.core, query);
      expect(off.records.every((r) => Object.keys(r.why.lane_hits).every((lane) => !lane.startsWith('feedback')))).toBe(true);
      expect(off.timings['feedback_ms']).toBeUndefined();
      // the front-door switch for measuring it
      expect(recallConfigFromEnv({ KIOKU_FEEDBACK_TERMS: '0.4' }).channel_weights['feedback_terms']).toBe(0.4);
      expect(DEFAULT_RECALL_CONFIG.channel_weights['feedback_terms']).toBeUndefined();
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('the Rocchio query is the unit mix of the query and the mean of the documents', () => {
    const q = Float32Array.from([2, 0]);
    const d = [Float32Array.from([0, 3])];
    expect([...rocchio(q, d, 1)]).toEqual([1, 0]);
    const mixed = rocchio(q, d, 0.5);
    expect(mixed[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(mixed[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Math.hypot(...rocchio(q, [Float32Array.from([1, 1]), Float32Array.from([0, 1])], 0.3))).toBeCloseTo(1, 6);
  });
});
