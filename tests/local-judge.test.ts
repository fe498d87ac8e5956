// The local judge's signals, one at a time: each must move the verdict the way a reader would.
import { expect, it } from 'vitest';
import { LocalJudge, judgeFeatures, localVerdict, type JudgeRequest } from '../src/recall/index.js';

const request = (over: Partial<JudgeRequest>): JudgeRequest => ({ utterance: '', dialogue: [], candidates: [], deadline: Date.now() + 1_000, ...over });

it('weights query terms by how telling they are in the library', () => {
  const weight = (t: string): number => (t.startsWith('stag') ? 5 : 0.2); // tokens are stemmed
  const candidates = [
    { key: 'a', title: 'Databases', text: 'the staging database lives in eu-west', cosine: 0.5 },
    { key: 'b', title: 'Usage', text: 'which tool should we use', cosine: 0.5 },
  ];
  const plain = judgeFeatures(request({ utterance: 'which staging use', candidates }));
  const weighted = judgeFeatures(request({ utterance: 'which staging use', candidates, termWeight: weight }));
  expect(weighted.get('a')!.wcov).toBeGreaterThan(plain.get('a')!.wcov);
  expect(weighted.get('b')!.wcov).toBeLessThan(plain.get('b')!.wcov);
});

it("counts the subject the user's earlier message adds to a follow-up, and not the assistant's words", () => {
  const candidates = [
    { key: 'keys', title: 'Rotating API keys', text: 'Payment API keys are rotated every 90 days; old keys keep working for 7 days.', cosine: 0.4 },
  ];
  const bare = judgeFeatures(request({ utterance: 'and how long do the old ones keep working?', candidates }));
  const followUp = judgeFeatures(
    request({
      utterance: 'and how long do the old ones keep working?',
      dialogue: [{ role: 'user', content: 'How are the payment API keys rotated?' }],
      candidates,
    }),
  );
  const assistantOnly = judgeFeatures(
    request({ utterance: 'and how long do the old ones keep working?', dialogue: [{ role: 'assistant', content: 'Payment API keys rotate.' }], candidates }),
  );
  expect(bare.get('keys')!.dcov).toBe(0);
  expect(assistantOnly.get('keys')!.dcov).toBe(0);
  expect(followUp.get('keys')!.dcov).toBeGreaterThan(0.5);
  expect(localVerdict(followUp.get('keys')!)).toBeGreaterThan(localVerdict(bare.get('keys')!));
});

it('pulls down candidates far below the best semantic match, and never scores an unrelated item as relevant', async () => {
  const judged = await new LocalJudge().judge(
    request({
      utterance: 'How do I roll back a bad release?',
      candidates: [
        { key: 'best', title: 'Rolling back a release', text: 'To roll back a bad release, run scripts/rollback.sh with the previous tag.', cosine: 0.7 },
        { key: 'far', title: 'Release checklist', text: 'Before every release: tag the commit.', cosine: 0.3 },
        { key: 'cake', title: 'Office', text: 'The office cake needs three eggs.', cosine: 0.1 },
      ],
    }),
  );
  expect(judged.verdicts.get('best')).toBeGreaterThanOrEqual(0.5);
  expect(judged.verdicts.get('far')).toBeLessThan(0.5);
  expect(judged.verdicts.get('cake')).toBeLessThan(0.1);
  const features = judgeFeatures(
    request({
      utterance: 'x',
      candidates: [
        { key: 'a', title: '', text: '', cosine: 0.7 },
        { key: 'b', title: '', text: '', cosine: 0.3 },
      ],
    }),
  );
  expect(features.get('a')!.gap).toBe(0);
  expect(features.get('b')!.gap).toBeCloseTo(-0.4);
});

it('uses the cosine-free model for an item without a vector (CJK text), on its terms alone', async () => {
  const judged = await new LocalJudge().judge(
    request({ utterance: '合并代码之前需要几个人批准？', candidates: [{ key: 'zh', title: '代码评审', text: '代码评审至少需要两位同事批准才能合并。' }] }),
  );
  expect(judged.status).toBe('complete');
  expect(judged.verdicts.get('zh')).toBeGreaterThanOrEqual(0.5);
});

it('reads a time phrase as a date range, not as words to find in the text', () => {
  const candidates = [
    { key: 'note', title: '2026-11-20', text: 'Incident: the checkout service went down for 20 minutes.', cosine: 0.6, inTimeRange: true },
    { key: 'old', title: '2026-10-02', text: 'Incident: the checkout service was slow.', cosine: 0.6 },
  ];
  const asText = judgeFeatures(request({ utterance: 'What happened with checkout last week?', candidates }));
  const asDate = judgeFeatures(request({ utterance: 'What happened with checkout last week?', timePhrase: 'last week', candidates }));
  expect(asDate.get('note')!.wcov).toBeGreaterThan(asText.get('note')!.wcov);
  expect(asDate.get('note')!.time).toBe(1);
  expect(asDate.get('old')!.time).toBe(0);
  expect(localVerdict(asDate.get('note')!)).toBeGreaterThan(localVerdict(asDate.get('old')!));
});

it('counts Chinese by character, so the bigrams that straddle two words cannot outweigh the words (issue 30)', () => {
  // straddling bigrams (里监, 听数, 据变) are rare in any library: a high idf
  const words = new Set(['组件', '监听', '数据', '变化']);
  const weight = (t: string): number => (words.has(t) ? 2 : 7);
  const candidates = [
    { key: 'watch', title: '侦听器', text: '在组件中可以监听数据的变化，并在变化时执行回调。' },
    { key: 'other', title: '列表渲染', text: '使用 v-for 渲染一个列表。' },
  ];
  const f = judgeFeatures(request({ utterance: '怎么在组件里监听数据变化？', candidates, termWeight: weight }));
  expect(f.get('watch')!.wcov).toBeGreaterThan(0.6);
  expect(f.get('other')!.wcov).toBe(0);
  // and with no vector on either side the judge now delivers it
  expect(localVerdict(f.get('watch')!)).toBeGreaterThanOrEqual(0.5);
});

it('reads the fused rank, the coverage against the best one, and the section heading', () => {
  const candidates = [
    { key: 'a', title: 'Config', heading: 'testTimeout', text: 'Default timeout of a test: 5000 ms.', rank: 0 },
    { key: 'b', title: 'Config', text: 'Default pool is forks.', rank: 3 },
  ];
  const f = judgeFeatures(request({ utterance: 'default testTimeout', candidates }));
  expect(f.get('a')!.rank).toBe(1);
  expect(f.get('b')!.rank).toBe(0.25);
  expect(f.get('a')!.lgap).toBe(0);
  expect(f.get('b')!.lgap).toBeCloseTo(f.get('b')!.wcov - f.get('a')!.wcov);
  expect(f.get('a')!.tcov).toBeGreaterThan(0);
  expect(f.get('b')!.tcov).toBe(0);
  // without an explicit rank, the candidate's place in the request
  const placed = judgeFeatures(request({ utterance: 'x', candidates: [{ key: 'p', title: '', text: '' }, { key: 'q', title: '', text: '' }] }));
  expect(placed.get('q')!.rank).toBe(0.5);
});
