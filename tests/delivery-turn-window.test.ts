// A conversation turn is delivered with the turns around it (DeliveryRules.turn_window, issue 35):
// the answer to a question is often the reply to the line that repeats its words.
import { describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku, type Kioku } from '../src/kioku.js';
import { DEFAULT_DELIVERY_RULES, type DeliveredItem } from '../src/recall/delivery.js';
import { recall } from '../src/recall/index.js';
import { withTurnWindows } from '../src/recall/stages/deliver.js';
import { PURGED_TEXT } from '../src/privacy/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { tempDir } from './helpers.js';

const item = (key: string, text: string, layer = 'memory'): DeliveredItem => ({ key, layer, kind: 'knowledge', title: key, text, excerpt: false, verdict: 0.9 });

/** A six-turn chat written as session memories, a session opened on it, and a judge scoring by the ids in `scores`. */
async function inChat(run: (c: { kioku: Kioku; scores: Record<string, number>; key: (id: string) => string; session_id: string; start: Date }) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const scores: Record<string, number> = {};
  const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge((c) => scores[c.key.split(':').pop() as string] ?? 0.1) });
  try {
    const start = new Date(Date.now() - 1000);
    const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 9, 0, s)).toISOString();
    const lines = ['Melanie: Which lake did you paint?', 'Caroline: Lake Tahoe, at sunrise.', 'Melanie: It is beautiful.', 'Caroline: I also painted the pier.', 'Melanie: Which pier?', 'Caroline: The old pier in Santa Cruz.'];
    await kioku.writeMemories({ memories: lines.map((text, i) => ({ id: `t${i + 1}`, kind: 'event', session_id: 'chat', occurred_at: at(i), text })) });
    const { session_id } = await kioku.openSession({ agent: 'a' });
    await run({ kioku, scores, key: (id) => `ev1:private:memory:${id}`, session_id, start });
  } finally {
    await kioku.close();
    dir.cleanup();
  }
}

