// A text holding the Turkish dotted capital İ keeps its identifiers' words: lower-casing turns İ
// into two characters (i + U+0307), which shifted every later index, and the tokenizer gave the
// whole text no identifier words ("hookTimeout" met no question asking for "hook timeout").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tokenize } from '../src/text/index.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

it('tokenizes an identifier after İ into its words, as without the İ', () => {
  const plain = tokenize('Istanbul: set hookTimeout to 30000');
  const dotted = tokenize('İstanbul: set hookTimeout to 30000');
  expect(plain).toContain('hook');
  expect(dotted).toEqual(plain); // İ reads as I: "İstanbul" is one word, istanbul
  expect(tokenize('İzmirConfig')).toEqual(expect.arrayContaining(['config']));
});

it('a memory holding İ is found by the words of its identifier, through the server', async () => {
  const w = await s.call('POST', '/v1/memories', {
    memories: [
      { id: 'tr', kind: 'fact', text: 'İstanbul ekibi: set hookTimeout to 30000 for the slow fixtures.' },
      { id: 'other', kind: 'fact', text: 'The lunch order goes out at noon on Fridays.' },
    ],
    wait_for_vectors: 10_000,
  });
  expect(w.status).toBe(200);
  const r = await s.call('POST', '/v1/candidates/query', { query: 'hook timeout' });
  expect(r.status).toBe(200);
  const items = r.body['records'] as { id: string; why: { lanes: Record<string, number> } }[];
  const tr = items.find((i) => i.id === 'tr');
  expect(Object.keys(tr?.why.lanes ?? {}).filter((lane) => lane.startsWith('keyword'))).not.toEqual([]);
});
