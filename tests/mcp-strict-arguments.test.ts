// Every MCP tool's arguments are strict and named as the seed names them (issue 34): an argument a
// tool does not take is refused by name (at the top and nested), never dropped; search_memory takes
// `query` (and `sentence`, its old name); every tool that acts on an item takes its evidence key as
// well as its id, and a refusal names the item, never the transport. `kioku mcp` on stdio in remote
// mode against a real server on a loopback port; HTTP on the same server for the facade's doors.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient } from './support/mcp.js';

const TOKEN = 'strict-args-token-0123456789';
let s: TestServer;
let client: Client;
const head = () => s.state.store!.log.head().seq;
const errorOf = (r: { structuredContent?: Record<string, unknown> }) => r.structuredContent?.['error'] as { code: string; message: string } | undefined;

beforeAll(async () => {
  s = await startTestServer({ tokens: { tokens: [{ name: 'solo', token: TOKEN, namespace: 'solo', scopes: ['memory:read', 'memory:write'] }] } });
  client = await remoteMcpClient(s.url, TOKEN, s.dir);
  const w = await callTool(client, 'write_memory', {
    memories: [
      { id: 'db-old', kind: 'fact', text: 'The staging database is pg-staging-1.', terms: ['staging database'] },
      { id: 'db-new', kind: 'fact', text: 'The staging database is pg-staging-2.', terms: ['staging database'] },
      { id: 'scratch', kind: 'note', text: 'A scratch note about the pgbouncer port ledger.' },
    ],
  });
  expect(w.isError).toBeFalsy();
}, 60_000);
afterAll(async () => {
  await client?.close();
  await s?.stop();
});

/** JSON Schema objects (draft 7) anywhere in a tool's input schema that would let an unknown key through. */
function lax(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const own = (s['type'] === 'object' || s['properties']) && s['additionalProperties'] !== false ? [path || '(top)'] : [];
  const props = Object.entries((s['properties'] ?? {}) as Record<string, unknown>).flatMap(([k, v]) => lax(v, path ? `${path}.${k}` : k));
  const items = s['items'] ? lax(s['items'], `${path}[]`) : [];
  const alts = ['anyOf', 'oneOf', 'allOf'].flatMap((k) => ((s[k] ?? []) as unknown[]).flatMap((v) => lax(v, path)));
  return [...own, ...props, ...items, ...alts];
}

describe('strict arguments over MCP', () => {
  it('lists every tool with a closed input schema: no object anywhere admits an unlisted key', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(20);
    expect(tools.flatMap((t) => lax(t.inputSchema).map((p) => `${t.name}: ${p}`))).toEqual([]);
  });

  it('refuses an unknown top-level argument by name, appending nothing (write_memory with audience or notify beside memories)', async () => {
    for (const extra of [{ audience: ['bob'] }, { notify: ['bob'] }, { colour: 'red' }]) {
      const at = head();
      const r = await callTool(client, 'write_memory', { memories: [{ id: 'x1', kind: 'fact', text: 'never written' }], ...extra });
      const name = Object.keys(extra)[0] as string;
      expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
      expect(errorOf(r)?.message).toMatch(new RegExp(`^write_memory: ${name}: unknown argument \\(write_memory takes memories\\)`));
      expect(head()).toBe(at);
    }
    // tools of every kind: a facade tool with extras, a lookup, a team tool
    for (const [tool, args, name] of [
      ['search_memory', { query: 'staging', semantic: false, fuzzy: true }, 'fuzzy'],
      ['recall_topic', { entity: 'billing', since: 'yesterday' }, 'since'],
      ['get_memory', { evidence_key: 'ev1:solo:memory:db-old', full: true }, 'full'],
      ['stats', { verbose: true }, 'verbose'],
      ['inbox', { all: true }, 'all'],
    ] as const) {
      const r = await callTool(client, tool, args);
      expect(r, tool).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
      expect(errorOf(r)?.message, tool).toContain(`${tool}: ${name}: `);
    }
  });

  it('refuses an unknown nested argument by its path', async () => {
    const at = head();
    const r = await callTool(client, 'write_memory', { memories: [{ id: 'x2', kind: 'fact', text: 'never written', colour: 'red' }] });
    expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    expect(errorOf(r)?.message).toMatch(/^write_memory: memories\.0\.colour: /);
    const o = await callTool(client, 'recall', { message: 'staging database', options: { wiki: false, turbo: true } });
    expect(errorOf(o)?.message).toMatch(/^recall: options\.turbo: /);
    expect(head()).toBe(at);
  });
});