describe('turn windows in delivery', () => {
  it('is on by default, two turns each side (the window lane\'s radius)', () => {
    expect(DEFAULT_DELIVERY_RULES.turn_window).toBe(2);
  });

  it('walks up to the radius each side, nearer turns first, within one excerpt', () => {
    const order = ['a', 'b', 'c', 'd', 'e', 'f'];
    const neighbours = (k: string) => ({ before: order[order.indexOf(k) - 1], after: order[order.indexOf(k) + 1] });
    const entry = (k: string) => ({ text: k.toUpperCase() });
    expect(withTurnWindows([item('c', 'C')], neighbours, entry, undefined, 2_000, 2)[0]?.window).toEqual(['a', 'b', 'c', 'd', 'e']);
    // room for two more lines only ("C" + "\nB" + "\nD" = 5 characters): the nearer ones
    expect(withTurnWindows([item('c', 'C')], neighbours, entry, undefined, 5, 2)[0]?.window).toEqual(['b', 'c', 'd']);
    // the first turn of a session: only after it
    expect(withTurnWindows([item('a', 'A')], neighbours, entry, undefined, 2_000, 2)[0]?.text).toBe('A\nB\nC');
  });

  it('hands a turn over with the turn before and after it, and names the turns its text holds', () => {
    const texts: Record<string, string> = { a: 'Melanie: What did you paint?', b: 'Caroline: A lake at sunrise.', c: 'Melanie: Lovely!' };
    const out = withTurnWindows(
      [item('b', texts['b'] as string)],
      () => ({ before: 'a', after: 'c' }),
      (k) => ({ text: texts[k] as string }),
      undefined,
      2_000,
    );
    expect(out[0]?.text).toBe('Melanie: What did you paint?\nCaroline: A lake at sunrise.\nMelanie: Lovely!');
    expect(out[0]?.window).toEqual(['a', 'b', 'c']);
  });

  it('leaves out a neighbour delivered itself, the asking session’s own turns, and a window longer than an excerpt', () => {
    const entries: Record<string, { text: string; session_id?: string }> = { a: { text: 'A: one' }, b: { text: 'B: two' }, c: { text: 'C: three', session_id: 'asking' } };
    const both = withTurnWindows([item('a', 'A: one'), item('b', 'B: two')], (k) => (k === 'a' ? { after: 'b' } : { before: 'a', after: 'c' }), (k) => entries[k], 'asking', 2_000);
    // a's neighbour b is delivered itself, b's before is a (delivered) and its after is the asking session's own turn
    expect(both.map((i) => [i.text, i.window])).toEqual([
      ['A: one', undefined],
      ['B: two', undefined],
    ]);
    const long = withTurnWindows([item('b', 'B: two')], () => ({ before: 'a' }), () => ({ text: 'x'.repeat(50) }), undefined, 40);
    expect(long[0]).toEqual(item('b', 'B: two'));
  });

  it('stops before a turn the asking session can still see, and before one no longer active', () => {
    const order = ['a', 'b', 'c', 'd', 'e'];
    const neighbours = (k: string) => ({ before: order[order.indexOf(k) - 1], after: order[order.indexOf(k) + 1] });
    const entry = (k: string) => ({ text: k.toUpperCase(), status: k === 'e' ? 'superseded' : 'active' });
    // b was handed over earlier in this session (an item or a window's turn): a is not reached through it
    expect(withTurnWindows([item('c', 'C')], neighbours, entry, undefined, 2_000, 2, new Set(['b']))[0]?.window).toEqual(['c', 'd']);
    expect(withTurnWindows([item('c', 'C')], neighbours, entry, undefined, 2_000, 2, new Map([['d', [null]]]))[0]?.window).toEqual(['a', 'b', 'c']);
    // a forgotten turn keeps no text: never an empty line
    expect(withTurnWindows([item('b', 'B')], neighbours, (k) => ({ text: k === 'a' ? '' : k.toUpperCase() }), undefined, 2_000, 1)[0]?.window).toEqual(['b', 'c']);
  });

  it('stops before a turn whose sealed text no longer opens: never a ⟦purged⟧ line (defect: a key gone before its purge was recorded left the placeholder in the window)', () => {
    const order = ['a', 'b', 'c'];
    const neighbours = (k: string) => ({ before: order[order.indexOf(k) - 1], after: order[order.indexOf(k) + 1] });
    const out = withTurnWindows([item('b', 'B')], neighbours, (k) => ({ text: k === 'c' ? PURGED_TEXT : k.toUpperCase() }), undefined, 2_000, 1)[0];
    expect(out?.window).toEqual(['a', 'b']);
    expect(out?.text).toBe('A\nB');
  });

  it('two windows over one stretch of a conversation: the later stops before a turn the earlier holds (defect: one delivery repeated the lines between them)', () => {
    const order = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const neighbours = (k: string) => ({ before: order[order.indexOf(k) - 1], after: order[order.indexOf(k) + 1] });
    const entry = (k: string) => ({ text: k.toUpperCase() });
    const out = withTurnWindows([item('b', 'B'), item('e', 'E')], neighbours, entry, undefined, 2_000, 2);
    expect(out.map((i) => i.window)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f', 'g'],
    ]);
    const lines = out.flatMap((i) => i.text.split('\n'));
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('a turn leaving a code fence open has it closed in the window: the turns after it do not read as code (defect: the delivered reply sat inside the fence of the line before it)', () => {
    const texts: Record<string, string> = { a: 'Caroline: my config is\n```yaml\nport: 8080', b: 'Melanie: so the port is 8080, thanks.', c: 'Caroline: see\n~~~~\nyes' };
    const out = withTurnWindows([item('b', texts['b'] as string)], () => ({ before: 'a', after: 'c' }), (k) => ({ text: texts[k] as string }), undefined, 2_000)[0];
    expect(out?.text).toBe('Caroline: my config is\n```yaml\nport: 8080\n```\nMelanie: so the port is 8080, thanks.\nCaroline: see\n~~~~\nyes\n~~~~');
    expect(out?.window).toEqual(['a', 'b', 'c']);
    // the closing marker counts toward the excerpt: a turn that fits only without it is left out
    expect(withTurnWindows([item('b', 'B')], () => ({ before: 'a' }), () => ({ text: '```\nxx' }), undefined, 8)[0]?.window).toBeUndefined();
  });

  it('never widens what is not a memory (a card section, a trace) nor an excerpt', () => {
    const neighbours = () => ({ before: 'a' });
    const entry = () => ({ text: 'A: one' });
    expect(withTurnWindows([item('s', 'A section.', 'card')], neighbours, entry, undefined, 2_000)[0]?.window).toBeUndefined();
    expect(withTurnWindows([item('t', 'A trace.', 'trace')], neighbours, entry, undefined, 2_000)[0]?.window).toBeUndefined();
    expect(withTurnWindows([{ ...item('m', 'cut'), excerpt: true }], neighbours, entry, undefined, 2_000)[0]?.window).toBeUndefined();
  });

  it('a chat history written as memories: the delivered reply comes with the question it answers, facts alone', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge((c) => (c.key.endsWith(':t2') || c.key.endsWith(':f1') ? 0.9 : 0.1)) });
    try {
      const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 9, 0, s)).toISOString();
      await kioku.writeMemories({
        memories: [
          { id: 't1', kind: 'event', session_id: 's1', occurred_at: at(0), text: 'Melanie: Which lake did you paint last summer?' },
          { id: 't2', kind: 'event', session_id: 's1', occurred_at: at(1), text: 'Caroline: Lake Tahoe, at sunrise.' },
          { id: 't3', kind: 'event', session_id: 's1', occurred_at: at(2), text: 'Melanie: It is beautiful.' },
          { id: 'f1', kind: 'fact', text: 'The staging database is pg-staging-2.' },
        ],
      });
      const p = await recall(kioku.core, { query: 'Which lake did Caroline paint?', limit: 10 });
      const reply = p.delivery.find((d) => d.evidence_key === 'ev1:private:memory:t2');
      expect(reply?.window).toEqual(['ev1:private:memory:t1', 'ev1:private:memory:t2', 'ev1:private:memory:t3']);
      expect(reply?.text).toBe('Melanie: Which lake did you paint last summer?\nCaroline: Lake Tahoe, at sunrise.\nMelanie: It is beautiful.');
      const fact = (await recall(kioku.core, { query: 'staging database', limit: 10 })).delivery.find((d) => d.evidence_key.endsWith(':f1'));
      expect(fact?.text).toBe('The staging database is pg-staging-2.');
      expect(fact?.window).toBeUndefined();
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('a window’s turns count as handed over: the session is not given them again while it can see them, live or in replay', async () => {
    await inChat(async ({ kioku, scores, key, session_id, start }) => {
      // first question: t2 delivered with t1..t4
      Object.assign(scores, { t2: 0.9 });
      const first = await kioku.startTurn({ session_id, query: 'Which lake did Caroline paint?' });
      expect(first.delivery.map((d) => d.window)).toEqual([[key('t1'), key('t2'), key('t3'), key('t4')]]);
      await kioku.completeTurn(first.turn_id, { answer: 'Lake Tahoe.' });
      // second question: t4 (handed over in the first window) is held, t6 comes without t4 again
      Object.assign(scores, { t2: 0.1, t4: 0.95, t6: 0.9 });
      const second = await kioku.startTurn({ session_id, query: 'Which pier did Caroline paint?' });
      expect(second.delivery.map((d) => d.evidence_key)).toEqual([key('t6')]);
      expect(second.delivery[0]?.window).toEqual([key('t5'), key('t6')]);
      // replay under the same rules delivers the same, and with the window off t4 is no longer held
      const report = await kioku.replay({ from: start.toISOString() });
      expect(report.turns.map((t) => t.after)).toEqual([[key('t2')], [key('t6')]]);
      const off = await kioku.replay({ from: start.toISOString(), rules: { turn_window: 0 } });
      expect(off.turns[1]?.after).toContain(key('t4'));
    });
  });
  it('replay holds back what a plain recall in the session handed over, as live recall does (defect: replay counted its own turns only, and delivered a window’s turn live had held back)', async () => {
    await inChat(async ({ kioku, scores, key, session_id, start }) => {
      // a plain recall in the session (the MCP recall tool with its session): t2 with t1..t4
      Object.assign(scores, { t2: 0.9 });
      const plain = await kioku.recall({ session_id, query: 'Which lake did Caroline paint?' });
      expect(plain.delivery.map((d) => d.window)).toEqual([[key('t1'), key('t2'), key('t3'), key('t4')]]);
      // then a turn: t4 was handed over in that window and is held; t6 comes with t5
      Object.assign(scores, { t2: 0.1, t4: 0.95, t6: 0.9 });
      const turn = await kioku.startTurn({ session_id, query: 'Which pier did Caroline paint?' });
      expect(turn.delivery.map((d) => d.evidence_key)).toEqual([key('t6')]);
      const report = await kioku.replay({ from: start.toISOString() });
      expect(report.turns.map((t) => [t.before, t.after])).toEqual([[[key('t6')], [key('t6')]]]);
      expect(report.totals.changed_turns).toBe(0);
    });
  });

  it('replay widens a window only with turns written before the turn it replays, as live recall could (defect: a turn the conversation gained later joined the replayed window and was held back from the next turn)', async () => {
    await inChat(async ({ kioku, scores, key, session_id, start }) => {
      Object.assign(scores, { t6: 0.9 });
      const first = await kioku.startTurn({ session_id, query: 'Which pier did Caroline paint?' });
      expect(first.delivery.map((d) => d.window)).toEqual([[key('t4'), key('t5'), key('t6')]]);
      // the conversation goes on after that turn
      await kioku.writeMemories({ memories: [{ id: 't7', kind: 'event', session_id: 'chat', occurred_at: new Date(Date.UTC(2024, 0, 1, 9, 0, 6)).toISOString(), text: 'Melanie: When did you paint it?' }] });
      Object.assign(scores, { t6: 0.1, t7: 0.9 });
      const second = await kioku.startTurn({ session_id, query: 'When did Caroline paint the pier?' });
      expect(second.delivery.map((d) => d.evidence_key)).toEqual([key('t7')]);
      const report = await kioku.replay({ from: start.toISOString() });
      expect(report.turns.map((t) => t.after)).toEqual([[key('t6')], [key('t7')]]);
      expect(report.totals.changed_turns).toBe(0);
    });
  });

  it('a window recorded in another namespace holds nothing back in this one (defect: the delivered projection was keyed by session id alone)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge((c) => (c.key.endsWith(':t2') ? 0.9 : 0.1)) });
    try {
      const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 9, 0, s)).toISOString();
      const lines = ['Melanie: Which lake did you paint?', 'Caroline: Lake Tahoe, at sunrise.', 'Melanie: It is beautiful.'];
      await kioku.writeMemories({ memories: lines.map((text, i) => ({ id: `t${i + 1}`, kind: 'event', session_id: 'chat', occurred_at: at(i), text })) });
      const key = (id: string) => `ev1:private:memory:${id}`;
      // the same session id in two namespaces: two conversations (openSession)
      await kioku.openSession({ agent: 'a', session_id: 'same', namespace: 'team' });
      await kioku.openSession({ agent: 'a', session_id: 'same' });
      // an event in team (an imported chain, an old writer) naming this namespace's turns as handed over there
      const { seq } = await kioku.core.log.append({
        type: 'delivery.made',
        ns: 'team',
        actor: 'elsewhere',
        data: { recall_id: 'r-team', session_id: 'same', items: [{ evidence_key: 'ev1:team:memory:x', verdict: 0.9, window: [key('t1'), key('t2'), key('t3')] }] },
      });
      await kioku.core.projections.waitFor(seq);
      const turn = await kioku.startTurn({ session_id: 'same', query: 'Which lake did Caroline paint?' });
      expect(turn.delivery.map((d) => [d.evidence_key, d.window])).toEqual([[key('t2'), [key('t1'), key('t2'), key('t3')]]]);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});
