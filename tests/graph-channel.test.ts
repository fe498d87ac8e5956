// Entities and the graph channel (issue 35; projections/graph.ts, src/recall/channels/graph.ts):
// entities extracted from text, a graph folded from the log (rebuilt bit for bit), a walk to
// depth 2 that finds an item sharing no word with the question, fused as a lane, and get_related
// answering from the same projection.
import { describe, expect, it } from 'vitest';
import { GraphProjection } from '../projections/index.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { EmbeddingIndexer } from '../src/indexer/embedding-job.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_RECALL_CONFIG, recall } from '../src/recall/index.js';
import { memoryEntities } from '../src/knowledge/fold.js';
import { extractEntities } from '../src/text/entities.js';
import { isLabel, prefixSpeaker, repliesTo } from '../src/text/turn-shape.js';
import { DoubleJudge } from './doubles/judge.js';
import { tempDir } from './helpers.js';
import { given } from './projections/given.js';

describe('entity extraction', () => {
  it('finds names, code identifiers, paths, hosts with ports, products and CJK terms, not sentence openers or stop words', () => {
    expect(extractEntities('Melanie: Wow Caroline! When did you go to New York City?')).toEqual(
      expect.arrayContaining(['melanie', 'caroline', 'new york city']),
    );
    expect(extractEntities('Run scripts/rollback.sh on db-1.internal:5432 with fooBar and my_var, see Vue 3.4')).toEqual(
      expect.arrayContaining(['scripts/rollback.sh', 'db-1.internal:5432', 'foobar', 'my_var', 'vue 3.4']),
    );
    expect(extractEntities('Run it. When? The end.')).toEqual([]);
    // a capital inside a word (joined by a letter, or by ' ’ _ - to one) starts no name; after other punctuation it does
    expect(extractEntities('see ab-Cd and x_Yz, then (Dana')).toEqual(['dana', 'x_yz']);
    expect(extractEntities('发布时用回滚脚本')).toContain('回滚');
    expect(extractEntities('我们的回滚脚本')).toContain('回滚脚本');
  });

  it('a label opening a line names no one (defect: "Note:" became an entity, the speaker of every note in a session)', () => {
    expect(extractEntities('Note: the deploy window is Friday.')).toEqual([]);
    expect(extractEntities('Decision: Priya owns the rota.')).toEqual(['priya']);
    expect(extractEntities('Caroline: I went to the support group.')).toEqual(['caroline']);
    expect(memoryEntities({ entities: [], session_id: 's1', text: 'Note: the deploy window is Friday.' })).toEqual([]);
    expect(memoryEntities({ entities: [], session_id: 's1', text: 'Caroline: I went to the support group.' })).toEqual(['Caroline']);
  });

  it('a label of several words opening a line names no one either, as the speaker rule reads it (defect: "Action Item" stayed an entity)', () => {
    expect(extractEntities('Action Item: ship the release on Friday.')).toEqual([]);
    expect(extractEntities('Next Steps: ask Priya about the rota.')).toEqual(['priya']);
    expect(extractEntities('Open Question: who pays?\nKey Decision: we ship.')).toEqual([]);
    expect(memoryEntities({ entities: [], session_id: 's1', text: 'Action Item: ship the release on Friday.' })).toEqual([]);
    // a run not at a line's start, and a name at a line's start, are names as before
    expect(extractEntities('We met Mary Jane: she leads the team.')).toEqual(['mary jane', 'mary', 'jane']);
    expect(extractEntities('Mary Jane: I lead the team.')).toEqual(['mary jane', 'mary', 'jane']);
  });
});

