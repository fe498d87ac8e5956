// The HTTP door's edge (src/server/edge.ts): per request the caller is resolved once and the body
// parsed once, by fastify's validator fed the facade method's own schema; the OpenAPI document
// shows those schemas; no route declares a field the facade does not know.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiCounters, inputSchemas, type MethodWithInput } from '../src/api/index.js';
import { join } from 'node:path';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { LocalJudge } from '../src/recall/index.js';
import { buildApp, loadAuth, startServer } from '../src/server/index.js';
import { jsonSchema } from '../src/server/openapi.js';
import { LIST_QUERY_FIELDS } from '../src/server/routes/items.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { tempDir } from './helpers.js';

describe('one resolution and one parse per request, over a real loopback port', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.stop());

  it('POST /v1/memories, /v1/recall and /v1/turns/start: exactly one each', async () => {
    const write = await apiCounters.during(() =>
      s.call('POST', '/v1/memories', { memories: [{ id: 'rb', kind: 'procedure', text: 'Roll back with scripts/rollback.sh.' }] }),
    );
    expect(write.result.status).toBe(200);
    expect(write.counts).toEqual({ parses: 1, resolutions: 1 });

    const recall = await apiCounters.during(() => s.call('POST', '/v1/recall', { query: 'how do I roll back?', namespace: 'private' }));
    expect(recall.result.status).toBe(200);
    expect(recall.counts).toEqual({ parses: 1, resolutions: 1 });

    const session = (await s.call('POST', '/v1/sessions/open', { agent: 'test' })).body['session_id'];
    const start = await apiCounters.during(() => s.call('POST', '/v1/turns/start', { session_id: session, query: 'how do I roll back the release?' }));
    expect(start.result.status).toBe(200);
    expect(start.result.body).toMatchObject({ turn_id: expect.any(String) });
    expect(start.counts).toEqual({ parses: 1, resolutions: 1 });
  });

  it('GET /v1/items: the query turned into the list input is parsed once, the caller resolved once', async () => {
    const list = await apiCounters.during(() => s.call('GET', '/v1/items?layer=memory&limit=5'));
    expect(list.result.status).toBe(200);
    expect(list.counts).toEqual({ parses: 1, resolutions: 1 });
  });

  it('a refused body is parsed once and named by the facade’s own label and field', async () => {
    const bad = await apiCounters.during(() => s.call('POST', '/v1/turns/start', { session_id: 's', query: 'q', colour: 'red' }));
    expect(bad.result).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'colour' } } } });
    expect((bad.result.body['error'] as { message: string }).message).toMatch(/^start turn: colour: /);
    expect(bad.counts).toEqual({ parses: 1, resolutions: 1 });
  });
});

describe('the scope is checked before the body is read', () => {
  let s: TestServer;
  const read = 'r'.repeat(20);
  beforeAll(async () => {
    s = await startTestServer({ tokens: { tokens: [{ name: 'reader', token: read, namespace: 'alpha', scopes: ['memory:read'] }] } });
  });
  afterAll(async () => s.stop());

  it('a token without memory:write gets 403 for a malformed body, never its shape; nothing parsed, nothing resolved', async () => {
    const r = await apiCounters.during(() => s.call('POST', '/v1/memories', { memories: 'not a list', colour: 'red' }, read));
    expect(r.result).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_FORBIDDEN', details: { scope: 'memory:write' } } } });
    expect(r.counts).toEqual({ parses: 0, resolutions: 0 });
  });
});

type Operation = { operationId?: string; requestBody?: { content: Record<string, { schema: JsonObject }> }; parameters?: { name: string; in: string }[] };
type JsonObject = { properties?: Record<string, unknown>; required?: string[] };

/** Fields a route declares that the facade method's input schema does not know. */
function unknownFields(declared: string[], facade: z.ZodType): string[] {
  const known = new Set(Object.keys((jsonSchema(facade) as JsonObject).properties ?? {}));
  return declared.filter((f) => !known.has(f));
}

