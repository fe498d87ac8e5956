// Replay judges a rule change on recorded history: recorded candidates and verdicts,
// delivered-keys state rebuilt in order, no model or judge, nothing appended.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { DEFAULT_DELIVERY_RULES, completeTurn, openSession, replay, startTurn, type RecallCore } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { memoryStore } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
let core: RecallCore;
let start: Date;

beforeEach(async () => {
  store = await memoryStore();
  start = new Date(Date.now() - 1000);
  await store.knowledge.writeMemories({
    memories: [
      { id: 'rb', kind: 'procedure', text: 'Roll back with scripts/rollback.sh and the previous tag.' },
      { id: 'rb2', kind: 'fact', text: 'Rollbacks must be announced in the ops channel.' },
      { id: 'rb3', kind: 'fact', text: 'The rollback dashboard shows every rollback of the week.' },
    ],
  });
  await store.knowledge.upsertNote({ date: '2026-11-20', markdown: '## Rollback drill\nWe practised the rollback on Friday.' });
  const embedder = new HashedEmbedder(32);
  await new EmbeddingIndexer(store, embedder).run();
  core = { log: store.log, projections: store.projections, embedder, judge: new DoubleJudge((c) => (/rollback/i.test(c.text) ? 0.9 : 0.1)) };
  // a scripted history: two sessions, repeated questions
  for (const agent of ['a', 'b']) {
    const { session_id } = await openSession(core, { agent });
    for (const q of ['how do we do a rollback?', 'rollback again please', 'tell me about the rollback drill']) {
      const t = await startTurn(core, { session_id, query: q });
      await completeTurn(core, t.turn_id, { answer: 'ok' });
    }
  }
});
afterEach(async () => store.close());

it('reproduces the recorded deliveries under unchanged rules, without appending or judging', async () => {
  const judge = core.judge as DoubleJudge;
  const calls = judge.calls;
  const head = store.log.head().seq;
  const report = await replay(store, core, { from: start, to: new Date(Date.now() + 1000) });
  expect(report.totals.turns).toBe(6);
  expect(report.totals.changed_turns).toBe(0);
  expect(report.turns.map((t) => t.after)).toEqual(report.turns.map((t) => t.before));
  expect(report.log_head).toEqual({ before: head, after: head });
  expect(judge.calls).toBe(calls);
});

it('shows what a rule change would have done: one item per turn', async () => {
  const report = await replay(store, core, { from: start, to: new Date(Date.now() + 1000), rules: { ...DEFAULT_DELIVERY_RULES, max_items: 1 } });
  expect(report.totals.before.items).toBeGreaterThan(report.totals.after.items);
  expect(report.turns).toHaveLength(6);
  expect(report.turns.every((t) => t.after.length <= 1)).toBe(true);
  // the delivered-keys state is rebuilt from the replayed decisions: later turns may now get what earlier ones no longer took
  expect(report.totals.after.items).toBeGreaterThan(0);
});

it('filters by time range and namespace', async () => {
  expect((await replay(store, core, { from: new Date(Date.now() + 60_000), to: new Date(Date.now() + 120_000) })).totals.turns).toBe(0);
  expect((await replay(store, core, { from: start, to: new Date(Date.now() + 1000), ns: 'other' })).totals.turns).toBe(0);
});

it('says plainly when it re-runs retrieval', async () => {
  const report = await replay(store, core, { from: start, to: new Date(Date.now() + 1000), retrieve: true });
  expect(report.retrieval).toMatch(/re-run against today/);
  expect(report.turns).toHaveLength(6);
  expect(report.turns.every((t) => t.retrieval === 'rerun')).toBe(true);
});

it('shows what usage accounting made of each turn: serious negatives counted, weak ones ignored, demoted candidates with their rank', async () => {
  await store.knowledge.writeMemories({ memories: [{ id: 'dash', kind: 'fact', text: 'The weekly dashboard lists every deploy of the week.' }] });
  const picky: RecallCore = { ...core, judge: new DoubleJudge(() => 0.1) };
  const { session_id } = await openSession(picky, { agent: 'c' });
  for (let i = 0; i < 6; i++) await startTurn(picky, { session_id, query: `weekly dashboard of deploys ${i}` });
  const report = await replay(store, picky, { from: start, to: new Date(Date.now() + 1000) });
  const acc = report.totals.accounting;
  expect(acc.negatives_counted).toBeGreaterThan(0);
  expect(acc.negatives_ignored).toBeGreaterThan(0);
  // the dashboard fact, judged negative while it led the list five times, was demoted at the sixth ask, and stayed in the top 10
  const last = report.turns.at(-1);
  expect(last?.accounting.demoted.map((d) => d.key)).toContain('ev1:private:memory:dash');
  expect(acc.demoted_in_top10).toBeGreaterThan(0);
  expect(acc.demoted_in_top10).toBe(acc.demoted_candidates);
});