describe('the graph projection', () => {
  it('links an item to what superseded it, and keeps the speaker and named entities', async () => {
    const graph = await given(
      { type: 'memory.written', data: { id: 'a', kind: 'fact', text: 'Staging runs on pg-staging-1.internal:5432.', entities: ['Staging'] } },
      { type: 'memory.written', data: { id: 'b', kind: 'fact', text: 'Staging moved to pg-staging-2.internal:5432.', supersedes: ['a'] } },
    ).then(new GraphProjection());
    expect(graph.supersedeOf('ev1:private:memory:a')).toEqual(['ev1:private:memory:b']);
    expect(graph.entitiesOf('ev1:private:memory:b')).toContain('pg-staging-2.internal:5432');
    // a superseded item leaves the graph
    expect(graph.itemsNaming('private', 'pg-staging-1.internal:5432').size).toBe(0);
    expect(graph.entitiesOf('ev1:private:memory:a')).toEqual([]);
  });

  it('loads its snapshot (keys and rows) and one written as an object of items before, to the same graph and digest', async () => {
    const at = (min: number) => new Date(Date.UTC(2024, 0, 1, 9, min)).toISOString();
    const graph = await given(
      { type: 'memory.written', data: { id: 'q', kind: 'event', occurred_at: at(0), text: 'Where did Priya park the van?' } },
      { type: 'memory.written', data: { id: 'a', kind: 'event', occurred_at: at(3), text: 'Behind Maple Hall.' } },
      { type: 'memory.written', data: { id: 'b', kind: 'fact', text: 'Maple Hall closes at nine.', supersedes: ['a'] } },
    ).then(new GraphProjection());
    const snap = graph.snapshot();
    expect(snap).toMatchObject({ format: 2, keys: ['ev1:private:memory:q', 'ev1:private:memory:b'] });
    const older = { fold: snap.fold, items: Object.fromEntries(snap.keys.map((k, i) => [k, snap.rows[i]])), supersede: snap.supersede, refs: snap.refs };
    const texts: Record<string, string> = { 'ev1:private:memory:q': 'Where did Priya park the van?', 'ev1:private:memory:b': 'Maple Hall closes at nine.' };
    for (const state of [snap, older]) {
      const loaded = new GraphProjection();
      loaded.load(structuredClone(state));
      expect(loaded.digest()).toBe(graph.digest());
      expect(loaded.snapshot()).toEqual(snap);
      expect([...loaded.itemsNaming('private', 'maple hall')]).toEqual(['ev1:private:memory:b']);
      expect(loaded.supersedeOf('ev1:private:memory:a')).toEqual(['ev1:private:memory:b']);
      expect(loaded.timeNeighbours('ev1:private:memory:q', 30 * 60_000, (k) => texts[k])).toEqual(graph.timeNeighbours('ev1:private:memory:q', 30 * 60_000, (k) => texts[k]));
    }
  });
});

