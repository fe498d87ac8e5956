// Attacks on issue 31's new surfaces that found defects (each test failed before its fix).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
const HASH = 'c'.repeat(64);

const head = async (): Promise<number> => {
  const r = await s.call('GET', '/v1/log/stats');
  expect(r.status).toBe(200);
  return (r.body['head'] as { seq: number }).seq;
};

beforeAll(async () => {
  s = await startTestServer();
  expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'm-kept', kind: 'fact', text: 'the first text' }] })).status).toBe(200);
}, 60_000);
afterAll(async () => s.stop());

describe('POST /v1/import/items: a refused batch writes nothing', () => {
  it('a memory that conflicts with a stored one refuses the batch before its documents are appended', async () => {
    const before = await head();
    const r = await s.call('POST', '/v1/import/items', {
      items: [
        { type: 'card', id: 'c-new', title: 'New card', content_hash: HASH, sections: [{ id: 's1', heading: 'New card', body: 'body of the new card' }] },
        { type: 'memory', id: 'm-kept', kind: 'fact', text: 'another text under the same id' },
      ],
    });
    expect(r.status).toBe(409);
    expect(await head()).toBe(before);
    const cards = await s.call('GET', '/v1/items?layer=card&include_retired=1');
    expect((cards.body['items'] as unknown[]).length).toBe(0);
  });

  it('two lines with one memory id refuse the batch and append nothing', async () => {
    const before = await head();
    const r = await s.call('POST', '/v1/import/items', {
      items: [
        { type: 'wiki', id: 'w-new', title: 'Topic', content_hash: HASH, sections: [{ id: 's1', heading: 'Topic', body: 'a topic body' }] },
        { type: 'memory', id: 'm-twice', kind: 'fact', text: 'one' },
        { type: 'memory', id: 'm-twice', kind: 'fact', text: 'two' },
      ],
    });
    expect(r.status).toBe(400);
    expect(await head()).toBe(before);
  });
});
