// turns: captured, recalled once, never repeating a delivery, completed idempotently.
import { describe, expect, it } from 'vitest';
import type { HashedEmbedder } from '../src/embed/index.js';
import { completeTurn, openSession, recall, type RecallCore, startTurn } from '../src/recall/index.js';
import { type LibraryStore, useRecallLibrary } from './fixtures/recall-library.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

describe('turns', () => {
  it('starts a turn (captured, recalled once), never repeats a delivery in the session, and completes idempotently', async () => {
    const { session_id } = await openSession(core, { agent: 'test' });
    const t1 = await startTurn(core, { session_id, query: 'how do I roll back?' });
    expect(t1.delivery.length).toBeGreaterThan(0);
    const delivered = store.projections.views.delivered.deliveredSince('private', session_id);
    expect([...delivered.keys()]).toEqual(t1.delivery.map((d) => d.evidence_key));
    const t2 = await startTurn(core, { session_id, query: 'how do I roll back?' });
    expect(t2.delivery).toEqual([]);
    expect(t2.records.find((r) => r.evidence_key.endsWith(':rollback'))?.why.held_back).toBe('already_delivered');
    // after a compaction (context_since later than the delivery) it may come again
    const t3 = await startTurn(core, { session_id, query: 'how do I roll back?', context_since: new Date(Date.now() + 1000).toISOString() });
    expect(t3.delivery.map((d) => d.evidence_key)).toContain('ev1:private:memory:rollback');

    const done = await completeTurn(core, t1.turn_id, { answer: 'Run scripts/rollback.sh with the previous tag.' });
    expect(done.delivery_outcomes[0]).toMatchObject({ evidence_key: 'ev1:private:memory:rollback' });
    expect(done.delivery_outcomes[0]?.term_overlap).toBeGreaterThan(0.5);
    expect(await completeTurn(core, t1.turn_id, { answer: 'Run scripts/rollback.sh with the previous tag.' })).toEqual(done);
    await expect(completeTurn(core, t1.turn_id, { answer: 'something else' })).rejects.toMatchObject({ code: 'KIOKU_ID_CONFLICT' });
    await expect(completeTurn(core, 'nope', { answer: 'x' })).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND' });
  });

  it("excludes the session's own traces from its recall", async () => {
    const { session_id } = await openSession(core, { agent: 'test' });
    const t = await startTurn(core, { session_id, query: 'remember the zebra migration plan' });
    await completeTurn(core, t.turn_id, { answer: 'noted, zebra plan' });
    const again = await startTurn(core, { session_id, query: 'zebra migration plan' });
    expect(again.records.some((r) => r.layer === 'trace')).toBe(false);
    expect(again.warnings.some((w) => w.startsWith('own_session_traces_excluded'))).toBe(true);
    const other = await openSession(core, { agent: 'test' });
    const fromElsewhere = await startTurn(core, { session_id: other.session_id, query: 'zebra migration plan' });
    expect(fromElsewhere.records.some((r) => r.layer === 'trace')).toBe(true);
  });

  it('keeps a whole turn lean in the log (about 10 KB or less)', async () => {
    const { session_id } = await openSession(core, { agent: 'test' });
    const before = store.log.head().seq;
    const t = await startTurn(core, { session_id, query: 'how do I roll back?' });
    await completeTurn(core, t.turn_id, { answer: 'Use the script.' });
    let bytes = 0;
    for await (const r of store.log.read({ from: before + 1 })) bytes += r.bytes;
    expect(bytes).toBeLessThan(10_000);
  });
});
