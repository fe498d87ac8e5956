// recall, stages 4–6 (judge, deliver, record): judged positives delivered, partial and failed
// judgements, the events recorded, and the lanes behind them.
import { describe, expect, it } from 'vitest';
import { HashedEmbedder, type Embedder } from '../src/embed/index.js';
import { LocalJudge, recall, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { type LibraryStore, seed, stable, useRecallLibrary } from './fixtures/recall-library.js';
import { memoryStore } from './helpers.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

describe('judging and delivery', () => {
  it('delivers judged positives, explains every record, and records the turn as events', async () => {
    const p = await recall(core, { query: 'how do I roll back a release?' });
    expect(p.retrieval_mode).toBe('hybrid');
    expect(p.delivery.map((d) => d.evidence_key)).toContain('ev1:private:memory:rollback');
    const rb = p.records.find((r) => r.evidence_key === 'ev1:private:memory:rollback');
    expect(rb?.why).toMatchObject({ verdict: 0.9, delivered: true, demoted: false });
    expect(Object.keys(rb?.why.lanes ?? {})).toContain('keyword:utterance');
    expect(p.records.find((r) => r.evidence_key.endsWith(':cake'))?.why.held_back).toBe('below_floor');
    const types = [];
    for await (const r of store.log.read({ from: store.log.head().seq - 2 })) types.push(r.type);
    expect(types).toEqual(['recall.performed', 'verdict.recorded', 'delivery.made']);
  });

  it('partial judgement delivers its positives and marks the packet degraded', async () => {
    const judge = new DoubleJudge((c) => (c.key.endsWith(':rollback') ? 0.9 : null));
    const p = await recall({ ...core, judge }, { query: 'roll back the release' });
    expect(p.judge.status).toBe('partial');
    expect(p.degraded).toBe(true);
    expect(p.delivery.map((d) => d.evidence_key)).toEqual(['ev1:private:memory:rollback']);
  });

  it('failed judgement delivers nothing, marks the packet degraded, and keeps the candidates', async () => {
    const p = await recall({ ...core, judge: new DoubleJudge({}, 'fail') }, { query: 'roll back the release' });
    expect(p.judge.status).toBe('failed');
    expect(p.degraded).toBe(true);
    expect(p.delivery).toEqual([]);
    expect(p.records.length).toBeGreaterThan(0);
    expect(p.records[0]?.why.held_back).toBe('unjudged');
  });

  it('gives the same packet for the same inputs', async () => {
    const a = await recall(core, { query: 'rollback checklist 回滚' });
    const other = await memoryStore();
    // same writes, same order, fresh store
    await seed(other, embedder);
    const b = await recall({ ...core, log: other.log, projections: other.projections }, { query: 'rollback checklist 回滚' });
    const strip = (p: typeof a) => ({
      ...(stable(p) as object),
      records: p.records.map((r) => ({ ...r, occurred_at: '', provenance: { ...r.provenance, seq: 0 } })),
    });
    expect(strip(b)).toEqual(strip(a));
    await other.close();
  });

  it("holds an item matching part of a delivered item's terms, counting a memory's expansion words", async () => {
    await store.knowledge.writeMemories({
      memories: [
        { id: 'staging-db', kind: 'fact', text: 'The staging database in use is pg-staging-2 in the eu-west region.' },
        { id: 'cache-ttl', kind: 'fact', text: 'The product cache TTL was raised to 30 minutes to cut database load.' },
        { id: 'freeze-old', kind: 'decision', text: 'Deploy freeze: no production deploys on Fridays.' },
        {
          id: 'freeze-new',
          kind: 'decision',
          text: 'Since October, production deploys on Fridays are allowed before noon.',
          terms: ['deploy', 'friday', 'freeze'],
        },
      ],
    });
    const judge = new DoubleJudge((c) => (/staging|cache|freeze|fridays/i.test(c.text) ? 0.9 : 0.1));
    // staging-db matches every term of the question (database, stag, use): a partial match is held only behind a complete one
    const staging = await recall({ ...core, judge }, { query: 'Which database does staging use?' });
    expect(staging.delivery.map((d) => d.evidence_key)).toEqual(['ev1:private:memory:staging-db']);
    expect(staging.records.find((r) => r.evidence_key.endsWith(':cache-ttl'))?.why).toMatchObject({ verdict: 0.9, held_back: 'partial_match' });
    // both sides of a contradiction: the current one names "freeze" only among its expansion words
    const freeze = await recall({ ...core, judge }, { query: 'Is the deploy freeze on Fridays still in force?' });
    expect(freeze.delivery.map((d) => d.evidence_key).sort()).toEqual(['ev1:private:memory:freeze-new', 'ev1:private:memory:freeze-old']);
  });

  it('finds Chinese content with a Chinese query', async () => {
    const p = await recall(core, { query: '怎么回滚上一个版本？' });
    expect(p.records[0]?.evidence_key).toBe('ev1:private:wiki:ops#回滚');
  });

  it('degrades, and still finds by keyword, when the embedder fails', async () => {
    const broken: Embedder = {
      id: embedder.id,
      dim: 64,
      readsCjk: true,
      init: async () => undefined,
      embed: async () => Promise.reject(new Error('model crashed')),
      close: async () => undefined,
    };
    const p = await recall({ ...core, embedder: broken }, { query: 'roll back the release' });
    expect(p.backends['vector']).toEqual({ attempted: true, used: false, status: 'error' });
    expect(p.degraded).toBe(true);
    expect(p.retrieval_mode).toBe('keyword');
    expect(p.records[0]?.evidence_key).toBe('ev1:private:memory:rollback');
  });

  it('reports the vector lane as disabled when semantic is off', async () => {
    const p = await recall(core, { query: 'roll back', options: { semantic: false } });
    expect(p.backends['vector']?.status).toBe('disabled');
    expect(p.retrieval_mode).toBe('keyword');
  });

  it('the local judge scores related items above unrelated ones', async () => {
    const p = await recall({ ...core, judge: new LocalJudge() }, { query: 'roll back a release with the rollback script' });
    const v = (k: string) => p.records.find((r) => r.evidence_key.endsWith(k))?.why.verdict;
    // both must have been judged: a missing record is a failure, not a zero
    expect(typeof v(':rollback')).toBe('number');
    expect(typeof v(':cake')).toBe('number');
    expect(v(':rollback') as number).toBeGreaterThan(v(':cake') as number);
  });
});