describe('arguments as the seed names them', () => {
  it('search_memory takes query, and sentence as its alias; both at once is refused', async () => {
    const byQuery = await callTool(client, 'search_memory', { query: 'pgbouncer port ledger', semantic: false });
    expect(byQuery.isError).toBeFalsy();
    const keys = (r: typeof byQuery) => ((r.structuredContent?.['records'] ?? []) as { evidence_key: string }[]).map((x) => x.evidence_key);
    expect(keys(byQuery)).toContain('ev1:solo:memory:scratch');
    const bySentence = await callTool(client, 'search_memory', { sentence: 'pgbouncer port ledger', semantic: false });
    expect(keys(bySentence)).toEqual(keys(byQuery));
    const both = await callTool(client, 'search_memory', { query: 'a', sentence: 'b' });
    expect(errorOf(both)).toMatchObject({ code: 'KIOKU_INPUT_INVALID', message: 'search_memory: sentence: give query or sentence, not both (one is the other\'s alias)' });
    const neither = await callTool(client, 'search_memory', { semantic: false });
    expect(errorOf(neither)?.message).toMatch(/^search_memory: query: /);
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'search_memory')?.inputSchema as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['query', 'sentence']));
    expect(schema.required ?? []).not.toContain('sentence');
  });

  it('supersede, get_memory, get_related, set_memory_audience and forget take an evidence key as well as an id', async () => {
    const sup = await callTool(client, 'supersede', { id: 'ev1:solo:memory:db-new', superseded_ids: ['ev1:solo:memory:db-old'] });
    expect(sup).toMatchObject({ structuredContent: { head_id: 'db-new', superseded_ids: ['db-old'] } });
    expect((await callTool(client, 'get_memory', { id: 'db-old' })).structuredContent).toMatchObject({ key: 'ev1:solo:memory:db-old', status: 'superseded', head_id: 'db-new' });
    expect((await callTool(client, 'get_related', { id: 'db-new' })).structuredContent).toMatchObject({ edges: [{ evidence_key: 'ev1:solo:memory:db-old', relation: 'supersedes' }] });
    expect((await callTool(client, 'set_memory_audience', { id: 'ev1:solo:memory:scratch', audience: ['me'] })).structuredContent).toEqual({ id: 'scratch', audience: ['me'] });
    expect((await callTool(client, 'forget', { id: 'ev1:solo:memory:scratch' })).structuredContent).toEqual({ id: 'scratch', forgotten: true });
    expect((await callTool(client, 'get_memory', { evidence_key: 'ev1:solo:memory:scratch' })).structuredContent).toMatchObject({ status: 'forgotten' });
    // a write's supersede_ids too
    const w = await callTool(client, 'write_memory', { memories: [{ id: 'db-3', kind: 'fact', text: 'The staging database is pg-staging-3.', supersede_ids: ['ev1:solo:memory:db-new'] }] });
    expect(w.isError).toBeFalsy();
    expect((await callTool(client, 'get_memory', { id: 'db-new' })).structuredContent).toMatchObject({ status: 'superseded', head_id: 'db-3' });
  });

  it('refuses a key of another layer or namespace and an unknown memory, naming the item and never the transport', async () => {
    const at = head();
    const missing = await callTool(client, 'forget', { id: 'ev1:solo:memory:never-written' });
    expect(errorOf(missing)).toEqual({ code: 'KIOKU_NOT_FOUND', message: 'no memory "never-written" in namespace solo' });
    const layer = await callTool(client, 'forget', { id: 'ev1:solo:wiki:deploy#2' });
    expect(errorOf(layer)).toMatchObject({ code: 'KIOKU_INPUT_INVALID', message: expect.stringMatching(/^forget: id: ev1:solo:wiki:deploy#2 is not a memory/) });
    const other = await callTool(client, 'supersede', { id: 'db-3', superseded_ids: ['ev1:elsewhere:memory:db-old'] });
    expect(errorOf(other)?.message).toBe('supersede: superseded_ids.0: ev1:elsewhere:memory:db-old is in namespace "elsewhere", this call acts in "solo"');
    const both = await callTool(client, 'get_memory', { id: 'db-3', evidence_key: 'ev1:solo:memory:db-3' });
    expect(errorOf(both)?.code).toBe('KIOKU_INPUT_INVALID');
    for (const r of [missing, layer, other]) expect(r.content[0]?.text).not.toMatch(/HTTP|\b404\b|\b400\b/);
    expect(head()).toBe(at);
  });

  it('over HTTP the same: a path id or a body id may be an evidence key', async () => {
    await s.call('POST', '/v1/memories', { memories: [{ id: 'h1', kind: 'fact', text: 'HTTP one.' }, { id: 'h2', kind: 'fact', text: 'HTTP two.' }] }, TOKEN);
    const sup = await s.call('POST', `/v1/memories/${encodeURIComponent('ev1:solo:memory:h2')}/supersede`, { superseded_ids: ['ev1:solo:memory:h1'] }, TOKEN);
    expect(sup.body).toEqual({ head_id: 'h2', superseded_ids: ['h1'] });
    const forgot = await s.call('POST', `/v1/memories/${encodeURIComponent('ev1:solo:memory:h2')}/forget`, {}, TOKEN);
    expect(forgot.body).toEqual({ id: 'h2', forgotten: true });
    const bad = await s.call('POST', `/v1/memories/${encodeURIComponent('ev1:solo:card:h2#1')}/forget`, {}, TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'id' } } });
  });
});

