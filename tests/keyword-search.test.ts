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
  const hits = store.projections.get<KeywordProjection>('keyword').search('staging maintenance', { namespaces: ['private'] });
  expect(hits.map((h) => h.complete)).toEqual([true, false, false]);
});

it('splits digits from CJK so years and names match', () => {
  expect(tokenize('2013年于乐')).toEqual(['2013', '年于', '于乐']);
});
