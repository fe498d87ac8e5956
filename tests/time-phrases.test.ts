// Time phrases in English and Chinese → date ranges against a pinned clock: the one parser
// behind the temporal cue and recall_timeline. A table of phrases with their ranges, near
// misses that must not read as time, and recall_timeline's own example through the HTTP door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recallTimeline } from '../src/mcp/tools/browse.js';
import { parseTimeRange } from '../src/recall/index.js';
import { startTestServer, type TestServer } from './server-helpers.js';

// a Sunday: this week began Monday 2026-11-23
const NOW = new Date('2026-11-29T12:00:00Z');

/** phrase → [from, to) as UTC dates (to exclusive) */
const TABLE: [string, string, string][] = [
  // months by numeral or name, Chinese
  ['9月', '2026-09-01', '2026-10-01'],
  ['九月', '2026-09-01', '2026-10-01'],
  ['九月那阵子', '2026-09-01', '2026-10-01'],
  ['去年九月', '2025-09-01', '2025-10-01'],
  ['十二月', '2025-12-01', '2026-01-01'], // the latest December that has begun
  ['11月份', '2026-11-01', '2026-12-01'],
  ['三月底', '2026-03-21', '2026-04-01'],
  ['九月初', '2026-09-01', '2026-09-11'],
  ['2023年9月', '2023-09-01', '2023-10-01'],
  ['2023年5月8日', '2023-05-08', '2023-05-09'],
  ['9月8日', '2026-09-08', '2026-09-09'],
  // months by name, English
  ['in March', '2026-03-01', '2026-04-01'],
  ['last March', '2026-03-01', '2026-04-01'],
  ['in December', '2025-12-01', '2026-01-01'],
  ['this March', '2026-03-01', '2026-04-01'],
  ['early March', '2026-03-01', '2026-03-11'],
  ['mid-March', '2026-03-11', '2026-03-21'],
  ['late May', '2026-05-21', '2026-06-01'],
  ['since March', '2026-03-01', '2026-11-30'],
  ['May 2023', '2023-05-01', '2023-06-01'],
  ['8 May 2023', '2023-05-08', '2023-05-09'],
  ['May 8, 2023', '2023-05-08', '2023-05-09'],
  ['2023-05-08', '2023-05-08', '2023-05-09'],
  ['2024-02', '2024-02-01', '2024-03-01'],
  // days
  ['yesterday', '2026-11-28', '2026-11-29'],
  ['the day before yesterday', '2026-11-27', '2026-11-28'],
  ['today', '2026-11-29', '2026-11-30'],
  ['昨天', '2026-11-28', '2026-11-29'],
  ['前天', '2026-11-27', '2026-11-28'],
  ['大前天', '2026-11-26', '2026-11-27'],
  ['三天前', '2026-11-26', '2026-11-27'],
  ['3 days ago', '2026-11-26', '2026-11-27'],
  ['a few days ago', '2026-11-22', '2026-11-29'],
  ['前几天', '2026-11-22', '2026-11-29'],
  ['the past 3 days', '2026-11-27', '2026-11-30'],
  ['最近两周', '2026-11-16', '2026-11-30'],
  // weeks and weekdays
  ['last week', '2026-11-16', '2026-11-23'],
  ['上周', '2026-11-16', '2026-11-23'],
  ['上个星期', '2026-11-16', '2026-11-23'],
  ['上上周', '2026-11-09', '2026-11-16'],
  ['the week before last', '2026-11-09', '2026-11-16'],
  ['this week', '2026-11-23', '2026-11-30'],
  ['two weeks ago', '2026-11-12', '2026-11-19'],
  ['两周前', '2026-11-12', '2026-11-19'],
  ['a couple of weeks ago', '2026-11-12', '2026-11-19'],
  ['last weekend', '2026-11-21', '2026-11-23'],
  ['上周末', '2026-11-21', '2026-11-23'],
  ['上周三', '2026-11-18', '2026-11-19'],
  ['last Friday', '2026-11-27', '2026-11-28'],
  ['周三', '2026-11-25', '2026-11-26'],
  // months
  ['last month', '2026-10-01', '2026-11-01'],
  ['上个月', '2026-10-01', '2026-11-01'],
  ['上月', '2026-10-01', '2026-11-01'],
  ['这个月', '2026-11-01', '2026-12-01'],
  ['earlier this month', '2026-11-01', '2026-11-30'],
  ['a month ago', '2026-10-14', '2026-11-13'],
  ['3个月前', '2026-08-14', '2026-09-13'],
  // years and quarters
  ['去年', '2025-01-01', '2026-01-01'],
  ['前年', '2024-01-01', '2025-01-01'],
  ['今年', '2026-01-01', '2027-01-01'],
  ['last year', '2025-01-01', '2026-01-01'],
  ['2023年', '2023-01-01', '2024-01-01'],
  ['in 2023', '2023-01-01', '2024-01-01'],
  ['since 2023', '2023-01-01', '2026-11-30'],
  ['一年前', '2025-05-29', '2026-05-29'],
  ['Q3 2023', '2023-07-01', '2023-10-01'],
  ['1805年', '1805-01-01', '1806-01-01'], // history (CMRC) names years long past
  ['1980年代', '1980-01-01', '1990-01-01'],
  ['1960年代初', '1960-01-01', '1964-01-01'],
  ['the 1990s', '1990-01-01', '2000-01-01'],
  ['2007-08年', '2007-01-01', '2009-01-01'],
  ['2023年第三季度', '2023-07-01', '2023-10-01'],
  // seasons (meteorological; a winter runs December to February)
  ['last spring', '2026-03-01', '2026-06-01'],
  ['last winter', '2025-12-01', '2026-03-01'],
  ['this summer', '2026-06-01', '2026-09-01'],
  ['in the fall', '2026-09-01', '2026-12-01'],
  ['summer of 2022', '2022-06-01', '2022-09-01'],
  ['去年冬天', '2025-12-01', '2026-03-01'],
  ['今年夏天', '2026-06-01', '2026-09-01'],
  ['2024年春季', '2024-03-01', '2024-06-01'],
];

