// The HTTP service on a real loopback port: the turn lifecycle, the wire contract,
// the auth matrix, limits, and the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuth, isLoopback, startServer, tokenDigest } from '../src/server/index.js';
import { redactQuery } from '../src/server/app.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { tempDir } from './helpers.js';

describe('without tokens (anonymous, loopback)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.stop());

  it('reports health openly, auth not required', async () => {
    const r = await s.call('GET', '/v1/health');
    expect(r).toMatchObject({ status: 200, body: { ok: true, ready: true, auth_required: false } });
    expect(describeAuth(s.auth)).toBe('auth: off (loopback, anonymous)');
  });

  it('never logs a query string value', () => {
    expect(redactQuery('/v1/recall?access=abc&x=1')).toBe('/v1/recall?access=[redacted]&x=[redacted]');
    expect(redactQuery('/v1/health')).toBe('/v1/health');
  });

  it('runs a whole turn: open, start (one recall), complete (idempotent, 409 on a different body)', async () => {
    expect(
      (await s.call('POST', '/v1/memories', { memories: [{ id: 'rb', kind: 'procedure', text: 'Roll back with scripts/rollback.sh and the previous tag.' }] }))
        .body,
    ).toEqual({ ids: ['rb'], written: ['rb'], supersede_candidates: {} });
    const open = await s.call('POST', '/v1/sessions/open', { agent: 'test' });
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ session_id: expect.any(String), namespace: 'private' });
    const start = await s.call('POST', '/v1/turns/start', { session_id: open.body['session_id'], query: 'how do I roll back the release?' });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ turn_id: expect.any(String), retrieval_mode: expect.any(String), judge: { status: 'complete' }, degraded: false });
    const records = start.body['records'] as { evidence_key: string; id: string }[];
    expect(records[0]).toMatchObject({ id: 'rb', evidence_key: 'ev1:private:memory:rb' });
    for (const k of ['records', 'delivery', 'retrieval_mode', 'judge', 'backends', 'filtered_counts', 'warnings', 'options', 'degraded'])
      expect(start.body).toHaveProperty(k);
    const turn = start.body['turn_id'] as string;
    const done = await s.call('POST', `/v1/turns/${turn}/complete`, { answer: 'Run scripts/rollback.sh.' });
    expect(done.body).toMatchObject({ turn_id: turn, delivery_outcomes: expect.any(Array) });
    expect((await s.call('POST', `/v1/turns/${turn}/complete`, { answer: 'Run scripts/rollback.sh.' })).body).toEqual(done.body);
    expect((await s.call('POST', `/v1/turns/${turn}/complete`, { answer: 'different' })).status).toBe(409);
    expect((await s.call('POST', '/v1/turns/nope/complete', { answer: 'x' })).status).toBe(404);
    const artifact = await s.call('GET', `/v1/artifacts/${turn}`);
    expect((artifact.body['events'] as { type: string }[]).map((e) => e.type)).toEqual(
      expect.arrayContaining(['turn.started', 'recall.performed', 'turn.completed']),
    );
    // stored in columns, shown one object per candidate (flags as words, fingerprints as hex)
    const performed = (artifact.body['events'] as { type: string; data: { candidates: { evidence_key: string; flags: string[] }[] } }[]).find(
      (e) => e.type === 'recall.performed',
    );
    expect(performed?.data.candidates[0]).toMatchObject({ evidence_key: expect.stringMatching(/^ev1:private:/), flags: expect.arrayContaining(['returned']) });
  });

  it('makes a memory write idempotent with a client id', async () => {
    const body = { memories: [{ id: 'idem', kind: 'fact', text: 'The staging DB is pg-2.' }] };
    await s.call('POST', '/v1/memories', body);
    const head = s.state.store!.log.head().seq;
    expect((await s.call('POST', '/v1/memories', body)).body).toMatchObject({ ids: ['idem'], written: [] });
    expect(s.state.store!.log.head().seq).toBe(head);
  });

  it('forgets and supersedes memories, and reads evidence, cards and wiki', async () => {
    await s.call('POST', '/v1/memories', {
      memories: [
        { id: 'old', kind: 'fact', text: 'Deploys on Fridays.' },
        { id: 'new', kind: 'fact', text: 'Deploys on Tuesdays.' },
      ],
    });
    expect((await s.call('POST', '/v1/memories/new/supersede', { superseded_ids: ['old'] })).status).toBe(200);
    expect((await s.call('GET', '/v1/evidence/ev1:private:memory:old')).body).toMatchObject({ status: 'superseded', superseded_by: 'new', head_id: 'new' });
    expect((await s.call('POST', '/v1/memories/new/forget', {})).body).toEqual({ id: 'new', forgotten: true });
    expect((await s.call('GET', '/v1/evidence/ev1:private:memory:missing')).status).toBe(404);
    expect((await s.call('GET', '/v1/cards/none')).status).toBe(404);
    await s.state.knowledge!.upsertCard({ id: 'deploy', markdown: '# Deploy\n## 1. Steps\nShip it.\n## 2. 與現有知識的關係\n- [[rollback]]' });
    expect((await s.call('GET', '/v1/cards/deploy')).body).toMatchObject({
      id: 'deploy',
      title: 'Deploy',
      sections: [{ section: '1' }, { section: '2', meta: true }],
    });
    expect((await s.call('GET', '/v1/cards/deploy/relations')).body).toMatchObject({ relations: [{ id: 'rollback', exists: false }] });
    await s.state.knowledge!.upsertWiki({ id: 'ops', markdown: '## Rollback\nUse the script.' });
    expect((await s.call('GET', '/v1/wiki/topics/ops')).body).toMatchObject({ sections: [{ evidence_key: 'ev1:private:wiki:ops#rollback' }] });
    expect((await s.call('GET', '/v1/sources/ops')).body).toMatchObject({ layer: 'wiki' });
  });

  it('serves recall, context, read-only candidates, cold, ingest and pipeline routes', async () => {
    const recall = await s.call('POST', '/v1/recall', { query: 'roll back', limit: 5, options: { wiki: false } });
    expect(recall.body).toMatchObject({ options: { wiki: false, cards: true } });
    expect((await s.call('POST', '/v1/context', { query: 'roll back' })).body).toHaveProperty('context');
    const head = s.state.store!.log.head().seq;
    const candidates = await s.call('POST', '/v1/candidates/query', { query: 'roll back' });
    expect(candidates.body).toMatchObject({ judge: { status: 'disabled' }, delivery: [] });
    expect(s.state.store!.log.head().seq).toBe(head);
    expect((await s.call('GET', '/v1/knowledge/cold?min_considered=1')).body).toMatchObject({ min_considered: 1, items: expect.any(Array) });
    expect((await s.call('GET', '/v1/knowledge/cold?min_considered=x')).status).toBe(400);
    expect((await s.call('GET', '/v1/ingest/status')).body).toMatchObject({ embedder: 'hash-ngram-32', items: { active: expect.any(Number) } });
    expect((await s.call('POST', '/v1/pipeline/jobs/events', { job_id: 'j1', stage: 'distill', status: 'running' })).status).toBe(200);
    expect((await s.call('POST', '/v1/pipeline/jobs/events', { job_id: 'j1', stage: 'distill', status: 'exploded' })).status).toBe(400);
    expect((await s.call('GET', '/v1/pipeline/jobs?stage=distill')).body).toMatchObject({ jobs: [{ job_id: 'j1', status: 'running' }] });
    // a POST names its namespace in the body: ?namespace= is refused, never silently ignored
    const q = await s.call('POST', '/v1/recall?namespace=other', { query: 'anything' });
    expect(q.status).toBe(400);
    expect(q.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'namespace' } } });
    // a limit that is not a whole number is refused, never handed on as NaN (found by the outside attack)
    // and one outside 1–100, as the MCP tool refuses it (defect: -5 and 1e9 were answered as 1 and 100)
    for (const limit of ['abc', '1.5', '-5', '0', '', '1e9']) {
      const r = await s.call('GET', `/v1/evidence/ev1:private:memory:nothing/related?limit=${limit}`);
      expect(r.status, limit).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'limit' } } });
    }
    // a filter given twice is refused, never dropped (a dropped filter would answer every job)
    for (const q of ['stage=distill&stage=x', 'status=running&status=queued']) {
      const r = await s.call('GET', `/v1/pipeline/jobs?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: q.split('=')[0] } } });
    }
    expect((await s.call('GET', '/v1/pipeline/snapshot?days=7')).body).toMatchObject({ days: 7, by_stage: { distill: { running: 1 } } });
  });

  it('answers schema violations with 400 naming the field, unknown routes with 404, huge bodies with 413', async () => {
    const r = await s.call('POST', '/v1/recall', { query: 'x', limit: 99 });
    expect(r).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'limit' } } } });
    expect((await s.call('POST', '/v1/recall', { query: 'x', conversation: Array.from({ length: 9 }, () => ({ role: 'user', content: 'hi' })) })).status).toBe(
      400,
    );
    expect((await s.call('GET', '/v1/nothing')).status).toBe(404);
    const big = await s.call('POST', '/v1/memories', { memories: [{ kind: 'fact', text: 'x'.repeat(3 * 1024 * 1024) }] });
    expect(big).toMatchObject({ status: 413, body: { error: { code: 'KIOKU_BODY_TOO_LARGE' } } });
  });

  it('publishes an OpenAPI document', async () => {
    const doc = await s.call('GET', '/docs/json');
    expect(doc.body['openapi']).toMatch(/^3\./);
    expect(Object.keys(doc.body['paths'] as object)).toEqual(expect.arrayContaining(['/v1/turns/start', '/v1/memories', '/v1/recall']));
  });
});

describe('with tokens', () => {
  const write = 'w'.repeat(20);
  const read = 'r'.repeat(20);
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      tokens: {
        tokens: [
          { name: 'writer', token_sha256: tokenDigest(write), namespace: 'team', scopes: ['memory:read', 'memory:write'] },
          { name: 'reader', token: read, namespace: 'team', scopes: ['memory:read'] },
        ],
      },
      rateLimitPerMinute: 1_000,
    });
  });
  afterAll(async () => s.stop());

  it('keeps health open and says auth is required, showing anonymous callers liveness and readiness only, and a namespaced token its own counts', async () => {
    const open = (await s.call('GET', '/v1/health')).body;
    expect(open).toEqual({ ok: true, ready: true, auth_required: true });
    // the rule: the shared log's head and projection positions move with every namespace's writes,
    // so only the anonymous single user or a service:read token sees them (tests/namespace-oracles.test.ts)
    const mine = (await s.call('GET', '/v1/health', undefined, read)).body;
    expect(mine).toMatchObject({ ok: true, namespace: 'team', items: expect.any(Object), events: expect.any(Number), stale: false });
    for (const global of ['head', 'projections', 'projection_lag', 'progress']) expect(mine).not.toHaveProperty(global);
  });

  it('shows a namespaced token its own namespace in the ingest status, never the store’s', async () => {
    await s.state.knowledge!.writeMemories({ ns: 'elsewhere', memories: [{ kind: 'fact', text: 'another namespace holds this' }] });
    const st = (await s.call('GET', '/v1/ingest/status', undefined, read)).body as Record<string, unknown>;
    expect(st['namespace']).toBe('team');
    expect(st).not.toHaveProperty('head');
    expect(st).not.toHaveProperty('projections');
    const all = s.state.store!.projections.views.records.counts();
    const team = s.state.store!.projections.views.records.counts('team');
    expect(st['items']).toEqual(team);
    expect(all.total).toBeGreaterThan(team.total);
  });

  it('refuses anonymous requests and unknown tokens with 401', async () => {
    expect((await s.call('POST', '/v1/recall', { query: 'x' })).status).toBe(401);
    expect((await s.call('POST', '/v1/recall', { query: 'x' }, 'x'.repeat(20))).status).toBe(401);
  });

  it('accepts the token only under the Bearer scheme, in the Authorization header', async () => {
    const raw = async (authorization: string) =>
      (await fetch(`${s.url}/v1/recall`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: '{"query":"x"}' })).status;
    expect(await raw(`Bearer ${read}`)).toBe(200);
    expect(await raw(`bearer ${read}`)).toBe(200); // the scheme name is case-insensitive (RFC 9110)
    for (const wrong of [`Basic ${read}`, `Token ${read}`, read, `Bearer`, `Bearer ${read} extra`, `Bearer${read}`]) expect(await raw(wrong)).toBe(401);
  });

  it('rejects a token in the query string, under any parameter name', async () => {
    expect((await s.call('POST', `/v1/recall?token=${write}`, { query: 'x' })).status).toBe(401);
    expect((await s.call('POST', `/v1/recall?auth=${write}`, { query: 'x' })).status).toBe(401);
    expect((await s.call('POST', `/v1/recall?q=${read}`, { query: 'x' }, read)).status).toBe(401);
    // an ordinary parameter is fine
    expect((await s.call('GET', '/v1/ingest/status?namespace=team', undefined, read)).status).toBe(200);
  });

  it('says in its start-up account that auth is on, and how many tokens', () => {
    expect(describeAuth(s.auth)).toMatch(/^auth: on \(2 tokens, /);
  });

  it('lets a read token read but not write (403)', async () => {
    expect((await s.call('POST', '/v1/recall', { query: 'x' }, read)).status).toBe(200);
    expect((await s.call('POST', '/v1/memories', { memories: [{ kind: 'fact', text: 'x' }] }, read)).body).toMatchObject({
      error: { code: 'KIOKU_FORBIDDEN', details: { scope: 'memory:write' } },
    });
    expect((await s.call('POST', '/v1/sessions/open', { agent: 'a' }, read)).status).toBe(403);
  });

  it('lets a write token write in its namespace, and refuses another namespace with 403 (never a silent switch)', async () => {
    const ok = await s.call('POST', '/v1/memories', { memories: [{ id: 'tm', kind: 'fact', text: 'team fact' }] }, write);
    expect(ok.status).toBe(200);
    expect(s.state.store!.projections.views.records.get('ev1:team:memory:tm')).toBeDefined();
    expect((await s.call('POST', '/v1/memories', { memories: [{ kind: 'fact', text: 'x' }], namespace: 'private' }, write)).body).toMatchObject({
      error: { code: 'KIOKU_FORBIDDEN', details: { field: 'namespace' } },
    });
    expect((await s.call('POST', '/v1/recall', { query: 'team', namespace: 'private' }, read)).status).toBe(403);
    expect((await s.call('POST', '/v1/sessions/open', { agent: 'a', namespace: 'team' }, write)).body).toMatchObject({ namespace: 'team' });
  });

  it("refuses lookups in another namespace, whether by evidence key or by ?namespace=, and records the token's name as the actor", async () => {
    await s.call('POST', '/v1/memories', { memories: [{ id: 'tm2', kind: 'fact', text: 'team fact two' }] }, write);
    expect((await s.call('GET', '/v1/evidence/ev1:team:memory:tm2', undefined, read)).status).toBe(200);
    expect((await s.call('GET', '/v1/evidence/ev1:private:memory:tm2', undefined, read)).body).toMatchObject({
      error: { code: 'KIOKU_FORBIDDEN', details: { field: 'namespace' } },
    });
    expect((await s.call('GET', '/v1/knowledge/cold?namespace=private', undefined, read)).status).toBe(403);
    expect((await s.call('GET', '/v1/stats', undefined, read)).body).toMatchObject({ namespace: 'team' });
    await s.call('POST', '/v1/recall', { query: 'team fact' }, read);
    let actor = '';
    for await (const r of s.state.store!.log.read({ types: ['recall.performed'] })) actor = r.actor;
    expect(actor).toMatch(/^http:/);
  });
});

describe('start-up refusals', () => {
  it.each([
    ['a token shorter than 16 characters', { tokens: [{ name: 'x', token: 'short', namespace: 'private', scopes: ['memory:read'] }] }, /at least 16/],
    ['broken JSON', '{"tokens": [', /not valid JSON/],
    ['an unknown scope', { tokens: [{ name: 'x', token: 'y'.repeat(16), namespace: 'private', scopes: ['admin'] }] }, /scopes/],
    [
      'the same token twice (read-only would become read-write in another namespace)',
      {
        tokens: [
          { name: 'ro', token: 'd'.repeat(20), namespace: 'team', scopes: ['memory:read'] },
          { name: 'rw', token_sha256: tokenDigest('d'.repeat(20)), namespace: 'private', scopes: ['memory:read', 'memory:write'] },
        ],
      },
      /"ro" and "rw" are the same token/,
    ],
    [
      'one name for two tokens',
      {
        tokens: [
          { name: 'x', token: 'a'.repeat(20), namespace: 'team', scopes: ['memory:read'] },
          { name: 'x', token: 'b'.repeat(20), namespace: 'team', scopes: ['memory:read'] },
        ],
      },
      /"x" is used twice/,
    ],
    ['an empty token list (it would silently start anonymous)', { tokens: [] }, /empty/],
    ['a token with whitespace', { tokens: [{ name: 'x', token: ' '.repeat(16), namespace: 'private', scopes: ['memory:read'] }] }, /whitespace/],
  ])('refuses to start with %s in the auth file', async (_what, tokens, message) => {
    const dir = tempDir();
    try {
      await expect(startTestServer({ tokens, dir: dir.path })).rejects.toMatchObject({
        code: 'KIOKU_AUTH_FILE_INVALID',
        message: expect.stringMatching(message),
      });
    } finally {
      dir.cleanup();
    }
  });

  it('refuses a non-loopback address without KIOKU_ALLOW_NON_LOOPBACK=1 and tokens', async () => {
    const dir = tempDir();
    try {
      await expect(startServer({ data: dir.path, host: '0.0.0.0', port: 0, authFile: `${dir.path}/none.json` })).rejects.toMatchObject({
        code: 'KIOKU_BIND_REFUSED',
      });
      await expect(startServer({ data: dir.path, host: '0.0.0.0', port: 0, authFile: `${dir.path}/none.json`, allowNonLoopback: true })).rejects.toMatchObject({
        code: 'KIOKU_BIND_REFUSED',
      });
    } finally {
      dir.cleanup();
    }
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('10.0.0.5')).toBe(false);
  });

  it('limits each token’s request rate with 429 and retry-after', async () => {
    const token = 't'.repeat(16);
    const s = await startTestServer({ tokens: { tokens: [{ name: 'x', token, namespace: 'private', scopes: ['memory:read'] }] }, rateLimitPerMinute: 3 });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await s.call('POST', '/v1/recall', { query: 'x' }, token)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await s.stop();
    }
  });
});

describe('while the store is opening', () => {
  it('answers health with ready:false and every other route with 503', async () => {
    const { buildApp } = await import('../src/server/index.js');
    const app = await buildApp({
      auth: {
        required: false,
        file: '',
        tokens: 0,
        authenticate: () => ({ name: 'anonymous', namespace: 'private', scopes: new Set(['memory:read', 'memory:write'] as const), anonymous: true }),
      },
      state: { ready: false, startedAt: Date.now(), progress: { done: 10, total: 100 } },
    });
    try {
      const health = await app.inject({ method: 'GET', url: '/v1/health' });
      expect(health.json()).toMatchObject({ ready: false, progress: { done: 10, total: 100 } });
      const r = await app.inject({ method: 'POST', url: '/v1/recall', payload: { query: 'x' } });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ error: { code: 'KIOKU_NOT_READY' } });
    } finally {
      await app.close();
    }
  });
});