describe('routes declare only what the facade knows, and OpenAPI shows it', () => {
  let operations: { path: string; method: string; op: Operation }[];
  beforeAll(async () => {
    const app = await buildApp({ auth: loadAuth('/nonexistent/auth.json'), state: { ready: false, startedAt: Date.now() } });
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, Operation>> };
    operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
    await app.close();
  });

  it('the check itself fails on a field the facade does not know', () => {
    expect(unknownFields(['query', 'namespace', 'colour'], inputSchemas.recall)).toEqual(['colour']);
  });

  it('every POST route with a body is a facade method’s input, field for field', () => {
    const posts = operations.filter((o) => o.method === 'post' && o.op.requestBody);
    expect(posts.length).toBeGreaterThanOrEqual(18);
    for (const { path, op } of posts) {
      if (path === '/v1/log/verify') continue; // verifyLog's option, declared beside its route
      expect(op.operationId, path).toBeDefined();
      expect(Object.keys(inputSchemas), path).toContain(op.operationId);
      const body = op.requestBody?.content['application/json']?.schema ?? {};
      const declared = Object.keys(body.properties ?? {});
      expect(declared.length, path).toBeGreaterThan(0);
      expect(unknownFields(declared, inputSchemas[op.operationId as MethodWithInput]), path).toEqual([]);
    }
  });

  it('GET /v1/items: each query parameter is a field of the list input (renamed ones as declared)', () => {
    const list = operations.find((o) => o.path === '/v1/items' && o.method === 'get');
    expect(list?.op.operationId).toBe('list');
    const names = (list?.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toContain('layer');
    const fields = names.map((n) => (LIST_QUERY_FIELDS as Record<string, string>)[n] ?? n);
    expect(unknownFields(fields, inputSchemas.list)).toEqual([]);
  });

  it('shows the request bodies of turns/start, recall and memories with their fields', () => {
    const body = (path: string) => operations.find((o) => o.path === path && o.method === 'post')?.op.requestBody?.content['application/json']?.schema;
    expect(Object.keys(body('/v1/turns/start')?.properties ?? {})).toEqual(expect.arrayContaining(['session_id', 'query', 'namespace']));
    expect(Object.keys(body('/v1/recall')?.properties ?? {})).toEqual(expect.arrayContaining(['query', 'namespace']));
    expect(body('/v1/memories')?.required).toContain('memories');
  });

  it('shows the response bodies of turns/start, recall and memories, field for field with the facade’s answers', () => {
    type WithResponses = Operation & { responses?: Record<string, { content?: Record<string, { schema: JsonObject }> }> };
    const answer = (path: string) =>
      Object.keys((operations.find((o) => o.path === path && o.method === 'post')?.op as WithResponses | undefined)?.responses?.['200']?.content?.['application/json']?.schema.properties ?? {});
    expect(answer('/v1/turns/start')).toEqual(expect.arrayContaining(['turn_id', 'records', 'delivery', 'retrieval_mode', 'judge', 'warnings', 'degraded']));
    expect(answer('/v1/recall')).toEqual(expect.arrayContaining(['recall_id', 'records', 'delivery']));
    expect(answer('/v1/memories')).toEqual(expect.arrayContaining(['ids', 'written', 'supersede_candidates']));
  });
});

describe('startServer serves a library opened through the one assembly path', () => {
  it('takes an opened Kioku (openKioku), answers through it, and closes it with the server', async () => {
    const dir = tempDir();
    try {
      const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge(), backgroundIndexing: false, actor: 'http' });
      const server = await startServer({ kioku, port: 0, authFile: join(dir.path, 'none.json') });
      await server.ready;
      expect(server.state.kioku).toBe(kioku);
      const res = await fetch(`${server.url}/v1/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ memories: [{ id: 'm1', kind: 'fact', text: 'Served from an opened library.' }] }),
      });
      expect(res.status).toBe(200);
      expect(kioku.log.head().seq).toBeGreaterThan(0);
      await server.close();
      // the store was closed with the server: a new one opens the same data dir (LevelDB's lock released) and sees the write
      const again = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), backgroundIndexing: false });
      expect((await again.evidence('ev1:private:memory:m1')).text).toBe('Served from an opened library.');
      await again.close();
    } finally {
      dir.cleanup();
    }
  });
});
