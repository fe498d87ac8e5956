// The access matrix (issue 34): 3 members in a tree of 3 spaces × audiences {owner only, a space,
// the org} × every read path, over HTTP and MCP, and the hook's injection. One server, one LevelDB
// library, one token per member (auth file); every cell checked: an item outside a member's
// audience is in no answer and no count. Plus the refusals: an audience outside the writer's
// subtree (nothing appended) and an audience change by a non-owner.
//
// Tree: acme ─┬─ eng   (alice)          alice writes A-own, A-eng  {spaces:[eng]},   A-org {org:true}
//             └─ sales (bob)            bob   writes B-own, B-sales {spaces:[sales]}, B-org {org:true}
//       acme (carol: the whole subtree)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDelivery } from '../src/hook/render.js';
import type { RecallPacket } from '../src/recall/packet.js';
import { REPO } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = { admin: 'admin-token-matrix-0001', alice: 'alice-token-matrix-0001', bob: 'bob-token-matrix-00001', carol: 'carol-token-matrix-0001' };
type Who = 'alice' | 'bob' | 'carol';
const MEMBERS: Who[] = ['alice', 'bob', 'carol'];
const MEMORIES = ['A-own', 'A-eng', 'A-org', 'B-own', 'B-sales', 'B-org'] as const;
/** who sees what: the whole matrix */
const SEES: Record<Who, readonly string[]> = {
  alice: ['A-own', 'A-eng', 'A-org', 'B-org'],
  bob: ['B-own', 'B-sales', 'B-org', 'A-org'],
  carol: ['A-eng', 'A-org', 'B-sales', 'B-org'],
};
const key = (id: string): string => `ev1:team:memory:${id}`;
const ours = (keys: readonly string[]): string[] => keys.filter((k) => MEMORIES.some((m) => k === key(m))).sort();
const expected = (who: Who): string[] => SEES[who].map(key).sort();

let server: TestServer;
const clients = new Map<Who, Client>();
const turnOf = new Map<Who, string>();

const call = async (who: Who | 'admin', method: string, path: string, body?: unknown) => {
  const r = await server.call(method, path, body, TOKENS[who]);
  return r as { status: number; body: Record<string, unknown> };
};
const keysOf = (list: unknown, field = 'evidence_key'): string[] => ((list ?? []) as Record<string, string>[]).map((x) => x[field] ?? x['key'] ?? '');

async function mcp(who: Who): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO, 'tools/mcp-main.ts'), 'mcp'],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: server.dir, KIOKU_URL: server.url, KIOKU_TOKEN: TOKENS[who] },
    stderr: 'pipe',
  });
  const client = new Client({ name: `matrix-${who}`, version: '0.0.0' });
  await client.connect(transport);
  return client;
}
const tool = async (who: Who, name: string, args: Record<string, unknown> = {}) =>
  (await (clients.get(who) as Client).callTool({ name, arguments: args })) as { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

beforeAll(async () => {
  server = await startTestServer({
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
        ...MEMBERS.map((m) => ({ name: `${m}-laptop`, token: TOKENS[m], namespace: 'team', scopes: ['memory:read', 'memory:write'] })),
      ],
    },
  });
  for (const change of [
    { action: 'space_add', space: 'acme' },
    { action: 'space_add', space: 'eng', parent: 'acme' },
    { action: 'space_add', space: 'sales', parent: 'acme' },
    ...MEMBERS.map((m) => ({ action: 'member_add', member: m, tokens: [`${m}-laptop`] })),
    { action: 'member_join', member: 'alice', space: 'eng' },
    { action: 'member_join', member: 'bob', space: 'sales' },
    { action: 'member_join', member: 'carol', space: 'acme' },
  ])
    expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  const write = (who: Who, id: string, audience?: unknown) =>
    call(who, 'POST', '/v1/memories', {
      memories: [{ id, kind: 'decision', text: `The quarterly rollout plan ${id}: ship the billing cutover in stages.`, entities: ['Rollout'], session_id: `s-${who}`, ...(audience ? { audience } : {}) }],
    });
  for (const [who, p, space] of [['alice', 'A', 'eng'], ['bob', 'B', 'sales']] as const) {
    expect((await write(who, `${p}-own`)).status).toBe(200);
    expect((await write(who, `${p}-${space}`, { spaces: [space] })).status).toBe(200);
    expect((await write(who, `${p}-org`, { org: true })).status).toBe(200);
  }
  // alice's own episode and asset: hers alone, like an own memory
  expect((await call('alice', 'POST', '/v1/episodes', { episode_id: 'A-ep', messages: [{ role: 'user', text: 'the quarterly rollout plan call, verbatim' }] })).status).toBe(200);
  expect((await call('alice', 'POST', '/v1/assets', { id: 'A-asset', content: 'rollout steps', name: 'rollout.txt', description: 'the quarterly rollout plan diagram' })).status).toBe(200);
  for (const who of MEMBERS) {
    expect((await call(who, 'POST', '/v1/sessions/open', { agent: 'matrix', session_id: `s-${who}` })).status).toBe(200);
    const turn = await call(who, 'POST', '/v1/turns/start', { session_id: `s-${who}`, query: 'what is the quarterly rollout plan for billing?' });
    turnOf.set(who, turn.body['turn_id'] as string);
    await call(who, 'POST', `/v1/turns/${turn.body['turn_id'] as string}/complete`, { answer: 'ship the billing cutover in stages' });
  }
  await Promise.all(MEMBERS.map(async (m) => clients.set(m, await mcp(m))));
}, 120_000);

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()));
  await server?.stop();
});

