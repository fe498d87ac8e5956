// Browse (issue 31): GET /v1/items pages a namespace's items in evidence-key order with an opaque
// cursor, filtered by layer, kind, tag, entity, session, time range and text; other namespaces'
// items never appear and their cursors are refused; the same listing from the CLI (kioku list)
// and MCP (list_memories). Tags also filter recall.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFile } from '../src/run-file.js';
import { listItems } from '../projections/records/listing.js';
import { memoryStore, runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, mcpClient } from './support/mcp-client.js';

const ALPHA = 'list-alpha-token-0123456789';
const BETA = 'list-beta-token-0123456789';
let s: TestServer;

const memories = Array.from({ length: 23 }, (_, i) => ({
  id: `m${String(i).padStart(2, '0')}`,
  kind: i % 3 === 0 ? 'decision' : 'fact',
  text: i === 7 ? 'The Orchid release ships on Friday.' : `Fact number ${i} about the build cache.`,
  tags: i % 2 === 0 ? ['deploy', 'Ops'] : ['ops'],
  entities: i === 5 ? ['Billing'] : [],
  occurred_at: `2026-11-${String(1 + i).padStart(2, '0')}T10:00:00Z`,
  ...(i >= 20 ? { session_id: 'sess-1' } : {}),
}));

type Page = { items: { key: string; id: string; tags: string[] }[]; next_cursor: string | null; namespace: string };

