// recall, stage 2 (channels) and the request around it: options, namespaces and quotas, the
// lexical and dense lanes, and what happens when the embedder fails.
import { describe, expect, it } from 'vitest';
import type { HashedEmbedder } from '../src/embed/index.js';
import { recordedVerdicts, type EventData } from '../src/events/index.js';
import { DEFAULT_RECALL_CONFIG, recall, type RecallConfig, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { type LibraryStore, useRecallLibrary } from './fixtures/recall-library.js';
import { recordsOfType } from './helpers.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

describe('options, ACL and quotas', () => {
  it('validates options and limit, naming the field', async () => {
    await expect(recall(core, { query: 'x', options: { max_wiki: 51 } })).rejects.toMatchObject({ details: { field: 'options.max_wiki' } });
    await expect(recall(core, { query: 'x', limit: 0 })).rejects.toMatchObject({ details: { field: 'limit' } });
    await expect(recall(core, { query: 'x', options: { colour: true } })).rejects.toMatchObject({ details: { field: 'options.colour' } });
  });

  it('echoes the complete effective options and does not search disabled layers', async () => {
    const p = await recall(core, { query: 'rollback', options: { wiki: false, max_memories: 1 } });
    expect(p.options).toEqual({
      cards: true,
      wiki: false,
      memories: true,
      notes: true,
      conversations: true,
      assets: true,
      episodes: false,
      semantic: true,
      max_memories: 1,
    });
    expect(p.records.some((r) => r.layer === 'wiki')).toBe(false);
    expect(p.records.filter((r) => r.layer === 'memory')).toHaveLength(1);
  });

  it('never returns another namespace, and counts what it kept out', async () => {
    const p = await recall(core, { query: 'rollback' });
    expect(p.records.length).toBeGreaterThan(0);
    expect(p.records.every((r) => r.evidence_key.startsWith('ev1:private:'))).toBe(true);
    expect(p.filtered_counts).toMatchObject({ total: 1, by_layer: { memory: 1 } });
    expect(p.warnings).toContain('records_filtered_by_acl');
    await expect(recall(core, { query: 'rollback', namespace: 'team' }, { namespaces: ['private'] })).rejects.toMatchObject({ code: 'KIOKU_FORBIDDEN' });
  });

  it('lets at most sections_per_document sections of one document reach the judge (3 by default)', async () => {
    const query = 'rollback 回滚 deploy pipeline dashboard';
    const judgedOps = async (config: RecallConfig): Promise<{ judged: number; matching: number }> => {
      const before = (await recordsOfType(store.log, 'verdict.recorded')).length;
      const p = await recall({ ...core, judge: new DoubleJudge(() => 0.1), config }, { query });
      const verdicts = await recordsOfType(store.log, 'verdict.recorded');
      expect(verdicts).toHaveLength(before + 1);
      const v = verdicts.at(-1);
      const judged = recordedVerdicts(v?.data as EventData<'verdict.recorded'>).filter((x) => x.evidence_key.includes(':wiki:ops#')).length;
      return { judged, matching: p.records.filter((r) => r.evidence_key.includes(':wiki:ops#')).length };
    };
    expect(DEFAULT_RECALL_CONFIG.sections_per_document).toBe(3);
    // the query matches more sections of the ops page than either cap: exactly the cap reach the judge
    const two = await judgedOps({ ...DEFAULT_RECALL_CONFIG, sections_per_document: 2 });
    expect(two.matching).toBeGreaterThan(2);
    expect(two.judged).toBe(2);
    const byDefault = await judgedOps(DEFAULT_RECALL_CONFIG);
    expect(byDefault.judged).toBe(Math.min(3, byDefault.matching));
  });
});