describe('the access matrix over HTTP', () => {
  const query = { query: 'quarterly rollout plan billing cutover', limit: 50 };
  it.each(MEMBERS)('%s: recall, candidates, turns/start answer exactly its audience, marked owner and mine, and count what was kept out', async (who) => {
    for (const path of ['/v1/recall', '/v1/candidates/query']) {
      const r = await call(who, 'POST', path, query);
      expect(ours(keysOf(r.body['records'])), `${who} ${path}`).toEqual(expected(who));
      expect(ours(keysOf(r.body['delivery']))).toEqual(expect.arrayContaining([]));
      for (const rec of r.body['records'] as { evidence_key: string; owner?: string; mine?: boolean }[])
        if (ours([rec.evidence_key]).length) expect(rec.mine, rec.evidence_key).toBe(rec.owner === who);
      const filtered = r.body['filtered_counts'] as { total: number; by_layer: Record<string, number> };
      expect(filtered.by_layer['memory']).toBe(MEMORIES.length - SEES[who].length);
      expect(r.body['warnings']).toContain('records_filtered_by_audience');
    }
    const turn = await call(who, 'POST', '/v1/turns/start', { session_id: `s-${who}`, query: 'quarterly rollout plan billing cutover' });
    expect(ours(keysOf(turn.body['records']))).toEqual(expected(who));
    // no other member's trace either
    expect(keysOf(turn.body['records']).filter((k) => k.includes(':trace:') && !k.endsWith(turnOf.get(who) as string))).toEqual([]);
  });

  it.each(MEMBERS)('%s: browse (items by entity, session, time; list), related, evidence answer exactly its audience', async (who) => {
    const items = await call(who, 'POST', '/v1/items/query', { entity: 'Rollout', limit: 200 });
    expect(ours(keysOf(items.body['items'], 'key'))).toEqual(expected(who));
    expect(items.body['total']).toBe(SEES[who].length);
    const timeline = await call(who, 'POST', '/v1/items/query', { layers: ['memory'], from: '2000-01-01T00:00:00Z', limit: 200 });
    expect(ours(keysOf(timeline.body['items'], 'key'))).toEqual(expected(who));
    for (const other of MEMBERS) {
      const session = await call(who, 'POST', '/v1/items/query', { session_id: `s-${other}`, limit: 200 });
      expect(keysOf(session.body['items'], 'key').every((k) => !k.includes(':memory:') || expected(who).includes(k)), `${who} session of ${other}`).toBe(true);
    }
    const listed = await call(who, 'GET', '/v1/items?limit=500');
    expect(ours(keysOf(listed.body['items'], 'key'))).toEqual(expected(who));
    for (const m of MEMORIES) {
      const seen = SEES[who].includes(m);
      const ev = await call(who, 'GET', `/v1/evidence/${encodeURIComponent(key(m))}`);
      expect(ev.status, `${who} evidence ${m}`).toBe(seen ? 200 : 404);
      if (seen) expect(ev.body).toMatchObject({ owner: m.startsWith('A') ? 'alice' : 'bob', mine: m.startsWith(who === 'alice' ? 'A' : who === 'bob' ? 'B' : '-') });
      const rel = await call(who, 'GET', `/v1/evidence/${encodeURIComponent(key(m))}/related?limit=100`);
      expect(rel.status).toBe(seen ? 200 : 404);
      if (seen) expect(ours(keysOf(rel.body['edges'])).every((k) => expected(who).includes(k)), `${who} related ${m}`).toBe(true);
    }
  });

  it.each(MEMBERS)('%s: counts (stats, ingest status), reports (cold, delivery), replay and artifacts hold nothing outside its audience', async (who) => {
    // its own turns only: the traces it can list are its own, and every count agrees with them
    const traces = keysOf((await call(who, 'POST', '/v1/items/query', { layers: ['trace'], limit: 50 })).body['items'], 'key');
    expect(traces).toContain(`ev1:team:trace:${turnOf.get(who) as string}`);
    for (const other of MEMBERS.filter((m) => m !== who)) expect(traces).not.toContain(`ev1:team:trace:${turnOf.get(other) as string}`);
    const visibleTraces = traces.length;
    const stats = await call(who, 'GET', '/v1/stats');
    expect((stats.body['items'] as { by_layer: Record<string, number> }).by_layer).toMatchObject({ memory: SEES[who].length, trace: visibleTraces });
    const ingest = await call(who, 'GET', '/v1/ingest/status');
    expect((ingest.body['items'] as { by_layer: Record<string, number> }).by_layer).toMatchObject({ memory: SEES[who].length, trace: visibleTraces });
    const cold = await call(who, 'GET', '/v1/knowledge/cold?min_considered=1');
    expect(keysOf(cold.body['items'], 'key').every((k) => !k.startsWith('ev1:team:memory:') || expected(who).includes(k))).toBe(true);
    const delivery = await call(who, 'GET', '/v1/reports/delivery?days=30');
    expect(delivery.body['turns']).toBe(1); // its own completed turn only
    const replayed = await call(who, 'POST', '/v1/replay', {});
    expect((replayed.body['turns'] as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(replayed.body)).not.toMatch(new RegExp(MEMBERS.filter((m) => m !== who).map((m) => turnOf.get(m)).join('|')));
    const activity = await call(who, 'GET', '/v1/activity?days=30&limit=50');
    expect((activity.body['by_kind'] as Record<string, number>)['decision']).toBe(SEES[who].length);
    expect(JSON.stringify(activity.body['turns'])).not.toMatch(new RegExp(MEMBERS.filter((m) => m !== who).map((m) => turnOf.get(m)).join('|')));
    for (const other of MEMBERS) {
      const art = await call(who, 'GET', `/v1/artifacts/${turnOf.get(other) as string}`);
      expect(art.status, `${who} artifacts of ${other}`).toBe(other === who ? 200 : 404);
    }
  });

  it.each(MEMBERS)("%s: the lifecycle run decides, counts and lists exactly its audience (defect: a member's run named other members' private memories by key and counted them)", async (who) => {
    const r = await call(who, 'POST', '/v1/lifecycle/run', { dry_run: true });
    expect(r.status).toBe(200);
    const keys = keysOf(r.body['transitions']);
    expect(ours(keys)).toEqual(expected(who));
    for (const other of MEMBERS.filter((m) => m !== who)) expect(keys).not.toContain(`ev1:team:trace:${turnOf.get(other) as string}`);
    // every item is fresh (strength 1): each one counted is a candidate → active listed above
    expect(r.body['items']).toBe(keys.length);
    expect(r.body['appended']).toBe(0);
  });
});

describe('episodes and assets', () => {
  it.each(MEMBERS)("%s: alice's episode and asset are hers alone (items, GET /v1/assets, recall_episodes, get_asset)", async (who) => {
    const hers = who === 'alice';
    const items = await call(who, 'POST', '/v1/items/query', { layers: ['episode', 'asset'], limit: 50 });
    expect(keysOf(items.body['items'], 'key').sort()).toEqual(hers ? ['ev1:team:asset:A-asset', 'ev1:team:episode:A-ep'] : []);
    expect((await call(who, 'GET', '/v1/assets/A-asset')).status).toBe(hers ? 200 : 404);
    const episodes = await tool(who, 'recall_episodes', { message: 'quarterly rollout plan call verbatim' });
    expect(JSON.stringify(episodes.structuredContent ?? {}).includes('ev1:team:episode:A-ep'), `${who} recall_episodes`).toBe(hers);
    expect((await tool(who, 'get_asset', { id: 'A-asset' })).isError === true, `${who} get_asset`).toBe(!hers);
  });
});

describe('the access matrix over MCP, and the hook', () => {
  it.each(MEMBERS)('%s: search_memory, recall_topic, recall_timeline, list_memories, get_memory, stats, list_members', async (who) => {
    const search = await tool(who, 'search_memory', { query: 'quarterly rollout plan billing cutover', limit: 50 });
    expect(ours(keysOf((search.structuredContent as { records: unknown[] }).records))).toEqual(expected(who));
    for (const m of MEMORIES) if (!SEES[who].includes(m)) expect(search.content[0]?.text).not.toContain(`memory:${m}]`);
    const topic = await tool(who, 'recall_topic', { entity: 'Rollout', limit: 50 });
    expect(ours(keysOf((topic.structuredContent as { items: unknown[] }).items))).toEqual(expected(who));
    const timeline = await tool(who, 'recall_timeline', { from: '2000-01-01T00:00:00Z', limit: 50 });
    expect(ours(keysOf((timeline.structuredContent as { items: unknown[] }).items))).toEqual(expected(who));
    const listed = await tool(who, 'list_memories', { limit: 200 });
    expect(ours(JSON.stringify(listed.structuredContent).match(/ev1:team:memory:[A-Za-z-]+/g) ?? []).filter((k, i, a) => a.indexOf(k) === i)).toEqual(expected(who));
    for (const m of MEMORIES) {
      const got = await tool(who, 'get_memory', { evidence_key: key(m) });
      expect(got.isError === true, `${who} get_memory ${m}`).toBe(!SEES[who].includes(m));
    }
    const members = await tool(who, 'list_members');
    expect(members.structuredContent).toMatchObject({ members: [{ name: 'alice' }, { name: 'bob' }, { name: 'carol' }], you: { member: who } });
  });

  it("marks another member's delivered memory with its owner in the hook's injection", async () => {
    expect((await call('bob', 'POST', '/v1/sessions/open', { agent: 'hook', session_id: 's-bob-hook' })).status).toBe(200);
    const turn = await call('bob', 'POST', '/v1/turns/start', { session_id: 's-bob-hook', query: 'The quarterly rollout plan A-org: ship the billing cutover in stages.' });
    const packet = turn.body as unknown as RecallPacket;
    const theirs = packet.delivery.find((d) => d.evidence_key === key('A-org'));
    expect(theirs).toMatchObject({ owner: 'alice', mine: false });
    const injected = renderDelivery(packet, 6_000);
    expect(injected).toContain("someone else's memory: noted by alice");
    expect(packet.delivery.every((d) => SEES.bob.map(key).includes(d.evidence_key) || !ours([d.evidence_key]).length)).toBe(true);
  });
});

describe('refusals', () => {
  it('refuses a write naming a space outside the writer\'s subtree whole (nothing appended), and an audience change by a non-owner', async () => {
    const before = (await call('alice', 'GET', '/v1/stats')).body['events'];
    const refused = await call('alice', 'POST', '/v1/memories', {
      memories: [
        { id: 'A-ok', kind: 'fact', text: 'fine on its own' },
        { id: 'A-bad', kind: 'fact', text: 'shared with sales', audience: { spaces: ['sales'] } },
      ],
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'KIOKU_AUDIENCE_REFUSED', details: { field: 'memories.1.audience', value: 'space:sales' } } });
    expect((await call('alice', 'GET', '/v1/stats')).body['events']).toBe(before);
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('A-ok'))}`)).status).toBe(404);
    // above her own space is outside her subtree too
    expect((await call('alice', 'POST', '/v1/memories/A-own/audience', { audience: { spaces: ['acme'] } })).status).toBe(403);
    // bob sees alice's org-wide memory but may not change who sees it; one he cannot see is not found
    const notOwner = await call('bob', 'POST', '/v1/memories/A-org/audience', { audience: [] });
    expect(notOwner).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_FORBIDDEN', details: { owner: 'alice' } } } });
    expect((await call('bob', 'POST', '/v1/memories/A-own/audience', { audience: { org: true } })).status).toBe(404);
    // the owner narrows it: bob no longer sees it
    expect((await call('alice', 'POST', '/v1/memories/A-org/audience', { audience: [] })).status).toBe(200);
    expect((await call('bob', 'GET', `/v1/evidence/${encodeURIComponent(key('A-org'))}`)).status).toBe(404);
    expect((await call('alice', 'POST', '/v1/memories/A-org/audience', { audience: { org: true } })).status).toBe(200);
  });
});
