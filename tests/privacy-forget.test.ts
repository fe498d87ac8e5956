// Forget means gone from every view (issue 33): a forgotten memory, trace (one turn's text),
// episode or asset keeps only its tombstone (id, when, by whom) in get_memory, evidence lookup,
// recall, search, browsing and item queries. Through a real server on a loopback port and
// `kioku mcp` on stdio against it; the rule lives in the records projection and the knowledge
// fold, so every door shows the same.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient } from './support/mcp.js';

const TOKEN = 'forget-views-token-0123456789';
const NS = 'solo';
let s: TestServer;
let client: Client;
const call = (method: string, path: string, body?: unknown) => s.call(method, path, body, TOKEN);
const enc = encodeURIComponent;

const WORDS = {
  memory: 'marigold quokka passphrase',
  trace: 'zebra quartz lantern',
  answer: 'obsidian heron ledger',
  episode: 'saffron walrus itinerary',
  asset: 'cobalt pelican blueprint',
};
const keys: Record<'memory' | 'trace' | 'episode' | 'asset', string> = { memory: '', trace: '', episode: '', asset: '' };

beforeAll(async () => {
  s = await startTestServer({ tokens: { tokens: [{ name: 'solo', token: TOKEN, namespace: NS, scopes: ['memory:read', 'memory:write'] }] } });
  client = await remoteMcpClient(s.url, TOKEN, s.dir);
  expect((await call('POST', '/v1/memories', { memories: [{ id: 'm-secret', kind: 'fact', text: `The vault ${WORDS.memory} is kept offline.`, terms: ['marigold'] }] })).status).toBe(200);
  const session = await call('POST', '/v1/sessions/open', { agent: 'test', session_id: 's-forget' });
  expect(session.status).toBe(200);
  const turn = await call('POST', '/v1/turns/start', { session_id: 's-forget', query: `Where is the ${WORDS.trace}?` });
  expect(turn.status).toBe(200);
  const turnId = turn.body['turn_id'] as string;
  expect((await call('POST', `/v1/turns/${turnId}/complete`, { answer: `Behind the ${WORDS.answer}.` })).status).toBe(200);
  const episode = await call('POST', '/v1/episodes', { episode_id: 'e-forget', messages: [{ role: 'user', text: `Plan the ${WORDS.episode} please` }] });
  expect(episode.status).toBe(200);
  const asset = await call('POST', '/v1/assets', { id: 'a-forget', content: 'bytes', name: 'plan.txt', description: `The ${WORDS.asset} of the shed` });
  expect(asset.status).toBe(200);
  keys.memory = `ev1:${NS}:memory:m-secret`;
  keys.trace = `ev1:${NS}:trace:${turnId}`;
  keys.episode = `ev1:${NS}:episode:e-forget`;
  keys.asset = `ev1:${NS}:asset:a-forget`;
}, 60_000);
afterAll(async () => {
  await client?.close();
  await s?.stop();
});

const everyWord = Object.values(WORDS).flatMap((w) => w.split(' '));
/** the planted words `value` holds (`asked`: the word a search echoes back is not a leak) */
const leaks = (value: unknown, asked?: string): string[] => {
  const text = JSON.stringify(value).toLowerCase();
  return everyWord.filter((w) => w !== asked && text.includes(w));
};

describe('forget hides the text from every view', () => {
  it('finds each item before it is forgotten (the test can fail)', async () => {
    for (const key of Object.values(keys)) {
      const r = await call('GET', `/v1/evidence/${enc(key)}`);
      expect(r.status, key).toBe(200);
      expect(leaks(r.body).length, key).toBeGreaterThan(0);
    }
  });

  it('forgets a memory over MCP and a trace, an episode and an asset by evidence key over MCP and HTTP', async () => {
    const m = await callTool(client, 'forget', { id: 'm-secret' });
    expect(m.isError).toBeFalsy();
    const t = await call('POST', `/v1/memories/${enc(keys.trace)}/forget`, { reason: 'asked to' });
    expect(t).toMatchObject({ status: 200, body: { forgotten: true } });
    expect((await callTool(client, 'forget', { id: keys.episode })).isError).toBeFalsy();
    expect((await call('POST', `/v1/memories/${enc(keys.asset)}/forget`, {})).body).toMatchObject({ forgotten: true });
    // twice: nothing appended, said so
    expect((await call('POST', `/v1/memories/${enc(keys.trace)}/forget`, {})).body).toMatchObject({ forgotten: false });
  });

  it('refuses a card key or another namespace’s key, naming it', async () => {
    const other = await call('POST', `/v1/memories/${enc('ev1:other:trace:t1')}/forget`, {});
    expect(other).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    const card = await call('POST', `/v1/memories/${enc(`ev1:${NS}:card:c1`)}/forget`, {});
    expect(card).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID' } } });
  });

  it('get_memory and evidence lookup answer the tombstone only: id, when, by whom', async () => {
    const got = await callTool(client, 'get_memory', { id: 'm-secret' });
    expect(got.isError).toBeFalsy();
    expect(leaks(got)).toEqual([]);
    for (const key of Object.values(keys)) {
      const r = await call('GET', `/v1/evidence/${enc(key)}`);
      expect(r.status).toBe(200);
      expect(leaks(r.body), key).toEqual([]);
      expect(r.body).toMatchObject({ key, status: 'forgotten', text: '', tombstone: { by: expect.any(String), at: expect.stringMatching(/^\d{4}-/) } });
    }
  });

  it('recall, search, browsing, item queries and the session’s items show none of it', async () => {
    for (const word of everyWord) {
      const recall = await call('POST', '/v1/recall', { query: word });
      expect(recall.status).toBe(200);
      expect(leaks(recall.body, word), word).toEqual([]);
      const search = await callTool(client, 'search_memory', { query: word });
      expect(search.isError).toBeFalsy();
      expect(leaks(search, word), word).toEqual([]);
    }
    const listed = await call('GET', '/v1/items?include_retired=1&limit=200');
    expect(listed.status).toBe(200);
    expect(leaks(listed.body)).toEqual([]);
    const queried = await call('POST', '/v1/items/query', { include_retired: true, session_id: 's-forget' });
    expect(leaks(queried.body)).toEqual([]);
    const episodes = await callTool(client, 'recall_episodes', { message: 'saffron' });
    expect(episodes.isError).toBeFalsy();
    expect(leaks(episodes, 'saffron')).toEqual([]);
  });
});
