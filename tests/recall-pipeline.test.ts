// recall(request) → packet, end to end over a real (in-memory) store: skipping,
// planning, lanes, ACL, options, fusion, judging, delivery, usage and events.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashedEmbedder, type Embedder } from '../src/embed/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import {
  DEFAULT_RECALL_CONFIG,
  DoubleJudge,
  neighbourBoosts,
  isQuestion,
  type Neighbours,
  LocalJudge,
  completeTurn,
  fuseRrf,
  fuseWeightedMinMax,
  isAcknowledgement,
  isTopicChange,
  withoutTopicChange,
  openSession,
  parseTimeRange,
  planQueries,
  recall,
  startTurn,
  type RecallCore,
} from '../src/recall/index.js';
import { memoryStore, recordsOfType } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
let embedder: HashedEmbedder;
let core: RecallCore;
const useful = (text: string): number => (/rollback|回滚|roll back/i.test(text) ? 0.9 : 0.1);

/** The small library every test here recalls from. */
async function seed(target: Awaited<ReturnType<typeof memoryStore>>, e: HashedEmbedder): Promise<void> {
  await target.knowledge.writeMemories({
    memories: [
      { id: 'rollback', kind: 'procedure', text: 'To roll back a release run scripts/rollback.sh with the previous tag.', terms: ['revert', 'undo'] },
      { id: 'cake', kind: 'fact', text: 'The office cake needs three eggs.' },
    ],
  });
  await target.knowledge.writeMemories({
    ns: 'team',
    memories: [{ id: 'team-rb', kind: 'procedure', text: 'Team rollback secret: ask ops before any rollback.' }],
  });
  await target.knowledge.upsertWiki({
    id: 'ops',
    markdown:
      '# Ops\n\n## 回滚\n发布出问题时用 scripts/rollback.sh 回滚到上一个版本。\n\n## Deploy\nDeploy with the pipeline.\n\n## Rollback checklist\nCheck the rollback dashboard.',
  });
  await target.knowledge.upsertCard({
    id: 'billing',
    markdown: '# Billing\n\n## 1. Invoices\nInvoices go out on the first of the month.\n\n## 2. Claim grade\nA',
  });
  await new EmbeddingIndexer(target, e).run();
}

beforeEach(async () => {
  store = await memoryStore();
  embedder = new HashedEmbedder(64);
  await seed(store, embedder);
  core = { log: store.log, projections: store.projections, embedder, judge: new DoubleJudge((c) => useful(c.text)) };
});
afterEach(async () => store.close());

const stable = (p: Awaited<ReturnType<typeof recall>>): unknown => ({ ...p, recall_id: undefined, timings: undefined, judge: { ...p.judge, ms: undefined } });

describe('acknowledgements', () => {
  it.each(['好', '好,收到', '好的。', '谢谢', '早安', 'ok', 'thanks!', 'sounds good', '👍', 'ok thanks', 'Thank you!'])(
    'skips %j without embedding or judging',
    async (text) => {
      expect(isAcknowledgement(text)).toBe(true);
      const judge = new DoubleJudge(() => 1);
      const calls = embedder.calls;
      const p = await recall({ ...core, judge }, { query: text });
      expect(p.retrieval_mode).toBe('skipped');
      expect(embedder.calls).toBe(calls);
      expect(judge.calls).toBe(0);
    },
  );

  it.each(['好 直接送 v2 分支', 'ok, roll back v2', 'thanks, now deploy the billing fix'])('does not skip %j', (text) => {
    expect(isAcknowledgement(text)).toBe(false);
  });

  it('never skips a message longer than 40 characters, even one made only of acknowledgements', () => {
    const long = 'ok thanks ok thanks ok thanks ok thanks ok'; // 42 characters of acknowledgements
    expect(long.length).toBeGreaterThan(40);
    expect(isAcknowledgement(long.slice(0, 40).trim())).toBe(true);
    expect(isAcknowledgement(long)).toBe(false);
  });
});