describe('the graph channel', () => {
  it('walks two hops to an item that shares no word with the question, fused as a lane; get_related names the entity', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      const at = (d: number) => new Date(Date.UTC(2023, 4, d)).toISOString();
      await kioku.writeMemories({
        memories: [
          { id: 'd1', kind: 'event', session_id: 's1', occurred_at: at(1), text: 'Caroline: I joined the Rainbow Alliance support group last week.' },
          { id: 'd2', kind: 'event', session_id: 's1', occurred_at: at(1), text: 'Melanie: That sounds lovely, tell me more!' },
          { id: 'd3', kind: 'event', session_id: 's2', occurred_at: at(8), text: 'Caroline: The Rainbow Alliance meets at Maple Hall.' },
          { id: 'd4', kind: 'event', session_id: 's3', occurred_at: at(15), text: 'Melanie: Maple Hall has an old piano.' },
          ...Array.from({ length: 20 }, (_, i) => ({ id: `x${i}`, kind: 'event' as const, session_id: 's4', occurred_at: at(20), text: `Melanie: I painted picture number ${i} today.` })),
        ],
      });
      const config = { ...DEFAULT_RECALL_CONFIG, channel_weights: { ...DEFAULT_RECALL_CONFIG.channel_weights, graph: 0.5 } };
      const packet = await recall({ ...kioku.core, config }, { query: 'Where does the Rainbow Alliance meet?', limit: 10 });
      expect(packet.backends['graph']).toMatchObject({ attempted: true, used: true });
      const piano = packet.records.find((r) => r.evidence_key === 'ev1:private:memory:d4');
      expect(piano?.why.lane_hits['graph:utterance']).toBeDefined();
      expect(piano?.why.lane_hits['keyword:utterance']).toBeUndefined();
      // the session neighbour of a hop-1 turn is reached too
      expect(packet.records.find((r) => r.evidence_key === 'ev1:private:memory:d2')?.why.lane_hits['graph:utterance']).toBeDefined();
      // weight 0 (the default): the channel does not run
      const off = await recall(kioku.core, { query: 'Where does the Rainbow Alliance meet?', limit: 10 });
      expect(off.backends['graph']?.status).toBe('disabled');

      const related = await kioku.related('ev1:private:memory:d3', {});
      expect(related.edges).toContainEqual(expect.objectContaining({ evidence_key: 'ev1:private:memory:d4', relation: 'shares_entity', entity: 'maple hall' }));

      // rebuilt from the log by the library's own runner (it reads sealed fields as the live fold did)
      const live = kioku.projections.views.graph.digest();
      await kioku.projections.rebuild();
      expect(kioku.projections.views.graph.digest()).toBe(live);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});

describe('sessions for plain memories', () => {
  it('memories written without a session, close in time in one namespace, are neighbours (when the gap is set)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      const at = (min: number) => new Date(Date.UTC(2024, 0, 1, 9, min)).toISOString();
      await kioku.writeMemories({
        memories: [
          { id: 'q', kind: 'event', occurred_at: at(0), text: 'Which harbour did the ferry leave from?' },
          { id: 'a', kind: 'event', occurred_at: at(5), text: 'Southport, at dawn.' },
          { id: 'late', kind: 'event', occurred_at: at(200), text: 'Lunch was soup.' },
        ],
      });
      const graph = kioku.projections.views.graph;
      const textOf = (key: string) => kioku.projections.views.records.get(key)?.text;
      expect(graph.timeNeighbours('ev1:private:memory:q', 30 * 60_000, textOf)).toEqual({ after: 'ev1:private:memory:a' });
      expect(graph.timeNeighbours('ev1:private:memory:a', 30 * 60_000, textOf)).toEqual({ before: 'ev1:private:memory:q' });
      const ask = (gap: number) => recall({ ...kioku.core, config: { ...DEFAULT_RECALL_CONFIG, plain_session_gap_min: gap } }, { query: 'which harbour did the ferry leave from', limit: 5 });
      // off (gap 0): the answer, sharing no word with the question, is not found
      expect((await ask(0)).records.map((r) => r.evidence_key)).not.toContain('ev1:private:memory:a');
      const on = await ask(30);
      expect(on.records.find((r) => r.evidence_key === 'ev1:private:memory:a')?.why.lanes['neighbour']).toBeGreaterThan(0);
      expect(on.records.map((r) => r.evidence_key)).not.toContain('ev1:private:memory:late');
      // the same rule gives them window vectors (each embedded with its neighbours in time); a lone memory has none, and gap 0 none at all
      const windows = (gap: number) =>
        new EmbeddingIndexer(kioku.core, new HashedEmbedder(32), { plainGapMin: gap })
          .plan()
          .tasks.filter((t) => t.lane === 'window')
          .map((t) => [t.key, t.text]);
      expect(windows(0)).toEqual([]);
      expect(windows(30)).toEqual([
        ['ev1:private:memory:q', 'Which harbour did the ferry leave from?\nSouthport, at dawn.'],
        ['ev1:private:memory:a', 'Which harbour did the ferry leave from?\nSouthport, at dawn.'],
      ]);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('memories stamped at the same instant (one bulk write without occurred_at) are not chained', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      await kioku.writeMemories({
        memories: [
          { id: 'tabs', kind: 'preference', text: 'The user prefers two-space indentation.' },
          { id: 'db', kind: 'fact', text: 'The staging database is pg-staging-2.' },
          { id: 'ttl', kind: 'fact', text: 'The product cache TTL is 5 minutes.' },
        ],
      });
      const graph = kioku.projections.views.graph;
      const textOf = (key: string) => kioku.projections.views.records.get(key)?.text;
      for (const id of ['tabs', 'db', 'ttl']) expect(graph.timeNeighbours(`ev1:private:memory:${id}`, 30 * 60_000, textOf)).toEqual({});
      const plan = new EmbeddingIndexer(kioku.core, new HashedEmbedder(32), { plainGapMin: 30 }).plan();
      expect(plan.tasks.filter((t) => t.lane === 'window')).toEqual([]);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});

describe('the plain-memory neighbour rule: a conversation, not a list of facts (the default gap)', () => {
  it('reads a reply in a question and its answer, or two speakers in turn; not in facts, nor lines under one label', () => {
    expect(repliesTo('Which harbour did the ferry leave from?', 'Southport, at dawn.')).toBe(true);
    expect(repliesTo('Caroline: I went to the support group.', 'Melanie: That sounds powerful.')).toBe(true);
    expect(repliesTo('你去哪里露营了？', '在山里。')).toBe(true);
    expect(repliesTo('The staging database is pg-staging-2.', 'The product cache TTL is 5 minutes.')).toBe(false);
    expect(repliesTo('Note: deploys need two approvals.', 'Note: the rota changes on Mondays.')).toBe(false);
    expect(repliesTo('Caroline: I went to the support group.', 'The product cache TTL is 5 minutes.')).toBe(false);
    expect(repliesTo('The staging database is pg-staging-2.', 'Melanie: That sounds powerful.')).toBe(false);
  });

  it('a label is not a speaker: labelled facts under different labels are not a dialogue (defect: they were chained)', () => {
    expect(repliesTo('Decision: we ship on Fridays.', 'Constraint: staging is frozen.')).toBe(false);
    expect(repliesTo('TODO: rotate the keys.', 'Status: the keys were rotated in May.')).toBe(false);
    expect(repliesTo('Action Item: book the venue.', 'Open Question: who pays for the catering.')).toBe(false);
    expect(repliesTo('Caroline: I went to the support group.', 'Note: she goes every week.')).toBe(false);
    expect(repliesTo('Summary: the migration is done.', 'Melanie: That sounds powerful.')).toBe(false);
    expect(isLabel('Decision')).toBe(true);
    expect(isLabel('Action Item')).toBe(true);
    // speakers stay speakers: names, titles, an agent's log
    for (const name of ['Caroline', 'Dr. Lee', 'Jon', 'User', 'Assistant', 'Maria Lopez']) expect(isLabel(name), name).toBe(false);
    expect(repliesTo('User: deploy it please.', 'Assistant: Deployed to staging.')).toBe(true);
    // a mail's subject and a protocol's status line are labels too (defect: "Re:" and "HTTP:" read as speakers)
    expect(repliesTo('Re: the rota for May.', 'HTTP: 502 on the login page.')).toBe(false);
    for (const label of ['Re', 'Fwd', 'HTTP']) expect(isLabel(label), label).toBe(true);
    // a speaker before a full-width colon is a speaker (defect: "Caroline：" named no one)
    expect(prefixSpeaker('Caroline：我去了互助小组。')).toBe('Caroline');
    expect(prefixSpeaker('Melanie： That sounds powerful.')).toBe('Melanie');
    expect(repliesTo('Caroline：我去了互助小组。', 'Melanie：听起来很棒！')).toBe(true);
    expect(prefixSpeaker('Caroline:no space after an ASCII colon')).toBeUndefined();
    // a labelled question is still asked: its answer replies to it
    expect(repliesTo('Question: who owns the rota?', 'Priya owns it.')).toBe(true);
  });

  it('a conversation written as plain memories gets neighbours and window vectors; facts written one after another get none', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) });
    try {
      const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 9, 0, s)).toISOString();
      const write = (id: string, s: number, text: string) => kioku.writeMemories({ memories: [{ id, kind: 'event', occurred_at: at(s), text }] });
      // a dialogue, one write a second, as an agent's write_memory calls would come
      await write('c1', 0, 'Caroline: I went to the LGBTQ support group yesterday.');
      await write('c2', 1, 'Melanie: That sounds powerful. Was it hard to walk in?');
      await write('c3', 2, 'Caroline: Harder than the marathon, but everyone was kind.');
      // then facts, a second apart, each its own write (not one bulk write: each has its own instant)
      await write('f1', 3, 'The staging database is pg-staging-2.');
      await write('f2', 4, 'The product cache TTL is 5 minutes.');
      await write('f3', 5, 'Note: deploys need two approvals.');
      await write('f4', 6, 'Note: the on-call rota changes on Mondays.');
      // labelled facts under different labels: a label is not a speaker
      await write('f5', 7, 'Decision: we ship on Fridays.');
      await write('f6', 8, 'Constraint: staging is frozen during the release.');
      const gap = DEFAULT_RECALL_CONFIG.plain_session_gap_min;
      expect(gap).toBeGreaterThan(0); // on by default
      const graph = kioku.projections.views.graph;
      const textOf = (key: string) => kioku.projections.views.records.get(key)?.text;
      const key = (id: string) => `ev1:private:memory:${id}`;
      expect(graph.timeNeighbours(key('c2'), gap * 60_000, textOf)).toEqual({ before: key('c1'), after: key('c3') });
      expect(graph.timeNeighbours(key('c3'), gap * 60_000, textOf)).toEqual({ before: key('c2') });
      for (const id of ['f1', 'f2', 'f3', 'f4', 'f5', 'f6']) expect(graph.timeNeighbours(key(id), gap * 60_000, textOf), id).toEqual({});
      // window vectors under the same rule: the dialogue's three turns, no fact
      const windows = new EmbeddingIndexer(kioku.core, new HashedEmbedder(32), { plainGapMin: gap })
        .plan()
        .tasks.filter((t) => t.lane === 'window')
        .map((t) => t.key);
      expect(windows).toEqual([key('c1'), key('c2'), key('c3')]);
      // recall with the default configuration: the reply is lifted by its question, the facts lift nothing
      const reply = await recall(kioku.core, { query: 'was it hard to walk into the group', limit: 10 });
      expect(reply.records.find((r) => r.evidence_key === key('c3'))?.why.lanes['neighbour']).toBeGreaterThan(0);
      const facts = await recall(kioku.core, { query: 'Which database does staging use? approvals TTL rota', limit: 10 });
      expect(facts.records.length).toBeGreaterThan(0);
      for (const r of facts.records.filter((r) => /:f\d$/.test(r.evidence_key))) expect(r.why.lanes['neighbour'], r.evidence_key).toBeUndefined();
      // get_related names a plain turn's neighbours before and after, as a session's (defect: a plain memory had none there)
      const edges = (await kioku.related(key('c2'), {})).edges;
      expect(edges.filter((e) => e.relation === 'before' || e.relation === 'after').map((e) => [e.relation, e.evidence_key])).toEqual([
        ['before', key('c1')],
        ['after', key('c3')],
      ]);
      expect((await kioku.related(key('f2'), {})).edges.filter((e) => e.relation === 'before' || e.relation === 'after')).toEqual([]);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});
