// recall, stage 1 (plan): acknowledgements skip everything; the queries planned from the
// utterance and a bounded dialogue.
import { describe, expect, it } from 'vitest';
import { HashedEmbedder, type Embedder } from '../src/embed/index.js';
import { isAcknowledgement, isTopicChange, planQueries, recall, type RecallCore, withoutTopicChange } from '../src/recall/index.js';
import { DoubleJudge } from './doubles/judge.js';
import { type LibraryStore, useRecallLibrary } from './fixtures/recall-library.js';
import { recordsOfType } from './helpers.js';

let store: LibraryStore;
let embedder: HashedEmbedder;
let core: RecallCore;
useRecallLibrary((lib) => ({ store, embedder, core } = lib));

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