describe('query planning', () => {
  it('plans up to three distinct queries', () => {
    const qs = planQueries('We shipped v2 yesterday. How do we roll it back safely?', [{ role: 'user', content: 'billing is broken' }]);
    expect(qs.map((q) => q.kind)).toEqual(['utterance', 'context', 'last_sentence']);
    expect(qs[2]?.text).toBe('How do we roll it back safely?');
    expect(planQueries('roll back', []).map((q) => q.kind)).toEqual(['utterance']);
  });

  it('refuses more than 8 messages and keeps the last 4, 600 characters each', async () => {
    const msg = (i: number) => ({ role: 'user' as const, content: `message ${i} ${'x'.repeat(700)}` });
    await expect(recall(core, { query: 'roll back', conversation: Array.from({ length: 9 }, (_, i) => msg(i)) })).rejects.toMatchObject({
      code: 'KIOKU_INPUT_INVALID',
      details: { field: 'conversation' },
    });
    const p = await recall(core, { query: 'roll back', conversation: Array.from({ length: 8 }, (_, i) => msg(i)) });
    expect(p.conversation_messages).toBe(4);
    expect(p.conversation_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const [started] = await recordsOfType(store.log, 'recall.performed');
    const context = (started?.data as { queries: { kind: string; text: string }[] }).queries.find((q) => q.kind === 'context');
    expect(context?.text.length).toBeLessThanOrEqual(2_000);
  });

  it('resolves a follow-up through the dialogue ("那个再一段" / "and the other one?")', async () => {
    const zh = await recall(core, {
      query: '那个再一段',
      conversation: [
        { role: 'user', content: '发布出问题怎么回滚？' },
        { role: 'assistant', content: '可以用脚本。' },
      ],
    });
    expect(zh.records.map((r) => r.evidence_key)).toContain('ev1:private:wiki:ops#回滚');
    const en = await recall(core, { query: 'and the other one?', conversation: [{ role: 'user', content: 'where are the rollback steps?' }] });
    const top = en.records.slice(0, 2);
    expect(top).toHaveLength(2);
    expect(top.every((r) => /rollback/i.test(r.evidence_key))).toBe(true);
  });

  it('sends one text through the model per turn: the utterance with its dialogue when there is one', async () => {
    const seen: string[][] = [];
    const counting: Embedder = {
      id: embedder.id,
      dim: embedder.dim,
      readsCjk: embedder.readsCjk,
      embed: async (texts) => (seen.push([...texts]), embedder.embed(texts)),
      init: async () => undefined,
      close: async () => undefined,
    };
    const c = { ...core, embedder: counting };
    await recall(c, { query: 'where is the rollback script?' });
    const dialogue = await recall(c, { query: 'and the other one?', conversation: [{ role: 'user', content: 'where are the rollback steps?' }] });
    expect(seen).toEqual([['the rollback script'], ['the rollback steps?\nand the other one']]); // question words stripped
    expect(dialogue.queries.map((q) => q.kind)).toEqual(['utterance', 'context']); // both still search the keyword lanes
    expect(Object.keys(dialogue.records[0]?.why.lanes ?? {}).some((l) => l.startsWith('vector:context') || l.startsWith('keyword:'))).toBe(true);
  });

  it('drops the dialogue when the utterance explicitly changes the subject', async () => {
    expect(['Actually, forget that. When do invoices go out?', 'never mind, how are invoices sent?', '换个话题，发票什么时候发？'].every(isTopicChange)).toBe(
      true,
    );
    expect(['and the other one?', 'forgetting the password is common', 'ok thanks'].some(isTopicChange)).toBe(false);
    expect(withoutTopicChange('Actually, forget that. When do invoices go out?')).toBe('When do invoices go out?');
    expect(withoutTopicChange('换个话题，发票什么时候发？')).toBe('发票什么时候发?'); // NFKC, as every query is read
    expect(withoutTopicChange('never mind')).toBe('never mind');
    const conversation = [{ role: 'user' as const, content: 'where are the rollback steps?' }];
    const changed = await recall(core, { query: 'Actually, forget that. When do invoices go out?', conversation });
    expect(changed.queries).toEqual([{ kind: 'utterance', text: 'When do invoices go out?' }]);
    expect(changed.warnings).toContain('topic_change_dialogue_ignored');
    expect(changed.records[0]?.evidence_key).toContain('billing');
    expect(changed.conversation_messages).toBe(1);
    const followed = await recall(core, { query: 'When do invoices go out?', conversation });
    expect(followed.queries.map((q) => q.kind)).toContain('context');
    // the old subject loses the weight the dialogue gave it
    const rollbackScore = (p: typeof changed): number => p.records.find((r) => r.id === 'rollback')?.score ?? 0;
    expect(rollbackScore(changed)).toBeLessThan(rollbackScore(followed));
  });
});

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

  it('lets at most two sections of one document reach the judge', async () => {
    const judge = new DoubleJudge(() => 0.1);
    const p = await recall({ ...core, judge }, { query: 'rollback 回滚 deploy pipeline dashboard' });
    const [v] = await recordsOfType(store.log, 'verdict.recorded');
    const wiki = (v?.data as { verdicts: { evidence_key: string }[] }).verdicts.filter((x) => x.evidence_key.includes(':wiki:ops#'));
    // the query matches more sections of the ops page than that: exactly two reach the judge
    const matching = p.records.filter((r) => r.evidence_key.includes(':wiki:ops#'));
    expect(matching.length).toBeGreaterThan(2);
    expect(wiki).toHaveLength(2);
  });
});

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
        { id: 'staging-db', kind: 'fact', text: 'The staging database is pg-staging-2 in the eu-west region.' },
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

