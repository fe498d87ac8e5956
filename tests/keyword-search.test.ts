// The keyword projection: Latin words with light stemming, CJK bigrams, stop words,
// complete matches before partial ones.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { KeywordProjection } from '../projections/index.js';
import { lightStem, tokenize } from '../src/text/index.js';
import { memoryStore } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
const search = (q: string): string[] =>
  store.projections
    .get<KeywordProjection>('keyword')
    .search(q, { namespaces: ['private'] })
    .map((h) => h.key.split(':').pop() as string);

beforeEach(async () => {
  store = await memoryStore();
  await store.knowledge.writeMemories({
    memories: [
      { id: 'zh-rollback', kind: 'procedure', text: '发布出问题时，用 scripts/rollback.sh 回滚到上一个版本。' },
      { id: 'zh-db', kind: 'fact', text: '数据库迁移必须手动重新执行。' },
      { id: 'en-deploy', kind: 'procedure', text: 'Deploying: the pipeline deploys every merged branch to staging.' },
      { id: 'en-stop', kind: 'fact', text: 'The staging cluster was stopped for maintenance.' },
      { id: 'en-partial', kind: 'fact', text: 'Staging is shared with the data team.' },
    ],
  });
});
afterEach(async () => store.close());

it('finds Chinese content with a Chinese query', () => {
  expect(search('怎么回滚版本？')[0]).toBe('zh-rollback');
  expect(search('数据库迁移')[0]).toBe('zh-db');
});

it('finds identifiers inside mixed Chinese and Latin text', () => {
  expect(search('rollback.sh')).toEqual(['zh-rollback']);
});

it('matches inflections through light stemming', () => {
  expect(lightStem('deploys')).toBe('deploy');
  expect(lightStem('deploying')).toBe('deploy');
  expect(lightStem('stopped')).toBe('stop');
  expect(lightStem('policies')).toBe('policy');
  expect(search('deploy')).toEqual(['en-deploy']);
  expect(search('stopping')).toEqual(['en-stop']);
});

it('ignores English and Chinese stop words', () => {
  expect(tokenize('what is the status of the')).toEqual(['status']);
  expect(tokenize('的了')).toEqual([]);
  expect(search('the of and')).toEqual([]);
});

it('ranks complete matches before partial ones', () => {
  // "staging maintenance": en-stop has both words, the others only "staging"
  expect(search('staging maintenance')[0]).toBe('en-stop');
  const hits = store.projections.views.keyword.search('staging maintenance', { namespaces: ['private'] });
  expect(hits.map((h) => h.complete)).toEqual([true, false, false]);
});

it('splits digits from CJK so years and names match', () => {
  expect(tokenize('2013年于乐')).toEqual(['2013', '年于', '于乐']);
});

it('weighs a term by how telling it is within a namespace, and follows retirements', async () => {
  const keyword = store.projections.views.keyword;
  // "staging" is in 3 of 5 private items; the team namespace has one item without it
  await store.knowledge.writeMemories({
    ns: 'team',
    memories: [
      { id: 't1', kind: 'fact', text: 'Staging belongs to the platform team.' },
      { id: 't2', kind: 'fact', text: 'Lunch is at noon.' },
    ],
  });
  const [staging] = tokenize('staging');
  expect(keyword.idf(staging as string, 'private')).toBeLessThan(keyword.idf(staging as string, 'team'));
  expect(keyword.idf('zzz-unseen', 'private')).toBeGreaterThan(keyword.idf(staging as string, 'private'));
  const before = keyword.idf(staging as string, 'team');
  await store.knowledge.forget({ ns: 'team', id: 't1' });
  await store.projections.waitFor(store.log.head().seq);
  expect(keyword.idf(staging as string, 'team')).toBeGreaterThan(before);
});
