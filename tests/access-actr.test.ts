// The access log (projections/access.ts) and the ACT-R re-rank (src/recall/aging.ts,
// stages/activation.ts): accesses folded from the log, rebuilt bit for bit, and a use that
// moves an item above its equal only when the re-rank is on, with its share shown in `why`.
import { describe, expect, it } from 'vitest';
import { AccessProjection, ProjectionRunner, defaultProjections } from '../projections/index.js';
import { RECALL_FLAG_BITS, type AppendInput } from '../src/events/index.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_AGING, DEFAULT_RECALL_CONFIG, activation, activationBoost, recall, type RecallConfig } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { memoryStore, tempDir } from './helpers.js';
import { given } from './projections/given.js';

const KEY = 'ev1:private:memory:m';
const DAY = 86_400_000;

/** A recall of keys (without the namespace prefix) with these flags, in fused order. */
const recallOf = (keys: string[], flags: number[]): AppendInput => ({
  type: 'recall.performed',
  data: { recall_id: 'r1', retrieval_mode: 'keyword', queries: [], key_prefix: 'ev1:private:', keys, scores: keys.map(() => 1_000_000), flags },
});

describe('the access log', () => {
  it('counts deliveries, look-ups (returned by a recall) and fetches per key, once per event, with the latest time', async () => {
    const access = await given(
      { type: 'memory.written', data: { id: 'm', kind: 'fact', text: 'The deploy key lives in vault path ops/deploy.' } },
      recallOf(['memory:m', 'memory:other'], [RECALL_FLAG_BITS.returned, RECALL_FLAG_BITS.judged]),
      { type: 'delivery.made', data: { recall_id: 'r1', items: [{ evidence_key: KEY, verdict: 0.9 }] } },
      { type: 'evidence.fetched', data: { evidence_keys: [KEY, KEY] } },
    ).then(new AccessProjection());
    const counts = access.get('private', KEY);
    expect(counts).toMatchObject({ delivered: 1, looked_up: 1, fetched: 1, count: 3 });
    expect(counts?.last).toBeGreaterThan(0);
    // judged but not returned is no access
    expect(access.get('private', 'ev1:private:memory:other')).toBeUndefined();
    expect(access.writtenAt(1)).toBeGreaterThan(0);
  });

  it('a turn handed over inside a delivered item\'s window counts as delivered, and a look-up is no use', async () => {
    const turn = (i: number) => `ev1:private:memory:t${i}`;
    const access = await given(
      { type: 'memory.written', data: { id: 't1', kind: 'event', text: 'Caroline: I went to the support group.', session_id: 's' } },
      recallOf(['memory:t9'], [RECALL_FLAG_BITS.returned]),
      { type: 'delivery.made', data: { recall_id: 'r1', items: [{ evidence_key: turn(2), verdict: 0.9, window: [turn(1), turn(2), turn(3)] }] } },
    ).then(new AccessProjection());
    for (const i of [1, 2, 3]) expect(access.get('private', turn(i))).toMatchObject({ delivered: 1, looked_up: 0, count: 1 });
    expect(access.get('private', turn(2))?.last_used).toBeGreaterThan(0);
    // returned by a recall: an access (ACT-R's frequency), not a use
    expect(access.get('private', turn(9))).toMatchObject({ looked_up: 1, last_used: 0 });
  });

  it('a rebuild folds the same state, bit for bit', async () => {
    const store = await memoryStore();
    await store.knowledge.writeMemories({ memories: [{ id: 'm', kind: 'fact', text: 'Rotate the staging certificate every ninety days.' }] });
    const core = { log: store.log, projections: store.projections, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) };
    await recall(core, { query: 'staging certificate rotation', session_id: 's1' });
    await store.log.append({ type: 'evidence.fetched', actor: 't', data: { evidence_keys: [KEY] } });
    await store.projections.waitFor(store.log.head().seq);
    const live = store.projections.views.access;
    expect(live.get('private', KEY)?.count).toBeGreaterThanOrEqual(2);
    const again = new ProjectionRunner(store.log, defaultProjections());
    await again.open();
    await again.rebuild();
    expect(again.views.access.digest()).toBe(live.digest());
    await again.close();
    await store.close();
  });
});

describe('ACT-R activation', () => {
  const p = DEFAULT_AGING.actr;
  it('is the seed form: −d·ln(age) + β·ln(1+freq) + ε·strength, age in days with a floor', () => {
    expect(activation(p, 10 * DAY, 3, 0.5)).toBeCloseTo(-0.5 * Math.log(10) + Math.log(4) + 0.5, 10);
    // a use a second ago is no more recent than one an hour ago
    expect(activation(p, 1000, 0, 1)).toBe(activation(p, DAY / 24, 0, 1));
    // recent and frequent beats old and rare; the boost stays below its weight
    expect(activation(p, DAY, 5, 1)).toBeGreaterThan(activation(p, 300 * DAY, 0, 1));
    expect(activationBoost(p, 100)).toBeLessThanOrEqual(p.weight);
    expect(activationBoost(p, -100)).toBeGreaterThanOrEqual(0);
  });

  it('off by default; on, a used item passes its unused equal and why shows the share', async () => {
    expect(DEFAULT_RECALL_CONFIG.aging.actr.enabled).toBe(false);
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      // two memories the query matches equally; the later key sorts last on a tie
      await kioku.writeMemories({
        memories: [
          { id: 'a', kind: 'fact', text: 'Lighthouse keeper logbook entry.' },
          { id: 'b', kind: 'fact', text: 'Lighthouse keeper logbook entry!' },
        ],
      });
      for (let i = 0; i < 3; i++) await kioku.evidence('ev1:private:memory:b');
      const core = kioku.core;
      const ask = (config: RecallConfig) => recall({ ...core, config }, { query: 'lighthouse keeper logbook', limit: 5 });
      const off = await ask(DEFAULT_RECALL_CONFIG);
      expect(off.records[0]?.evidence_key).toBe('ev1:private:memory:a');
      expect(off.records[0]?.why.lanes['actr']).toBeUndefined();
      const on = await ask({ ...DEFAULT_RECALL_CONFIG, aging: { ...DEFAULT_AGING, actr: { ...DEFAULT_AGING.actr, enabled: true } } });
      expect(on.records[0]?.evidence_key).toBe('ev1:private:memory:b');
      const [b, a] = on.records;
      expect(b?.why.lanes['actr']).toBeGreaterThan(a?.why.lanes['actr'] ?? Infinity);
      expect(kioku.store.projections.views.access.get('private', 'ev1:private:memory:b')?.fetched).toBe(3);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});