const day = (iso: string): Date => new Date(`${iso}T00:00:00Z`);

describe('time phrases at a pinned now (2026-11-29, a Sunday)', () => {
  it('has a table of at least 40 phrases', () => expect(TABLE.length).toBeGreaterThanOrEqual(40));

  it.each(TABLE)('%s → [%s, %s)', (phrase, from, to) => {
    expect(parseTimeRange(phrase, NOW)).toEqual({ from: day(from), to: day(to), phrase });
  });

  it.each([
    ['我们九月那阵子讨论过数据库迁移吗？', '九月那阵子'],
    ['What did we decide last spring about the cache?', 'last spring'],
    ['三天前那次部署为什么失败', '三天前'],
    ['Which pet was adopted in June 2023?', 'June 2023'],
    ['去年九月的事故复盘', '去年九月'],
    ['roll back what we shipped two weeks ago', 'two weeks ago'],
    // a phrase that names its year anchors the question, wherever it stands
    ['What did Maria do last weekend before April 10, 2023?', 'April 10, 2023'],
    ['Where was John between August 11 and August 15 2023?', 'August 15 2023'],
    ['the forest picture shared on December 1,2023', 'December 1,2023'],
  ])('finds the phrase inside a sentence: %s', (sentence, phrase) => {
    expect(parseTimeRange(sentence, NOW)?.phrase).toBe(phrase);
  });

  it.each([
    '9 files changed',
    'May I ask a question?',
    'march through the list',
    'upgrade to v3.2',
    'version 2.3.1 of the client',
    'it completes in 2000 ms',
    'how do I configure logging in Spring Boot?',
    'spring boot starter',
    'fall back to the cache',
    'the build 8 may fail',
    'I sat on sun loungers',
    'port 2023 is taken',
    'section 3.5',
    '上周期的数据',
    '一周一次',
    '每周一开会',
    '13月',
    '月薪多少',
    'the day the moon fell',
    'it may rain in 3 days',
    'summer internship program',
    'roll back please',
    'a good pasta recipe for dinner tonight',
    '潘均顺哪一年前往俄国从事劳动业？',
    '《无声狂啸》发表在《如果》杂志的月刊上',
    '在《如果》3月刊上',
    '自洪武六年到永乐十五年近50年内',
  ])('is not a time phrase: %s', (text) => {
    expect(parseTimeRange(text, NOW)).toBeUndefined();
  });

  it('reads full-width digits as digits', () => {
    expect(parseTimeRange('２０２３年９月', NOW)).toMatchObject({ from: day('2023-09-01'), to: day('2023-10-01') });
  });
});

