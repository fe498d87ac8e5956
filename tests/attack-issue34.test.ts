// The outside attack on issues 33/34 (who may see or act on an item), each finding reproduced
// against a real server on a loopback port, in an org set up as the matrix test does: spaces
// acme > {eng, sales}; alice in eng, bob in sales, carol in no space; alice writes A-own (hers
// alone), A-eng ({spaces:[eng]}), A-org ({org:true}). Every check below failed at 2effb32.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = {
  admin: 'admin-token-attack-000001',
  alice: 'alice-token-attack-00001',
  bob: 'bob-token-attack-0000001',
  carol: 'carol-token-attack-00001',
};
type Who = keyof typeof TOKENS;
const OTHERS = ['bob', 'carol'] as const;
const SECRET = 'sk-proj-Qx7Lm2Nv8Rt4Yz6Bc1Df3Gh5Jk9Pw0Es2Ua4Ic6Oe8';
const key = (layer: string, id: string): string => `ev1:team:${layer}:${id}`;

let server: TestServer;
let trace = '';
let bobMcp: Client | undefined;

const call = async (who: Who, method: string, path: string, body?: unknown) =>
  (await server.call(method, path, body, TOKENS[who])) as { status: number; body: Record<string, unknown> };
const write = (who: Who, id: string, text: string, audience?: unknown, session = `s-${who}`) =>
  call(who, 'POST', '/v1/memories', { memories: [{ id, kind: 'decision', text, entities: ['Rollout'], session_id: session, ...(audience ? { audience } : {}) }] });
const errorOf = (r: { body: Record<string, unknown> }) => (r.body['error'] ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };

beforeAll(async () => {
  server = await startTestServer({
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'memory:write', 'org:admin'] },
        ...(['alice', 'bob', 'carol'] as const).map((m) => ({ name: `${m}-laptop`, token: TOKENS[m], namespace: 'team', scopes: ['memory:read', 'memory:write'] })),
      ],
    },
  });
  for (const change of [
    { action: 'space_add', space: 'acme' },
    { action: 'space_add', space: 'eng', parent: 'acme' },
    { action: 'space_add', space: 'sales', parent: 'acme' },
    ...(['alice', 'bob', 'carol'] as const).map((m) => ({ action: 'member_add', member: m, tokens: [`${m}-laptop`] })),
    { action: 'member_join', member: 'alice', space: 'eng' },
    { action: 'member_join', member: 'bob', space: 'sales' },
  ])
    expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  expect((await write('alice', 'A-own', 'The quarterly rollout plan is alice private: ship billing in stages.')).status).toBe(200);
  expect((await write('alice', 'A-eng', 'The quarterly rollout plan for eng: billing cutover first.', { spaces: ['eng'] })).status).toBe(200);
  expect((await write('alice', 'A-org', 'The quarterly rollout plan for everyone: billing in March.', { org: true })).status).toBe(200);
  expect((await write('alice', 'A2-own', 'The quarterly rollout plan second private note of alice.')).status).toBe(200);
  expect((await write('alice', 'A-sec', `The rollout deploy key is ${SECRET} for the billing job.`)).status).toBe(200);
  expect((await write('alice', 'A-s2', 'The quarterly rollout plan kept in the second session.', undefined, 's-alice2')).status).toBe(200);
  const asset = await call('alice', 'POST', '/v1/assets', { id: 'A-asset', content: 'rollout steps', name: 'rollout.txt', description: 'the quarterly rollout plan diagram for billing' });
  expect(asset.status).toBe(200);
  expect((await call('alice', 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-alice' })).status).toBe(200);
  const turn = await call('alice', 'POST', '/v1/turns/start', { session_id: 's-alice', query: 'what is the zebra migration runbook for the billing ledger?' });
  trace = turn.body['turn_id'] as string;
  expect((await call('alice', 'POST', `/v1/turns/${trace}/complete`, { answer: 'the zebra runbook: drain the ledger queue first' })).status).toBe(200);
  // bob's own `kioku mcp` (remote mode: his token, the server above), from the sources
  const env = { PATH: process.env['PATH'] ?? '', HOME: server.dir, KIOKU_URL: server.url, KIOKU_TOKEN: TOKENS.bob };
  bobMcp = new Client({ name: 'attack-bob', version: '0.0.0' });
  await bobMcp.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', join(REPO, 'tools/mcp-main.ts'), 'mcp'], cwd: REPO, env, stderr: 'pipe' }));
}, 120_000);

afterAll(async () => {
  await bobMcp?.close();
  await server?.stop();
});

describe('1. forget and purge: only the owner (or an org admin), a hidden item is not found', () => {
  it("bob cannot forget alice's owner-only memory (HTTP 404, MCP an error), nor her org-wide one (403 naming her)", async () => {
    const forget = await call('bob', 'POST', '/v1/memories/A-own/forget', {});
    expect(forget.status).toBe(404);
    expect(errorOf(forget).code).toBe('KIOKU_NOT_FOUND');
    expect(JSON.stringify(forget.body)).not.toContain('alice');
    const mcp = (await bobMcp?.callTool({ name: 'forget', arguments: { id: 'A2-own' } })) as { isError?: boolean; content: { text: string }[] };
    expect(mcp.isError).toBe(true);
    expect(mcp.content[0]?.text).not.toContain('forgot A2-own');
    const shared = await call('bob', 'POST', '/v1/memories/A-org/forget', {});
    expect(shared.status).toBe(403);
    expect(errorOf(shared)).toMatchObject({ code: 'KIOKU_FORBIDDEN', details: { owner: 'alice' } });
    // still there for alice
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A2-own'))}`)).body['status']).toBe('active');
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-org'))}`)).body['status']).toBe('active');
  });

  it("bob cannot purge alice's memories or her session; a member cannot purge the namespace", async () => {
    for (const [body, status] of [
      [{ scope: 'memory', id: 'A-own' }, 404],
      [{ scope: 'memory', id: 'A-org' }, 403],
      [{ scope: 'session', id: 's-alice2' }, 404],
      [{ scope: 'session', id: 's-alice' }, 403],
      [{ scope: 'namespace' }, 403],
    ] as const) {
      const r = await call('bob', 'POST', '/v1/purge', body);
      expect({ body, status: r.status }).toEqual({ body, status });
    }
    const alice = await call('alice', 'POST', '/v1/purge', { scope: 'namespace' });
    expect(alice.status).toBe(403);
    expect(errorOf(alice).message).toContain('org admin');
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-s2'))}`)).body['status']).toBe('active');
  });

  it('the owner forgets and purges her own; the tombstone and the purged event name who did it', async () => {
    expect((await call('alice', 'POST', '/v1/memories/A2-own/forget', {})).status).toBe(200);
    const tomb = await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A2-own'))}`);
    expect(tomb.body['tombstone']).toMatchObject({ by: 'http:alice-laptop' });
    const purged = await call('alice', 'POST', '/v1/purge', { scope: 'session', id: 's-alice2' });
    expect(purged.status).toBe(200);
    const again = await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-s2'))}`);
    expect(again.body['tombstone']).toMatchObject({ by: 'http:alice-laptop', purged: true });
  });

  it("an org admin may forget a member's item", async () => {
    expect((await write('bob', 'B-tmp', 'a note bob keeps for a while')).status).toBe(200);
    expect((await call('admin', 'POST', '/v1/memories/B-tmp/forget', {})).status).toBe(200);
    expect((await call('bob', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'B-tmp'))}`)).body['tombstone']).toMatchObject({ by: 'http:admin' });
  });
});

describe('2–4. what others cannot read: sources, activity, assets', () => {
  it.each(OTHERS)("%s: GET /v1/sources/A-own is not found (alice's text stays hers)", async (who) => {
    const r = await call(who, 'GET', '/v1/sources/A-own');
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.body)).not.toContain('alice private');
    expect((await call(who, 'GET', '/v1/sources/A-org')).status).toBe(200);
    expect((await call('alice', 'GET', '/v1/sources/A-own')).status).toBe(200);
  });

  it.each(OTHERS)("%s: GET /v1/activity lists no turn of alice's and counts only what it may see", async (who) => {
    const r = await call(who, 'GET', '/v1/activity');
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(trace);
    expect(text).not.toContain('zebra');
    expect(text).not.toContain('s-alice');
    const byKind = r.body['by_kind'] as Record<string, number>;
    // of alice's: A-org for both, A-eng for neither (carol is in no space, bob in sales)
    expect(byKind['decision'] ?? 0).toBe(1);
    expect(byKind['asset'] ?? 0).toBe(0);
    const mine = await call('alice', 'GET', '/v1/activity');
    expect(JSON.stringify(mine.body)).toContain(trace);
  });

  it.each(OTHERS)("%s: alice's asset is in no recall, context, candidates, list or lookup", async (who) => {
    const query = { query: 'quarterly rollout plan diagram for billing', limit: 50 };
    for (const path of ['/v1/recall', '/v1/context', '/v1/candidates/query']) {
      const r = await call(who, 'POST', path, query);
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body), `${who} ${path}`).not.toContain('A-asset');
    }
    expect(JSON.stringify((await call(who, 'GET', '/v1/items?limit=500')).body)).not.toContain('A-asset');
    expect(JSON.stringify((await call(who, 'POST', '/v1/items/query', { layers: ['asset'], limit: 50 })).body)).not.toContain('A-asset');
    const lookup = await call(who, 'GET', '/v1/assets/A-asset');
    expect(lookup.status).toBe(404);
    expect(JSON.stringify(lookup.body)).not.toContain('diagram');
  });
});

describe('5–7. secrets, forgotten traces, existence oracles', () => {
  it("5. a secret in alice's own memory is revealed to alice only", async () => {
    const stored = await call('alice', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-sec'))}`);
    const id = /⟦secret:[a-z0-9-]+:([a-z0-9]+)⟧/.exec(String(stored.body['text']))?.[1] as string;
    expect(id).toBeTruthy();
    for (const who of OTHERS) {
      const r = await call(who, 'POST', '/v1/secrets/reveal', { id });
      expect({ who, status: r.status }).toEqual({ who, status: 404 });
      expect(JSON.stringify(r.body)).not.toContain(SECRET);
    }
    const hers = await call('alice', 'POST', '/v1/secrets/reveal', { id });
    expect(hers.status).toBe(200);
    expect(hers.body['value']).toBe(SECRET);
  });

  it('6. a forgotten trace is gone from artifacts and replay (replay says it lost its text)', async () => {
    expect((await call('alice', 'POST', `/v1/memories/${encodeURIComponent(key('trace', trace))}/forget`, {})).status).toBe(200);
    const art = await call('alice', 'GET', `/v1/artifacts/${trace}`);
    expect(art.status).toBe(200);
    expect(JSON.stringify(art.body)).not.toContain('zebra');
    const replayed = await call('alice', 'POST', '/v1/replay', {});
    expect(replayed.status).toBe(200);
    expect(JSON.stringify(replayed.body)).not.toContain('zebra');
    const turn = (replayed.body['turns'] as { turn_id: string; text_forgotten?: boolean }[]).find((t) => t.turn_id === trace);
    expect(turn?.text_forgotten).toBe(true);
  });

  it('7. no existence oracle: an id taken by a hidden item, and usage counters of one', async () => {
    for (const text of ['anything else', 'The quarterly rollout plan is alice private: ship billing in stages.']) {
      const r = await write('bob', 'A-own', text);
      expect(r.status).toBe(409);
      expect(errorOf(r).code).toBe('KIOKU_ID_CONFLICT');
      expect(errorOf(r).message).not.toMatch(/exists|content/);
    }
    const usage = await call('bob', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-own'))}/usage`);
    expect(usage.status).toBe(404);
    expect((await call('bob', 'GET', `/v1/evidence/${encodeURIComponent(key('memory', 'A-org'))}/usage`)).status).toBe(200);
    // supersede cannot retire what the caller cannot see, nor what it does not own
    expect((await write('bob', 'B-new', 'the new rollout plan from bob')).status).toBe(200);
    expect((await call('bob', 'POST', '/v1/memories/B-new/supersede', { superseded_ids: ['A-own'] })).status).toBe(404);
    expect((await call('bob', 'POST', '/v1/memories/B-new/supersede', { superseded_ids: ['A-org'] })).status).toBe(403);
  });

  it('7. member_add refuses a token name the auth file does not hold', async () => {
    const r = await call('admin', 'POST', '/v1/org', { action: 'member_add', member: 'dave', tokens: ['dave-laptop'] });
    expect(r.status).toBe(400);
    expect(errorOf(r).message).toContain('dave-laptop');
  });
});
