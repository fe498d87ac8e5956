// The outside attack of session 4 on issue 34 (sessions, turns, not-found answers, callers outside
// the org), each finding reproduced against a real server on a loopback port: spaces acme >
// {eng, sales}; alice in eng, bob in sales, carol in eng; "stranger" is a token of the namespace
// that maps to no member. Every check below failed before the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';
import { acmeChanges } from './support/acme-org.js';

const TOKENS = {
  admin: 'admin-token-session4-0001',
  alice: 'alice-token-session4-0001',
  bob: 'bob-token-session4-000001',
  carol: 'carol-token-session4-0001',
  stranger: 'stranger-token-session4-1',
};
type Who = keyof typeof TOKENS;
type Answer = { status: number; body: Record<string, unknown> };

let server: TestServer;
let turn = '';
const call = async (who: Who, method: string, path: string, body?: unknown) => (await server.call(method, path, body, TOKENS[who])) as Answer;
const errorOf = (r: Answer) => (r.body['error'] ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };
const eventsOf = async (who: Who, id: string) => ((await call(who, 'GET', `/v1/artifacts/${id}`)).body['events'] ?? []) as { type: string; data: Record<string, unknown> }[];

beforeAll(async () => {
  server = await startTestServer({
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'memory:write', 'org:admin'] },
        { name: 'stranger', token: TOKENS.stranger, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        ...(['alice', 'bob', 'carol'] as const).map((m) => ({ name: `${m}-laptop`, token: TOKENS[m], namespace: 'team', scopes: ['memory:read', 'memory:write'] })),
      ],
    },
  });
  for (const change of acmeChanges(['alice', 'bob', 'carol'], { alice: 'eng', bob: 'sales', carol: 'eng' }))
    expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  const mem = { memories: [{ id: 'm-alice-1', kind: 'decision', text: 'The billing cutover runs in March.', session_id: 's-alice' }] };
  expect((await call('alice', 'POST', '/v1/memories', mem)).status).toBe(200);
  expect((await call('alice', 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-alice' })).status).toBe(200);
  const started = await call('alice', 'POST', '/v1/turns/start', { session_id: 's-alice', query: 'when does the billing cutover run?' });
  expect(started.status).toBe(200);
  turn = started.body['turn_id'] as string;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("1. another member's turn is not found: complete, artifacts", () => {
  it.each(['bob', 'carol', 'stranger', 'admin'] as const)("%s cannot complete alice's turn nor read it: 404 exactly as a missing turn, nothing appended", async (who) => {
    const missing = await call(who, 'POST', '/v1/turns/t-nothere-0/complete', { answer: 'x' });
    const hidden = await call(who, 'POST', `/v1/turns/${turn}/complete`, { answer: `${who} was here` });
    expect(hidden.status).toBe(404);
    expect(errorOf(hidden)).toEqual({ ...errorOf(missing), message: (errorOf(missing).message ?? '').replace('t-nothere-0', turn) });
    const artifacts = await call(who, 'GET', `/v1/artifacts/${turn}`);
    expect(artifacts.status).toBe(404);
    expect(errorOf(artifacts).code).toBe('KIOKU_NOT_FOUND');
    expect((await eventsOf('alice', turn)).some((e) => e.type === 'turn.completed')).toBe(false);
    const replayed = await call(who, 'POST', '/v1/replay', {});
    expect(replayed.status).toBe(200);
    expect(JSON.stringify(replayed.body)).not.toContain(turn);
  });

  it('alice completes her own turn', async () => {
    expect((await call('alice', 'POST', `/v1/turns/${turn}/complete`, { answer: 'in March' })).status).toBe(200);
    const completed = (await eventsOf('alice', turn)).filter((e) => e.type === 'turn.completed');
    expect(completed.map((e) => e.data['answer'])).toEqual(['in March']);
  });
});

describe("2. a session is its opener's: another member opening it or starting a turn in it gets 404", () => {
  it.each(['bob', 'carol', 'stranger'] as const)("%s: sessions/open and turns/start on s-alice answer as a missing session", async (who) => {
    const missing = await call(who, 'POST', '/v1/turns/start', { session_id: 's-nothere', query: 'billing cutover' });
    const start = await call(who, 'POST', '/v1/turns/start', { session_id: 's-alice', query: 'billing cutover' });
    expect(start.status).toBe(404);
    expect(errorOf(start)).toEqual({ ...errorOf(missing), message: (errorOf(missing).message ?? '').replace('s-nothere', 's-alice') });
    const open = await call(who, 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-alice' });
    expect(open.status).toBe(404);
    expect(errorOf(open)).toEqual(errorOf(start));
  });

  it("alice purges her session (no other member's item got into it)", async () => {
    const purge = await call('alice', 'POST', '/v1/purge', { scope: 'session', id: 's-alice' });
    expect(purge.status).toBe(200);
  });

  it('the stranger opens and uses its own session; a member may not touch it', async () => {
    expect((await call('stranger', 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-str' })).status).toBe(200);
    const t = await call('stranger', 'POST', '/v1/turns/start', { session_id: 's-str', query: 'billing' });
    expect(t.status).toBe(200);
    expect((await call('bob', 'POST', `/v1/turns/${t.body['turn_id'] as string}/complete`, { answer: 'bob' })).status).toBe(404);
    expect((await call('bob', 'POST', '/v1/turns/start', { session_id: 's-str', query: 'billing' })).status).toBe(404);
    expect((await call('stranger', 'POST', `/v1/turns/${t.body['turn_id'] as string}/complete`, { answer: 'mine' })).status).toBe(200);
  });
});

describe('3. a hidden item and a missing one get the same 404', () => {
  const same = (hidden: Answer, missing: Answer, id: string) => {
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(errorOf(hidden)).toEqual({
      ...errorOf(missing),
      message: (errorOf(missing).message ?? '').replace('m-nothere', id),
      details: { ...errorOf(missing).details, id },
    });
  };
  it('forget, purge, set audience and forgetting a trace', async () => {
    const mem = { memories: [{ id: 'm-alice-2', kind: 'decision', text: 'The ledger freeze is on Friday.' }] };
    expect((await call('alice', 'POST', '/v1/memories', mem)).status).toBe(200);
    for (const [path, body] of [
      ['/v1/memories/ID/forget', {}],
      ['/v1/memories/ID/audience', { audience: { org: true } }],
    ] as const)
      same(await call('bob', 'POST', path.replace('ID', 'm-alice-2'), body), await call('bob', 'POST', path.replace('ID', 'm-nothere'), body), 'm-alice-2');
    same(await call('bob', 'POST', '/v1/purge', { scope: 'memory', id: 'm-alice-2' }), await call('bob', 'POST', '/v1/purge', { scope: 'memory', id: 'm-nothere' }), 'm-alice-2');
    expect((await call('alice', 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-alice2' })).status).toBe(200);
    const t2 = await call('alice', 'POST', '/v1/turns/start', { session_id: 's-alice2', query: 'ledger freeze' });
    const traceKey = (id: string) => encodeURIComponent(`ev1:team:trace:${id}`);
    const id = t2.body['turn_id'] as string;
    const hidden = await call('bob', 'POST', `/v1/memories/${traceKey(id)}/forget`, {});
    const missing = await call('bob', 'POST', `/v1/memories/${traceKey('t-nothere')}/forget`, {});
    expect(hidden.status).toBe(404);
    expect(errorOf(hidden)).toEqual({ ...errorOf(missing), message: (errorOf(missing).message ?? '').replace('t-nothere', id), details: { ...errorOf(missing).details, id } });
  });
});

describe('4. a token acting as no member may not write in an org', () => {
  it('its memory, episode and asset writes are refused (403, map the token to a member), nothing written', async () => {
    const w = await call('stranger', 'POST', '/v1/memories', { memories: [{ id: 'm-str-1', kind: 'fact', text: 'The stranger note about billing.' }] });
    expect(w.status).toBe(403);
    expect(errorOf(w).code).toBe('KIOKU_FORBIDDEN');
    expect(errorOf(w).message).toContain('map this token to a member');
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent('ev1:team:memory:m-str-1')}`)).status).toBe(404);
    const asset = await call('stranger', 'POST', '/v1/assets', { id: 'str-asset', content: 'x', name: 'x.txt', description: 'the stranger asset' });
    expect(asset.status).toBe(403);
    expect(errorOf(asset).code).toBe('KIOKU_FORBIDDEN');
  });
});

describe('5. importing items follows the same write rules as writing memories (review of session 4)', () => {
  const headOf = async () => ((await call('admin', 'GET', '/v1/log/stats')).body['head'] as { seq?: number } | undefined)?.seq;

  it('a token acting as no member may not import memories: 403, nothing written', async () => {
    const before = await headOf();
    const r = await call('stranger', 'POST', '/v1/import/items', { items: [{ type: 'memory', id: 'm-str-import', kind: 'fact', text: 'The stranger imported note.' }] });
    expect(r.status).toBe(403);
    expect(errorOf(r).code).toBe('KIOKU_FORBIDDEN');
    expect(await headOf()).toBe(before);
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent('ev1:team:memory:m-str-import')}`)).status).toBe(404);
  });

  it("a member may not import a memory as another member's, nor widen it past its subtree: refused, nothing written", async () => {
    const before = await headOf();
    const asAlice = await call('bob', 'POST', '/v1/import/items', { items: [{ type: 'memory', id: 'm-bob-as-alice', kind: 'fact', text: 'Bob writes as alice.', owner: 'alice' }] });
    expect(asAlice.status).toBeGreaterThanOrEqual(400);
    expect(asAlice.status).toBeLessThan(500);
    const wide = await call('bob', 'POST', '/v1/import/items', { items: [{ type: 'memory', id: 'm-bob-eng', kind: 'fact', text: 'Bob shares with eng.', audience: { spaces: ['eng'] } }] });
    expect(errorOf(wide).code).toBe('KIOKU_AUDIENCE_REFUSED');
    expect(await headOf()).toBe(before);
  });

  it("a member's own import is owned by that member and private by default", async () => {
    const r = await call('bob', 'POST', '/v1/import/items', { items: [{ type: 'memory', id: 'm-bob-import', kind: 'fact', text: 'Bob imported his own note.' }] });
    expect(r.status).toBe(200);
    expect((await call('bob', 'GET', `/v1/evidence/${encodeURIComponent('ev1:team:memory:m-bob-import')}`)).body).toMatchObject({ owner: 'bob' });
    expect((await call('alice', 'GET', `/v1/evidence/${encodeURIComponent('ev1:team:memory:m-bob-import')}`)).status).toBe(404);
  });
});

describe("6. recall with another member's session id lends no dialogue (review of session 4)", () => {
  it("bob's recall naming alice's session gets none of her turns as dialogue; alice's own does", async () => {
    expect((await call('alice', 'POST', '/v1/sessions/open', { agent: 'attack', session_id: 's-alice-dialogue' })).status).toBe(200);
    const started = await call('alice', 'POST', '/v1/turns/start', { session_id: 's-alice-dialogue', query: 'who approves the zanzibar vendor contract renewal?' });
    expect(started.status).toBe(200);
    const done = await call('alice', 'POST', `/v1/turns/${started.body['turn_id'] as string}/complete`, { answer: 'The zanzibar renewal is approved by finance.' });
    expect(done.status).toBe(200);
    const queriesOf = (r: Answer) => JSON.stringify(r.body['queries'] ?? []);
    const own = await call('alice', 'POST', '/v1/recall', { query: 'and when is it due?', session_id: 's-alice-dialogue' });
    expect(own.status).toBe(200);
    expect(queriesOf(own)).toContain('zanzibar'); // the dialogue reaches the holder's queries: the check below can fail
    for (const who of ['bob', 'stranger'] as const) {
      const other = await call(who, 'POST', '/v1/recall', { query: 'and when is it due?', session_id: 's-alice-dialogue' });
      expect(other.status).toBe(200);
      expect(queriesOf(other)).not.toContain('zanzibar');
    }
  });
});