describe("recall_timeline's own examples, through the HTTP door with the authoritative clock", () => {
  let s: TestServer;
  const before = process.env['KIOKU_CLOCK'];
  beforeAll(async () => {
    process.env['KIOKU_CLOCK'] = NOW.toISOString(); // the service's clock: KIOKU_CLOCK pins it
    s = await startTestServer();
    await s.call('POST', '/v1/memories', {
      memories: [
        { id: 'sep', kind: 'decision', text: 'We moved the nightly backup to 02:00.', occurred_at: '2026-09-14T10:00:00Z' },
        { id: 'oct', kind: 'decision', text: 'We renamed the billing queue.', occurred_at: '2026-10-05T10:00:00Z' },
        { id: 'lastsep', kind: 'decision', text: 'We chose PostgreSQL 16.', occurred_at: '2025-09-20T10:00:00Z' },
        { id: 'spring', kind: 'event', text: 'The spring offsite was in Porto.', occurred_at: '2026-04-10T10:00:00Z' },
        { id: 'oct1', kind: 'event', text: 'October began with a release freeze.', occurred_at: '2026-10-01T00:00:00Z' }, // where 九月 ends
      ],
    });
  });
  afterAll(async () => {
    await s.stop();
    if (before === undefined) delete process.env['KIOKU_CLOCK'];
    else process.env['KIOKU_CLOCK'] = before;
  });

  const ids = async (from: string): Promise<{ ids: string[]; range: unknown }> => {
    const r = await s.call('POST', '/v1/items/query', { from, layers: ['memory'] });
    expect(r.status).toBe(200);
    return { ids: (r.body['items'] as { id: string }[]).map((i) => i.id), range: r.body['range'] };
  };

  it('accepts every phrase its MCP description gives as an example, "九月那阵子" among them', async () => {
    const description = recallTimeline.description;
    const examples = [...description.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
    expect(examples).toContain('九月那阵子');
    for (const example of examples) expect(parseTimeRange(example, NOW), example).toBeDefined();

    expect(await ids('九月那阵子')).toEqual({
      ids: ['sep'],
      range: { from: '2026-09-01T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z', phrase: '九月那阵子' },
    });
    expect((await ids('去年九月')).ids).toEqual(['lastsep']);
    expect((await ids('上个月')).ids).toEqual(['oct', 'oct1']);
    expect((await ids('2026-09-01T00:00:00Z')).ids).toContain('oct1'); // an ISO time alone is a start, open to now
    expect((await ids('last spring')).ids).toEqual(['spring']);
    expect((await ids('in September')).ids).toEqual(['sep']);
  });

  it('gives the recall packet the same range as its time cue', async () => {
    const r = await s.call('POST', '/v1/recall', { query: '九月那阵子我们把备份挪到几点了？' });
    expect(r.body['time_cue']).toEqual({ from: '2026-09-01T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z', phrase: '九月那阵子' });
  });
});
