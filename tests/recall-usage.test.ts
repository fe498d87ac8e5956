// recall and usage accounting: demotion after decisive negatives, one observation per call.
import { describe, expect, it } from 'vitest';
import type { HashedEmbedder } from '../src/embed/index.js';
import { recall, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { type LibraryStore, useRecallLibrary } from './fixtures/recall-library.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

describe('usage and demotion', () => {
  it('demotes after five decisive negative observations, and one positive lifts it', async () => {
    const never = new DoubleJudge(() => 0.1);
    for (let i = 0; i < 5; i++) await recall({ ...core, judge: never }, { query: `roll back release ${i}` });
    const usage = store.projections.views.usage;
    expect(usage.get('private', 'ev1:private:memory:rollback')).toMatchObject({ considered: 5, judged: 5, relevant: 0 });
    expect(usage.demoted('private', 'ev1:private:memory:rollback')).toBe(true);
    const sunk = await recall({ ...core, judge: never }, { query: 'roll back release' });
    const rb = sunk.records.find((r) => r.evidence_key.endsWith(':rollback'));
    expect(rb?.why.demoted).toBe(true);
    // bounded: it loses a fifth of its score, explained in why, and is still recalled
    expect(rb?.why.lanes['demotion']).toBeLessThan(0);
    expect(rb?.why.lanes['demotion']).toBeCloseTo(-0.25 * (rb?.score ?? 0), 5);
    expect(usage.cold('private', 5).map((c) => c.key)).toContain('ev1:private:memory:rollback');
    await recall(core, { query: 'roll back release' });
    expect(usage.demoted('private', 'ev1:private:memory:rollback')).toBe(false);
  });

  it('counts one observation per call even when several queries found the item', async () => {
    await recall(core, { query: 'We broke prod. How do we roll back?', conversation: [{ role: 'user', content: 'rollback question' }] });
    expect(store.projections.views.usage.get('private', 'ev1:private:memory:rollback')?.considered).toBe(1);
  });
});
