// The channel-contribution report (issue 35; evals/contribution.ts): every question once with all
// lanes, then once per lane at weight 0; a question counts for a lane when its gold is in the top
// 10 with every lane and lost without that one. Checked on a store where one answer is reachable
// only through the graph walk (it shares no word with the question) and one only by keyword.
import { describe, expect, it } from 'vitest';
import { contributionLines, measureContribution } from '../evals/contribution.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_RECALL_CONFIG } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { tempDir } from './helpers.js';

describe('channel contribution', () => {
  it('credits a lane with the questions found only thanks to it, and reports recall@10 without each lane', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      const at = (d: number) => new Date(Date.UTC(2023, 4, d)).toISOString();
      await kioku.writeMemories({
        memories: [
          { id: 'd1', kind: 'event', session_id: 's1', occurred_at: at(1), text: 'Caroline: I joined the Rainbow Alliance support group last week.' },
          { id: 'd3', kind: 'event', session_id: 's2', occurred_at: at(8), text: 'Caroline: The Rainbow Alliance meets at Maple Hall.' },
          { id: 'd4', kind: 'event', session_id: 's3', occurred_at: at(15), text: 'Melanie: Maple Hall has an old piano.' },
          { id: 'z1', kind: 'event', session_id: 's5', occurred_at: at(22), text: 'Melanie: the zebrafish tank needs cleaning.' },
        ],
      });
      // the vector lanes off, so that which lane finds what does not hang on hashed vectors
      const base = { ...DEFAULT_RECALL_CONFIG, channel_weights: { keyword: 1, terms: 0, vector: 0, window: 0, graph: 0.5 } };
      const gold = (id: string) => (records: { id: string }[]) => (records.some((r) => r.id === id) ? 1 : 0);
      const report = await measureContribution(kioku.core, base, [
        { request: { query: 'Where does the Rainbow Alliance meet?', namespace: 'private' }, category: 'graph-only', found: gold('d4') },
        { request: { query: 'Who keeps zebrafish?', namespace: 'private' }, category: 'keyword-only', found: gold('z1') },
      ]);
      expect(report.questions).toBe(2);
      expect(Object.keys(report.lanes).sort()).toEqual(['graph', 'keyword']);
      expect(report.all_lanes_r10).toBe(1);
      expect(report.lanes['keyword']).toMatchObject({ found_only_thanks_to: 1, by_category_only_thanks_to: { 'keyword-only': 1 }, r10_without: 0.5 });
      expect(report.lanes['graph']).toMatchObject({ found_only_thanks_to: 1, by_category_only_thanks_to: { 'graph-only': 1 }, r10_without: 0.5 });
      expect(contributionLines(report)[0]).toContain('2 questions, all lanes R@10 1');
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});