describe('single user: notify and audience refused, never dropped', () => {
  it('over MCP: write_memory with notify (KIOKU_SINGLE_USER) or a widened audience, and the notify tool; inbox and outbox empty with the reason', async () => {
    const at = head();
    const n = await callTool(client, 'write_memory', { memories: [{ id: 'n1', kind: 'fact', text: 'For the team.', notify: ['bob'] }] });
    expect(errorOf(n)).toEqual({
      code: 'KIOKU_SINGLE_USER',
      message: 'write memories: memories.0.notify: this library runs for a single user (no org), so there is no other member to notify; nothing was written',
    });
    const a = await callTool(client, 'write_memory', { memories: [{ id: 'n2', kind: 'fact', text: 'For the org.', audience: { org: true } }] });
    expect(a).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_AUDIENCE_REFUSED' } } });
    const note = await callTool(client, 'notify', { to: 'bob', text: 'hi' });
    expect(errorOf(note)?.code).toBe('KIOKU_SINGLE_USER');
    expect(head()).toBe(at);
    for (const tool of ['inbox', 'outbox'])
      expect((await callTool(client, tool, {})).structuredContent).toMatchObject({ notices: [], single_user: true, explanation: expect.stringContaining('single user') });
    expect(errorOf(await callTool(client, 'ack', { notice_id: 'n-0123456789abcdef' }))?.code).toBe('KIOKU_NOT_FOUND');
  });

  it('over HTTP: 409 KIOKU_SINGLE_USER naming the field, nothing appended', async () => {
    const at = head();
    const w = await s.call('POST', '/v1/memories', { memories: [{ id: 'ok', kind: 'fact', text: 'fine' }, { id: 'n3', kind: 'fact', text: 'x', notify: ['bob'] }] }, TOKEN);
    expect(w.status).toBe(409);
    expect(w.body).toMatchObject({ error: { code: 'KIOKU_SINGLE_USER', details: { field: 'memories.1.notify' } } });
    const n = await s.call('POST', '/v1/notices', { to: ['bob'], text: 'hi' }, TOKEN);
    expect(n.status).toBe(409);
    expect(n.body).toMatchObject({ error: { code: 'KIOKU_SINGLE_USER', details: { field: 'to' } } });
    expect(head()).toBe(at);
    expect((await s.call('GET', '/v1/inbox', undefined, TOKEN)).body).toMatchObject({ namespace: 'solo', notices: [], single_user: true });
  });
});