describe('explaining a recall', () => {
  it('explains the weaker of two candidates by its raw lane score and rank, where min-max gives it 0', async () => {
    const two = await memoryStore();
    try {
      await two.knowledge.writeMemories({
        memories: [
          { id: 'strong', kind: 'fact', text: 'The zebra quokka ledger lives in vault seven.' },
          { id: 'weak', kind: 'fact', text: 'A quokka visited once.' },
        ],
      });
      const p = await recall({ log: two.log, projections: two.projections, judge: new DoubleJudge(() => 0.9) }, { query: 'zebra quokka ledger' });
      const weak = p.records.find((r) => r.id === 'weak');
      expect(p.records).toHaveLength(2);
      expect(weak?.why.lanes['keyword:utterance']).toBe(0);
      expect(weak?.why.lane_hits['keyword:utterance']).toMatchObject({ rank: 2 });
      expect(weak?.why.lane_hits['keyword:utterance']?.score).toBeGreaterThan(0);
    } finally {
      await two.close();
    }
  });
});

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

describe('turns', () => {
  it('starts a turn (captured, recalled once), never repeats a delivery in the session, and completes idempotently', async () => {
    const { session_id } = await openSession(core, { agent: 'test' });
    const t1 = await startTurn(core, { session_id, query: 'how do I roll back?' });
    expect(t1.delivery.length).toBeGreaterThan(0);
    const delivered = store.projections.views.delivered.deliveredSince(session_id);
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

describe('fusion and cues', () => {
  const lists = new Map([
    [
      'keyword:utterance',
      [
        { key: 'a', score: 10 },
        { key: 'b', score: 5 },
        { key: 'c', score: 0 },
      ],
    ],
    [
      'vector:utterance',
      [
        { key: 'c', score: 0.9 },
        { key: 'b', score: 0.8 },
      ],
    ],
  ]);
  it('RRF sums weighted reciprocal ranks', () => {
    const f = fuseRrf(lists, { keyword: 1, vector: 1 }, 60);
    expect(f.map((x) => x.key)).toEqual(['c', 'b', 'a']);
    expect(f.find((x) => x.key === 'b')?.score).toBeCloseTo(1 / 62 + 1 / 62, 10);
  });
  it('the weighted sum normalises each lane before adding', () => {
    const f = fuseWeightedMinMax(lists, { keyword: 1, vector: 1 });
    expect(f.map((x) => [x.key, Math.round(x.score * 1000) / 1000])).toEqual([
      ['a', 1],
      ['c', 1],
      ['b', 0.5],
    ]);
  });
  it('parses dates, months and relative times in English and Chinese', () => {
    const now = new Date('2026-11-29T12:00:00Z');
    expect(parseTimeRange('what happened on 8 May 2023?', now)).toMatchObject({ from: new Date('2023-05-08T00:00:00Z'), to: new Date('2023-05-09T00:00:00Z') });
    expect(parseTimeRange('plans for May 2023', now)?.to).toEqual(new Date('2023-06-01T00:00:00Z'));
    expect(parseTimeRange('昨天的会议', now)?.from).toEqual(new Date('2026-11-28T00:00:00Z'));
    expect(parseTimeRange('2023年5月的计划', now)?.from).toEqual(new Date('2023-05-01T00:00:00Z'));
    expect(parseTimeRange('what did we do last week', now)?.from).toEqual(new Date('2026-11-16T00:00:00Z'));
    expect(parseTimeRange('roll back please', now)).toBeUndefined();
  });
  it('boosts items by a speaker the query names and items in the time range it mentions', async () => {
    const log = store.log;
    await log.append({
      type: 'turn.started',
      ns: 'private',
      data: { turn_id: 'c1', session_id: 'conv', query: 'I adopted a dog named Rex.', speaker: 'Caroline', occurred_at: '2023-05-08T13:56:00Z' },
    });
    await log.append({
      type: 'turn.started',
      ns: 'private',
      data: { turn_id: 'c2', session_id: 'conv', query: 'I adopted a cat named Tom.', speaker: 'Melanie', occurred_at: '2023-06-20T10:00:00Z' },
    });
    await store.projections.waitFor(log.head().seq);
    const bySpeaker = await recall(core, { query: 'What pet did Caroline adopt?' });
    expect(bySpeaker.records[0]?.evidence_key).toBe('ev1:private:trace:c1');
    expect(bySpeaker.records[0]?.why.lanes['entity_cue']).toBeGreaterThan(0);
    const byDate = await recall(core, { query: 'Which pet was adopted in June 2023?' });
    expect(byDate.records[0]?.evidence_key).toBe('ev1:private:trace:c2');
    expect(byDate.time_cue?.phrase).toBe('june 2023');
  });

  it('passes a share of a strong trace score to the turns around it, more to the reply to a question, never stacking boosts', () => {
    const around: Record<string, Neighbours> = { t2: { before: 't1', after: 't3' }, t4: { before: 't3', after: 't5' } };
    const of = (k: string): Neighbours => around[k] ?? {};
    const boosts = neighbourBoosts(
      [
        { key: 't2', score: 2 },
        { key: 't4', score: 1, question: true },
      ],
      of,
      0.3,
      1.5,
    );
    expect(Object.fromEntries([...boosts].map(([k, v]) => [k, Math.round(v * 100) / 100]))).toEqual({ t1: 0.6, t3: 0.6, t5: 0.45 });
    expect(neighbourBoosts([{ key: 't2', score: 2 }], of, 0).size).toBe(0);
    expect(['Where did you go camping?', '你去哪里露营了？'].every(isQuestion)).toBe(true);
    expect(isQuestion('We went camping.')).toBe(false);
  });

  it('orders a session by when its turns happened, and follows new turns', async () => {
    const turn = (turn_id: string, day: number) =>
      store.log.append({
        type: 'turn.started',
        ns: 'private',
        data: { turn_id, session_id: 'ordered', query: `turn ${turn_id}`, occurred_at: `2023-07-0${day}T10:00:00Z` },
      });
    await turn('b', 2);
    await turn('a', 1); // imported late, happened first
    await turn('c', 3);
    await store.projections.waitFor(store.log.head().seq);
    const records = store.projections.views.records;
    const key = (id: string): string => `ev1:private:trace:${id}`;
    expect(records.turnNeighbours(key('b'))).toEqual({ before: key('a'), after: key('c') });
    expect(records.turnNeighbours(key('a'))).toEqual({ before: undefined, after: key('b') });
    await turn('d', 4);
    await store.projections.waitFor(store.log.head().seq);
    expect(records.turnNeighbours(key('c'))).toEqual({ before: key('b'), after: key('d') });
    expect(records.turnNeighbours('ev1:private:memory:rollback')).toEqual({});
  });

  it('brings back the reply to a matching turn although it shares no words with the query', async () => {
    const turns: [string, string][] = [
      ['n1', 'Good morning, how was the weekend?'],
      ['n2', 'Where did Melanie go camping this summer?'],
      ['n3', 'Up in the Sierra mountains, near a lake.'],
      ['n4', 'I baked bread on Sunday.'],
    ];
    for (const [i, [turn_id, query]] of turns.entries())
      await store.log.append({ type: 'turn.started', ns: 'private', data: { turn_id, session_id: 'talk', query, occurred_at: `2023-07-0${i + 1}T10:00:00Z` } });
    await store.projections.waitFor(store.log.head().seq);
    const reply = (p: Awaited<ReturnType<typeof recall>>) => p.records.find((r) => r.id === 'n3');
    const lifted = await recall(core, { query: 'Where did Melanie go camping?', options: { semantic: false } });
    expect(reply(lifted)?.why.lanes['neighbour']).toBeGreaterThan(0);
    const off = await recall(
      { ...core, config: { ...DEFAULT_RECALL_CONFIG, neighbour_weight: 0 } },
      { query: 'Where did Melanie go camping?', options: { semantic: false } },
    );
    expect(reply(off)).toBeUndefined();
  });
});