async function all(query: string, token = ALPHA, limit = 4): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await s.call('GET', `/v1/items?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const page = r.body as unknown as Page;
    keys.push(...page.items.map((i) => i.key));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor);
  return { keys, pages };
}

beforeAll(async () => {
  s = await startTestServer({
    tokens: {
      tokens: [
        { name: 'alpha', token: ALPHA, namespace: 'alpha', scopes: ['memory:read', 'memory:write'] },
        { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read', 'memory:write'] },
      ],
    },
    rateLimitPerMinute: 10_000,
  });
  expect((await s.call('POST', '/v1/memories', { memories }, ALPHA)).status).toBe(200);
  expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'secret', kind: 'fact', text: 'beta orchid secret', tags: ['deploy'] }] }, BETA)).status).toBe(200);
  expect((await s.call('POST', '/v1/memories/m01/forget', {}, ALPHA)).status).toBe(200);
}, 60_000);
afterAll(async () => s.stop());

describe('GET /v1/items', () => {
  it('pages every active item once, in key order, and only the caller’s namespace', async () => {
    const { keys, pages } = await all('');
    expect(pages).toBe(6);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys).size).toBe(22);
    expect(keys.every((k) => k.startsWith('ev1:alpha:memory:'))).toBe(true);
    expect(keys).not.toContain('ev1:alpha:memory:m01'); // forgotten
    expect((await all('&include_retired=1')).keys).toContain('ev1:alpha:memory:m01');
    const beta = await s.call('GET', '/v1/items', undefined, BETA);
    expect((beta.body as unknown as Page).items.map((i) => i.id)).toEqual(['secret']);
  });

  it('filters by tag (every tag, any case), kind, text, entity, session and time range', async () => {
    expect((await all('&tag=deploy&tag=ops', ALPHA, 50)).keys).toHaveLength(12);
    expect((await all('&tag=DEPLOY,ops', ALPHA, 50)).keys).toHaveLength(12);
    expect((await all('&kind=decision', ALPHA, 50)).keys).toHaveLength(8);
    expect((await all('&text=orchid', ALPHA, 50)).keys).toEqual(['ev1:alpha:memory:m07']);
    expect((await all('&entity=billing', ALPHA, 50)).keys).toEqual(['ev1:alpha:memory:m05']);
    expect((await all('&session=sess-1', ALPHA, 50)).keys).toHaveLength(3);
    expect((await all('&since=2026-11-20T00:00:00Z&until=2026-11-22T23:00:00Z', ALPHA, 50)).keys).toEqual([
      'ev1:alpha:memory:m19',
      'ev1:alpha:memory:m20',
      'ev1:alpha:memory:m21',
    ]);
    expect((await all('&layer=card', ALPHA, 50)).keys).toEqual([]);
  });

  it('refuses another namespace, a foreign or altered cursor, and a page over 500', async () => {
    expect((await s.call('GET', '/v1/items?namespace=beta', undefined, ALPHA)).status).toBe(403);
    const first = (await s.call('GET', '/v1/items?limit=1', undefined, BETA)).body as unknown as Page;
    const alphaPage = (await s.call('GET', '/v1/items?limit=2', undefined, ALPHA)).body as unknown as Page;
    // beta's cursor (or none left) names beta's keys: refused for alpha, never read as a position
    const betaCursor = Buffer.from(JSON.stringify({ v: 1, after: 'ev1:beta:memory:secret', f: 'x' })).toString('base64url');
    expect(first.next_cursor).toBeNull();
    expect((await s.call('GET', `/v1/items?cursor=${betaCursor}`, undefined, ALPHA)).body).toMatchObject({ error: { code: 'KIOKU_CURSOR_INVALID' } });
    expect((await s.call('GET', `/v1/items?tag=ops&cursor=${alphaPage.next_cursor}`, undefined, ALPHA)).body).toMatchObject({ error: { code: 'KIOKU_CURSOR_INVALID' } });
    expect((await s.call('GET', '/v1/items?cursor=garbage', undefined, ALPHA)).status).toBe(400);
    expect((await s.call('GET', '/v1/items?limit=501', undefined, ALPHA)).status).toBe(400);
    expect((await s.call('GET', '/v1/items?colour=red', undefined, ALPHA)).status).toBe(400);
    // an empty kind list would exclude everything: refused like an empty layer list, never 0 items
    expect((await s.call('GET', '/v1/items?kind=', undefined, ALPHA)).status).toBe(400);
    expect((await s.call('GET', '/v1/items?layer=', undefined, ALPHA)).status).toBe(400);
  });

  it('is in the OpenAPI document with its query parameters', async () => {
    const docs = (await s.call('GET', '/docs/json')).body as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    const names = (docs.paths['/v1/items']?.['get']?.parameters ?? []).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['layer', 'kind', 'tag', 'entity', 'session', 'since', 'until', 'text', 'limit', 'cursor']));
    for (const path of ['/v1/import/items', '/v1/log/verify', '/v1/log/stats', '/v1/log/frames', '/v1/log/backup-point']) expect(docs.paths[path], path).toBeDefined();
  });

  it('a cursor goes on where it stopped while writes land in between', async () => {
    const page = (await s.call('GET', '/v1/items?limit=10', undefined, ALPHA)).body as unknown as Page;
    await s.call('POST', '/v1/memories', { memories: [{ id: 'a-first', kind: 'fact', text: 'sorts before every m' }, { id: 'zz-last', kind: 'fact', text: 'sorts last' }] }, ALPHA);
    const next = (await s.call('GET', `/v1/items?limit=50&cursor=${page.next_cursor}`, undefined, ALPHA)).body as unknown as Page;
    const seen = [...page.items, ...next.items].map((i) => i.id);
    expect(seen).not.toContain('a-first'); // before the cursor: not seen again on this pass
    expect(seen.at(-1)).toBe('zz-last');
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('the cursor rule', () => {
  it('binds a cursor to the filters as asked: a time phrase resolving to a later instant on the next page keeps it good', async () => {
    const store = await memoryStore();
    try {
      await store.knowledge.writeMemories({ memories: [1, 2, 3].map((i) => ({ id: `x${i}`, kind: 'fact', text: `fact ${i}` })) });
      const records = store.projections.views.records;
      const q = { namespace: 'private', include_retired: false, limit: 1, since: 0, since_text: 'last week' };
      const first = listItems(records, q);
      // the clock moved between pages: "last week" now starts a little later
      const second = listItems(records, { ...q, since: 1, cursor: first.next_cursor as string });
      expect([...first.items, ...second.items].map((e) => e.id)).toEqual(['x1', 'x2']);
      expect(() => listItems(records, { ...q, since_text: 'last month', cursor: first.next_cursor as string })).toThrow(/other filters/);
    } finally {
      await store.close();
    }
  });
});

describe('tags filter recall too', () => {
  it('POST /v1/recall and /v1/candidates/query keep only items carrying every tag; the options echo them', async () => {
    const ask = { query: 'fact about the build cache', limit: 50, options: { tags: ['DEPLOY'], conversations: false } };
    for (const route of ['/v1/recall', '/v1/candidates/query']) {
      const r = await s.call('POST', route, ask, ALPHA);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const ids = (r.body['records'] as { evidence_key: string }[]).map((x) => Number(x.evidence_key.slice(-2)));
      expect(ids.length, route).toBeGreaterThan(3);
      expect(ids.every((i) => i % 2 === 0), `${route}: ${ids.join(',')}`).toBe(true);
      expect(r.body['options']).toMatchObject({ tags: ['DEPLOY'] });
    }
    const all = await s.call('POST', '/v1/recall', { ...ask, options: { conversations: false } }, ALPHA);
    expect((all.body['records'] as { evidence_key: string }[]).some((x) => Number(x.evidence_key.slice(-2)) % 2 === 1)).toBe(true);
    expect((await s.call('POST', '/v1/recall', { ...ask, options: { tags: [] } }, ALPHA)).status).toBe(400);
  });

  it('kioku recall --tag', async () => {
    const r = await runCli(['recall', 'fact about the build cache', '--tag', 'deploy', '--no-conversations', '--json'], { KIOKU_URL: s.url, KIOKU_TOKEN: ALPHA });
    expect(r.code, r.stderr).toBe(0);
    const ids = (r.json?.['records'] as { evidence_key: string }[]).map((x) => Number(x.evidence_key.slice(-2)));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((i) => i % 2 === 0)).toBe(true);
  });
});

describe('kioku list and MCP list_memories', () => {
  it('the CLI lists through the service, with filters and the next cursor', async () => {
    const env = { KIOKU_URL: s.url, KIOKU_TOKEN: ALPHA };
    const r = await runCli(['list', '--tag', 'deploy', '--kind', 'decision', '--limit', '2', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect((r.json?.['items'] as unknown[]).length).toBe(2);
    const next = await runCli(['list', '--tag', 'deploy', '--kind', 'decision', '--limit', '2', '--cursor', String(r.json?.['next_cursor']), '--json'], env);
    expect(next.code, next.stderr).toBe(0);
    const ids = [...(r.json?.['items'] as { id: string }[]), ...(next.json?.['items'] as { id: string }[])].map((i) => i.id);
    expect(ids).toEqual(['m00', 'm06', 'm12', 'm18']);
    const human = await runCli(['list', '--text', 'orchid'], env);
    expect(human.stdout).toMatch(/ev1:alpha:memory:m07 +\[memory\/fact\] 2026-11-08 #ops +The Orchid release ships on Friday\./);
    expect((await runCli(['list', '--limit', 'abc'], env)).stderr).toContain("--limit must be a whole number from 1 to 500, got 'abc'");
  });

  it('MCP list_memories pages with the same filters', async () => {
    const dir = tempDir();
    let client: Client | undefined;
    try {
      // its own library, whose service it starts
      client = await mcpClient(dir.path);
      const wrote = await callTool(client, 'write_memory', { memories: memories.map(({ session_id: _s, ...m }) => m) });
      expect(wrote.isError, JSON.stringify(wrote.content)).toBeFalsy();
      const r = await callTool(client, 'list_memories', { tags: ['deploy'], kinds: ['decision'], limit: 3 });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const data = r.structuredContent as { items: { id: string }[]; next_cursor: string };
      expect(data.items.length, JSON.stringify(r)).toBe(3);
      expect(data.items.map((i) => i.id)).toEqual(['m00', 'm06', 'm12']);
      expect(r.content[0]?.text).toContain('more: call again with cursor');
      const more = await callTool(client, 'list_memories', { tags: ['deploy'], kinds: ['decision'], limit: 3, cursor: data.next_cursor });
      expect((more.structuredContent as { items: { id: string }[] }).items.map((i) => i.id)).toEqual(['m18']);
      const found = await callTool(client, 'search_memory', { sentence: 'fact about the build cache', tags: ['deploy'], limit: 20 });
      const keys = (found.structuredContent as { records: { evidence_key: string }[] }).records.map((r) => Number(r.evidence_key.slice(-2)));
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((i) => i % 2 === 0)).toBe(true);
    } finally {
      await client?.close();
      const service = readRunFile(dir.path);
      if (service) process.kill(service.pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      dir.cleanup();
    }
  }, 60_000);
});
