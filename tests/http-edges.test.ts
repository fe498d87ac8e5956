// What users hit at the edges of the HTTP API: every refusal in the one error shape
// (the framework's own included), a 413 that reaches a client still uploading, and input
// handled the same way everywhere — each refused with a clear 400 that changes nothing.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingDepth } from '../src/server/app.js';
import { portFromEnv } from '../src/server/serve.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

const head = (): number => s.state.store!.log.head().seq;
const shaped = (body: Record<string, unknown>): void => {
  const e = body['error'] as { code?: unknown; message?: unknown };
  expect(typeof e?.code).toBe('string');
  expect(String(e.code)).toMatch(/^KIOKU_/);
  expect(typeof e.message).toBe('string');
};
const raw = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${s.url}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the framework’s own refusals in the one error shape', () => {
  it('answers an over-long path segment with 414 KIOKU_URI_TOO_LONG', async () => {
    const r = await raw(`/v1/evidence/${'x'.repeat(9_000)}`);
    expect(r.status).toBe(414);
    expect(r.body).toMatchObject({ error: { code: 'KIOKU_URI_TOO_LONG' } });
  });

  it('answers a broken percent-encoding with 400 naming the URL', async () => {
    const r = await raw('/v1/evidence/%E0%A4%A');
    expect(r).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID', details: { field: '(url)' } } } });
  });

  it('answers an unknown route with 404 in the same shape', async () => {
    const r = await raw('/v1/nothing-here');
    expect(r.status).toBe(404);
    shaped(r.body);
  });

  it('answers 503 KIOKU_SHUTTING_DOWN while stopping', async () => {
    s.state.closing = true;
    try {
      const r = await raw('/v1/recall', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' });
      expect(r).toMatchObject({ status: 503, body: { error: { code: 'KIOKU_SHUTTING_DOWN' } } });
    } finally {
      s.state.closing = false;
    }
  });

  it('lets a 413 reach a Node client that is still uploading, every time', async () => {
    const body = Buffer.alloc(5_000_000, 'x');
    const u = new URL(`${s.url}/v1/memories`);
    for (let i = 0; i < 4; i++) {
      const answer = await new Promise<string>((done) => {
        const r = request(
          { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
          (res) => {
            let t = '';
            res.on('data', (d: Buffer) => (t += d.toString()));
            res.on('end', () => done(`${res.statusCode} ${t}`));
          },
        );
        r.on('error', (e) => done(`ERR ${e.message}`));
        r.end(body);
      });
      expect(answer).toMatch(/^413 \{"error":\{"code":"KIOKU_BODY_TOO_LARGE"/);
    }
  });
});

describe('input handled the same way everywhere', () => {
  const post = (path: string, body: string, type = 'application/json') => raw(path, { method: 'POST', headers: { 'content-type': type }, body });

  it.each([
    ['null', 'null', /not null/],
    ['an array', '[{"kind":"fact","text":"x"}]', /not an array/],
    ['a string', '"hello"', /not string/],
  ])('refuses %s as a body, and appends nothing', async (_what, body, message) => {
    const before = head();
    for (const path of ['/v1/memories', '/v1/memories/some-id/forget', '/v1/recall']) {
      const r = await post(path, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: '(body)' } } });
      expect(String((r.body['error'] as { message: string }).message)).toMatch(message);
    }
    expect(head()).toBe(before);
  });

  it('refuses an empty body where one is needed, and a namespace that is not a string, naming each', async () => {
    const before = head();
    expect(await raw('/v1/memories', { method: 'POST' })).toMatchObject({
      status: 400,
      body: { error: { code: 'KIOKU_INPUT_INVALID', details: { field: '(body)' } } },
    });
    expect(await post('/v1/memories', JSON.stringify({ namespace: 5, memories: [{ kind: 'fact', text: 'x' }] }))).toMatchObject({
      status: 400,
      body: { error: { details: { field: 'namespace' } } },
    });
    expect(head()).toBe(before);
  });

  it('lets the anonymous user choose any namespace, defaulting to private', async () => {
    const other = await post('/v1/sessions/open', JSON.stringify({ agent: 'edges', namespace: 'team-b' }));
    expect(other).toMatchObject({ status: 200, body: { namespace: 'team-b' } });
    expect(await post('/v1/sessions/open', JSON.stringify({ agent: 'edges' }))).toMatchObject({ status: 200, body: { namespace: 'private' } });
  });

  it('names a wrong content type as such', async () => {
    const r = await post('/v1/memories', '{"memories":[{"kind":"fact","text":"x"}]}', 'text/plain');
    expect(r).toMatchObject({ status: 400, body: { error: { details: { field: '(content-type)' } } } });
  });

  it('limits nesting depth with a clear error', async () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[[{"}]}')).toBe(3);
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const r = await post('/v1/recall', deep);
    expect(r.status).toBe(400);
    expect(String((r.body['error'] as { message: string }).message)).toContain(`at most ${MAX_JSON_DEPTH}`);
  });

  it('names the namespace field as the client wrote it', async () => {
    const r = await post('/v1/memories', JSON.stringify({ namespace: 'Not OK', memories: [{ kind: 'fact', text: 'x' }] }));
    expect(r).toMatchObject({ status: 400, body: { error: { details: { field: 'namespace' } } } });
    // and quotes what was sent, cut to 80 characters
    const long = `Bad ${'n'.repeat(120)}`;
    const cut = await post('/v1/memories', JSON.stringify({ namespace: long, memories: [{ kind: 'fact', text: 'x' }] }));
    expect(String((cut.body['error'] as { message: string }).message)).toContain(`(got "${long.slice(0, 80)}")`);
  });

  it.each([
    ['/v1/sessions/open', { agent: '   ' }, 'agent'],
    ['/v1/sessions/open', { agent: 'a', session_id: 'a\u0000b' }, 'session_id'],
    ['/v1/recall', { query: '' }, 'query'],
    ['/v1/recall', { query: '   ' }, 'query'],
  ])('refuses a blank or NUL-bearing value at %s (%j)', async (path, body, field) => {
    const before = head();
    const r = await post(path, JSON.stringify(body));
    expect(r).toMatchObject({ status: 400, body: { error: { details: { field } } } });
    expect(head()).toBe(before);
  });

  it('refuses an empty answer unless the turn carries tool data', async () => {
    const { session_id } = (await s.call('POST', '/v1/sessions/open', { agent: 'edges' })).body as { session_id: string };
    const t = (await s.call('POST', '/v1/turns/start', { session_id, query: 'what is the staging database?' })).body as { turn_id: string };
    const before = head();
    expect((await s.call('POST', `/v1/turns/${t.turn_id}/complete`, { answer: '  ' })).body).toMatchObject({ error: { details: { field: 'answer' } } });
    expect(head()).toBe(before);
    expect((await s.call('POST', `/v1/turns/${t.turn_id}/complete`, { answer: '', tool_data: { ran: 'ls' } })).status).toBe(200);
  });

  it('treats a malformed KIOKU_PORT as a usage error naming the variable', () => {
    expect(portFromEnv(undefined)).toBe(18972);
    expect(portFromEnv('0')).toBe(0);
    expect(portFromEnv('8080')).toBe(8080);
    for (const bad of ['abc', '-1', '70000', '80.5', '8080x']) expect(() => portFromEnv(bad)).toThrow(/KIOKU_PORT/);
  });
});
