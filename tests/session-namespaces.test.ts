// Session ids are each namespace's own (issue 29 item 10), told as event stories: logs written
// before the change fold to the same sessions and turns, two namespaces' sessions of one id stay
// two, and a session's conversation order never mixes in another namespace's turns.
import { describe, expect, it } from 'vitest';
import { RecordsProjection, TurnsProjection } from '../projections/index.js';
import type { AppendInput } from '../src/events/index.js';
import { given } from './projections/given.js';

const opened = (ns: string, session_id: string, agent = 'agent'): AppendInput => ({ type: 'session.opened', ns, actor: 't', data: { session_id, agent } });
const started = (ns: string, turn_id: string, session_id: string, query: string, occurred_at?: string): AppendInput => ({
  type: 'turn.started',
  ns,
  actor: 't',
  data: { turn_id, session_id, query, ...(occurred_at ? { occurred_at } : {}) },
});
const completed = (ns: string, turn_id: string, session_id: string, answer: string): AppendInput => ({
  type: 'turn.completed',
  ns,
  actor: 't',
  data: { turn_id, session_id, answer },
});

describe('sessions filed by namespace and id', () => {
  it('folds a log written before the change (one namespace per session id) to the same sessions and turns', async () => {
    const turns = await given(
      opened('alpha', 's1', 'claude-code'),
      started('alpha', 't1', 's1', 'how do we roll back?'),
      completed('alpha', 't1', 's1', 'scripts/rollback.sh'),
      opened('beta', 's2', 'codex'),
      started('beta', 't2', 's2', 'who is on call?'),
    ).then(new TurnsProjection());
    expect(turns.session('alpha', 's1')).toMatchObject({ ns: 'alpha', agent: 'claude-code' });
    expect(turns.session('beta', 's2')).toMatchObject({ ns: 'beta', agent: 'codex' });
    expect(turns.session('beta', 's1')).toBeUndefined();
    expect(turns.turn('t1')).toMatchObject({ ns: 'alpha', session_id: 's1', completed: expect.any(String), seqs: [2, 3] });
    expect(turns.turn('t2')).toMatchObject({ ns: 'beta', session_id: 's2', seqs: [5] });
    // a snapshot loads to the same state (rebuild and catch-up agree)
    const loaded = new TurnsProjection();
    loaded.load(turns.snapshot());
    expect(loaded.digest()).toBe(turns.digest());
  });

  it('keeps two namespaces’ sessions of one id apart, the first opening of each kept', async () => {
    const turns = await given(opened('alpha', 'standup', 'a-agent'), opened('beta', 'standup', 'b-agent'), opened('beta', 'standup', 'later')).then(
      new TurnsProjection(),
    );
    expect(turns.session('alpha', 'standup')).toMatchObject({ ns: 'alpha', agent: 'a-agent' });
    expect(turns.session('beta', 'standup')).toMatchObject({ ns: 'beta', agent: 'b-agent' });
  });

  it('never lets an event of another namespace join a turn (a turn id reused across namespaces)', async () => {
    const turns = await given(started('alpha', 't1', 's1', 'alpha asks'), completed('beta', 't1', 's1', 'beta answers')).then(new TurnsProjection());
    expect(turns.turn('t1')).toMatchObject({ ns: 'alpha', seqs: [1] });
    expect(turns.turn('t1')?.completed).toBeUndefined();
  });
});

describe('a session’s conversation order', () => {
  it('holds only its own namespace’s turns when another namespace uses the same session id', async () => {
    const at = (m: number) => `2026-11-0${m}T10:00:00Z`;
    const records = await given(
      started('alpha', 'a1', 'shared', 'alpha one', at(1)),
      completed('alpha', 'a1', 'shared', 'alpha reply one'),
      started('beta', 'b1', 'shared', 'beta in between', at(2)),
      completed('beta', 'b1', 'shared', 'beta reply'),
      started('alpha', 'a2', 'shared', 'alpha two', at(3)),
      completed('alpha', 'a2', 'shared', 'alpha reply two'),
    ).then(new RecordsProjection());
    expect(records.turnNeighbours('ev1:alpha:trace:a1')).toEqual({ before: undefined, after: 'ev1:alpha:trace:a2' });
    expect(records.turnNeighbours('ev1:alpha:trace:a2')).toEqual({ before: 'ev1:alpha:trace:a1', after: undefined });
    expect(records.turnNeighbours('ev1:beta:trace:b1')).toEqual({ before: undefined, after: undefined });
  });
});
