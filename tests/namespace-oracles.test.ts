// Cross-namespace oracles (issue 29 item 10), through a real server on a loopback port with
// tokens for two namespaces. The rule: a request that names another namespace is refused (403)
// from the request alone, before anything is looked up; an id that exists only in another
// namespace is answered exactly as an id that exists nowhere (same status, code, message and
// details). Session ids are each namespace's own; a namespaced token sees its own counts, never
// the shared log's head.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loadAuth } from '../src/server/index.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const ALPHA = 'alpha-token-0123456789';
const BETA = 'beta-token-0123456789';
const OPS = 'ops-token-0123456789';
const SECRET = 'orchid launch code zebra';

let s: TestServer;
const alpha = { turn: '', session: 'standup-42', memory: 'launch', card: 'alpha-card', wiki: 'alpha-wiki' };

beforeAll(async () => {
  s = await startTestServer({
    tokens: {
      tokens: [
        { name: 'alpha', token: ALPHA, namespace: 'alpha', scopes: ['memory:read', 'memory:write'] },
        { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read', 'memory:write'] },
        { name: 'ops', token: OPS, namespace: 'ops', scopes: ['memory:read', 'service:read'] },
      ],
    },
    rateLimitPerMinute: 10_000,
  });
  const ok = async (method: string, path: string, body: unknown, token: string) => {
    const r = await s.call(method, path, body, token);
    expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  };
  await ok('POST', '/v1/memories', { memories: [{ id: alpha.memory, kind: 'fact', text: `The ${SECRET} is kept in the safe.` }] }, ALPHA);
  await ok('POST', '/v1/memories', { memories: [{ id: 'beta-own', kind: 'fact', text: 'Beta deploys on Tuesdays.' }] }, BETA);
  await ok('POST', '/v1/sessions/open', { agent: 'alpha-agent', session_id: alpha.session }, ALPHA);
  const turn = await ok('POST', '/v1/turns/start', { session_id: alpha.session, query: `where is the ${SECRET}?` }, ALPHA);
  alpha.turn = turn['turn_id'] as string;
  await s.state.knowledge!.upsertCard({ ns: 'alpha', id: alpha.card, markdown: `# Alpha card\n## 1. Steps\nThe ${SECRET}.\n## 2. Relations\n- [[other]]` });
  await s.state.knowledge!.upsertWiki({ ns: 'alpha', id: alpha.wiki, markdown: `# Alpha wiki\n## Safe\nThe ${SECRET}.` });
  await ok('POST', '/v1/pipeline/jobs/events', { job_id: 'alpha-job', stage: 'alpha-stage', status: 'running' }, ALPHA);
}, 60_000);
afterAll(async () => s?.stop());

/** The answer with the probed id replaced, so the answers for two ids compare whole. */
const shape = (r: { status: number; body: Record<string, unknown> }, id: string) => ({
  status: r.status,
  body: JSON.parse(JSON.stringify(r.body).split(id).join('<id>')) as unknown,
});

describe('another namespace’s id answers as a missing one, on every route that looks one up', () => {
  // [what, request for an id] — each run by beta with alpha's id and with an id that exists nowhere
  const probes: [string, (id: () => string) => [string, string, unknown?]][] = [
    ['artifacts of a turn', (id) => ['GET', `/v1/artifacts/${id()}`]],
    ['completing a turn', (id) => ['POST', `/v1/turns/${id()}/complete`, { answer: 'mine now' }]],
    ['starting a turn in a session', (id) => ['POST', '/v1/turns/start', { session_id: id(), query: 'anything there?' }]],
    ['evidence by key in the caller’s namespace', (id) => ['GET', `/v1/evidence/ev1:beta:memory:${id()}`]],
    ['related by key', (id) => ['GET', `/v1/evidence/ev1:beta:memory:${id()}/related`]],
    ['forget', (id) => ['POST', `/v1/memories/${id()}/forget`, {}]],
    ['supersede (head)', (id) => ['POST', `/v1/memories/${id()}/supersede`, { superseded_ids: ['beta-own'] }]],
    ['supersede (superseded)', (id) => ['POST', '/v1/memories/beta-own/supersede', { superseded_ids: [id()] }]],
    ['set audience', (id) => ['POST', `/v1/memories/${id()}/audience`, { audience: [] }]],
    ['a card', (id) => ['GET', `/v1/cards/${id()}`]],
    ['a card’s relations', (id) => ['GET', `/v1/cards/${id()}/relations`]],
    ['a wiki topic', (id) => ['GET', `/v1/wiki/topics/${id()}`]],
    ['a source', (id) => ['GET', `/v1/sources/${id()}`]],
    ['items of a session', (id) => ['POST', '/v1/items/query', { session_id: id() }]],
    ['jobs of a stage', (id) => ['GET', `/v1/pipeline/jobs?stage=${id()}`]],
  ];
  const alphaIds: Record<string, () => string> = {
    'artifacts of a turn': () => alpha.turn,
    'completing a turn': () => alpha.turn,
    'starting a turn in a session': () => alpha.session,
    'a card': () => alpha.card,
    'a card’s relations': () => alpha.card,
    'a wiki topic': () => alpha.wiki,
    'a source': () => alpha.card,
    'items of a session': () => alpha.session,
    'jobs of a stage': () => 'alpha-stage',
  };

  it.each(probes)('%s', async (what, request) => {
    const theirs = alphaIds[what] ?? (() => alpha.memory);
    const [method, path, body] = request(theirs);
    const probe = await s.call(method, path, body, BETA);
    const missingId = `zz-${theirs()}`; // exists in no namespace
    const [m2, p2, b2] = request(() => missingId);
    const missing = await s.call(m2, p2, b2, BETA);
    expect(probe.status, JSON.stringify(probe.body)).not.toBe(403);
    expect(shape(probe, theirs()), what).toEqual(shape(missing, missingId));
    // and alpha itself still has it (the probe changed nothing)
    expect((await s.call('GET', `/v1/evidence/ev1:alpha:memory:${alpha.memory}`, undefined, ALPHA)).body).toMatchObject({ status: 'active' });
  });

  it('refuses a request that names another namespace with 403 whether or not the id exists there (decided from the request alone)', async () => {
    const named = async (id: string) => shape(await s.call('GET', `/v1/evidence/ev1:alpha:memory:${id}`, undefined, BETA), id);
    expect(await named(alpha.memory)).toEqual(await named('nothing-here'));
    expect((await named(alpha.memory)).status).toBe(403);
    const q = async (id: string) => shape(await s.call('GET', `/v1/cards/${id}?namespace=alpha`, undefined, BETA), id);
    expect(await q(alpha.card)).toEqual(await q('no-such-card'));
  });

  it('gives recall, context and candidates no count of what another namespace holds', async () => {
    for (const route of ['/v1/recall', '/v1/context', '/v1/candidates/query']) {
      const probe = (await s.call('POST', route, { query: SECRET }, BETA)).body;
      const nothing = (await s.call('POST', route, { query: 'quartz lantern mongoose' }, BETA)).body;
      const pick = (p: Record<string, unknown>) => ({ filtered: p['filtered_counts'], warnings: p['warnings'], records: p['records'], delivery: p['delivery'] });
      expect(pick(probe), route).toEqual(pick(nothing));
      expect(probe['filtered_counts'], route).toMatchObject({ total: 0 });
    }
    // the anonymous single user owns every namespace: without tokens the counts are still there (tests/recall-channels.test.ts)
  });

  it('gives beta the same scores whatever alpha writes (keyword statistics are each namespace’s own)', async () => {
    await s.call('POST', '/v1/memories', { memories: [{ id: 'beta-garden', kind: 'fact', text: 'Beta waters the orchid garden on Fridays.', terms: ['orchid'] }] }, BETA);
    const ask = async () => (await s.call('POST', '/v1/candidates/query', { query: 'orchid garden water' }, BETA)).body['records'];
    const before = await ask();
    expect(JSON.stringify(before)).toContain('beta-garden');
    const crowd = Array.from({ length: 30 }, (_, i) => ({ kind: 'fact', text: `Orchid ${i}: the garden orchid needs water.`, terms: ['orchid', 'garden'] }));
    expect((await s.call('POST', '/v1/memories', { memories: crowd }, ALPHA)).status).toBe(200);
    expect(await ask()).toEqual(before);
  });

  it('keeps the artifacts of a turn whole for its own namespace', async () => {
    const own = await s.call('GET', `/v1/artifacts/${alpha.turn}`, undefined, ALPHA);
    expect(own.body).toMatchObject({ trace_id: alpha.turn, namespace: 'alpha', session_id: alpha.session });
  });
});

describe('session ids are each namespace’s own', () => {
  it('lets two namespaces open and use the same session id independently, in either order', async () => {
    for (const [first, second, id] of [
      [ALPHA, BETA, 'shared-session'],
      [BETA, ALPHA, 'beta-first'],
    ] as const) {
      const a = await s.call('POST', '/v1/sessions/open', { agent: 'one', session_id: id }, first);
      const b = await s.call('POST', '/v1/sessions/open', { agent: 'two', session_id: id }, second);
      expect(a.body).toMatchObject({ session_id: id });
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      expect(b.body).toMatchObject({ session_id: id, namespace: second === BETA ? 'beta' : 'alpha' });
      const t1 = await s.call('POST', '/v1/turns/start', { session_id: id, query: 'first namespace asks' }, first);
      const t2 = await s.call('POST', '/v1/turns/start', { session_id: id, query: 'second namespace asks' }, second);
      expect([t1.status, t2.status]).toEqual([200, 200]);
      const art1 = (await s.call('GET', `/v1/artifacts/${String(t1.body['turn_id'])}`, undefined, first)).body;
      const art2 = (await s.call('GET', `/v1/artifacts/${String(t2.body['turn_id'])}`, undefined, second)).body;
      expect(art1).toMatchObject({ session_id: id, namespace: first === ALPHA ? 'alpha' : 'beta' });
      expect(art2).toMatchObject({ session_id: id, namespace: second === ALPHA ? 'alpha' : 'beta' });
      // each namespace's turn is its own: the other gets a 404, as for a turn that never was
      expect((await s.call('POST', `/v1/turns/${String(t1.body['turn_id'])}/complete`, { answer: 'x' }, second)).status).toBe(404);
      expect((await s.call('POST', `/v1/turns/${String(t1.body['turn_id'])}/complete`, { answer: 'x' }, first)).status).toBe(200);
    }
  });

  it('says "no session" for a session only another namespace opened, as for one nobody opened', async () => {
    const r = await s.call('POST', '/v1/turns/start', { session_id: alpha.session, query: 'hello there' }, BETA);
    expect(r.body).toEqual({ error: { code: 'KIOKU_NOT_FOUND', message: `no session ${alpha.session}; open one first`, details: { field: 'session_id' } } });
  });
});

describe('health and stats per token', () => {
  const withoutClock = (b: Record<string, unknown>) => ({ ...b, uptime_s: 0 });

  it('shows a namespaced token its own counts, unmoved by another namespace’s writes', async () => {
    const before = (await s.call('GET', '/v1/health', undefined, BETA)).body;
    expect(before).toMatchObject({ ok: true, ready: true, auth_required: true, namespace: 'beta', stale: false, store: { kind: 'leveldb', connected: true } });
    for (const global of ['head', 'projections', 'projection_lag', 'progress']) expect(before).not.toHaveProperty(global);
    const statsBefore = (await s.call('GET', '/v1/stats', undefined, BETA)).body;
    expect(statsBefore).not.toHaveProperty('head');
    expect(statsBefore).toMatchObject({ namespace: 'beta', events: expect.any(Number), items: { active: expect.any(Number) } });
    const opsBefore = (await s.call('GET', '/v1/health', undefined, OPS)).body as { head: { seq: number } };

    await s.call('POST', '/v1/memories', { memories: [1, 2, 3].map((i) => ({ kind: 'fact', text: `alpha fact ${i}` })) }, ALPHA);
    await s.call('POST', '/v1/recall', { query: 'alpha fact' }, ALPHA);

    expect(withoutClock((await s.call('GET', '/v1/health', undefined, BETA)).body)).toEqual(withoutClock(before));
    expect((await s.call('GET', '/v1/stats', undefined, BETA)).body).toEqual(statsBefore);
    // the operator's token (service:read) sees the whole service move
    const opsAfter = (await s.call('GET', '/v1/health', undefined, OPS)).body as { head: { seq: number }; projections: unknown[] };
    expect(opsAfter.head.seq).toBeGreaterThan(opsBefore.head.seq);
    expect(opsAfter.projections.length).toBeGreaterThan(0);
    expect((await s.call('GET', '/v1/stats', undefined, OPS)).body).toMatchObject({ namespace: 'ops', head: { seq: opsAfter.head.seq } });

    // beta's own writes move beta's counts
    await s.call('POST', '/v1/memories', { memories: [{ kind: 'fact', text: 'beta fact' }] }, BETA);
    const after = (await s.call('GET', '/v1/stats', undefined, BETA)).body as { events: number; items: { active: number } };
    expect(after.events).toBe((statsBefore['events'] as number) + 1);
    expect(after.items.active).toBe((statsBefore['items'] as { active: number }).active + 1);
  });

  it('keeps an unauthenticated probe to liveness and readiness', async () => {
    expect((await s.call('GET', '/v1/health')).body).toEqual({ ok: true, ready: true, auth_required: true });
    expect((await s.call('GET', '/v1/health', undefined, 'not-a-token-0123456789')).body).toEqual({ ok: true, ready: true, auth_required: true });
  });

  it('gives a namespaced token no log head in its ingest status or its replay report', async () => {
    const st = (await s.call('GET', '/v1/ingest/status', undefined, BETA)).body;
    expect(st).toMatchObject({ namespace: 'beta' });
    expect(st).not.toHaveProperty('head');
    expect((await s.call('POST', '/v1/replay', {}, BETA)).body).not.toHaveProperty('log_head');
    expect((await s.call('POST', '/v1/replay', {}, OPS)).body).toHaveProperty('log_head');
  });
});

describe('while the store is opening', () => {
  it('shows start-up progress (it counts the whole log) to the service’s viewers only', async () => {
    const file = join(s.dir, 'opening-auth.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read'] },
          { name: 'ops', token: OPS, namespace: 'ops', scopes: ['memory:read', 'service:read'] },
        ],
      }),
    );
    const app = await buildApp({ auth: loadAuth(file), state: { ready: false, startedAt: Date.now(), progress: { done: 10, total: 100 } } });
    try {
      const as = (token: string, method: 'GET' | 'POST', url: string) =>
        app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(method === 'POST' ? { payload: { query: 'x' } } : {}) });
      const beta = (await as(BETA, 'GET', '/v1/health')).json() as Record<string, unknown>;
      expect(beta).toMatchObject({ ready: false, namespace: 'beta' });
      expect(beta).not.toHaveProperty('progress');
      expect((await as(OPS, 'GET', '/v1/health')).json()).toMatchObject({ ready: false, progress: { done: 10, total: 100 } });
      const refused = await as(BETA, 'POST', '/v1/recall');
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toEqual({ error: { code: 'KIOKU_NOT_READY', message: 'the store is still opening; retry shortly', details: {} } });
      expect((await as(OPS, 'POST', '/v1/recall')).json()).toMatchObject({ error: { code: 'KIOKU_NOT_READY', details: { progress: { done: 10, total: 100 } } } });
    } finally {
      await app.close();
    }
  });
});
