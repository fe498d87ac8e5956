// The web page's door (issue 36): its files are served without a build step under strict headers,
// and with tokens configured a sign-in turns a token into an HttpOnly, SameSite=Strict session
// cookie that acts exactly as the token on the /v1 routes (same 401/403), never without the CSRF
// header for a write. Real server on a loopback port, real fetches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UiSessions, SESSION_TTL_MS, cookieValue } from '../src/ui/sessions.js';
import { ANONYMOUS } from '../src/access.js';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const ALPHA = 'alpha-token-0123456789abcdef';
const BETA = 'beta-token-0123456789abcdefgh';

async function req(server: TestServer, method: string, path: string, init: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.cookie ? { cookie: init.cookie } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { raw: text };
  }
  return { status: res.status, headers: res.headers, body };
}

const code = (body: Record<string, unknown>) => (body['error'] as { code: string } | undefined)?.code;

describe('the page without tokens (loopback)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('opens at /ui with its modules, under a strict content security policy', async () => {
    const page = await fetch(`${server.url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('/ui/app.js');
    const app = await fetch(`${server.url}/ui/app.js`);
    expect(app.headers.get('content-type')).toMatch(/^text\/javascript/);
    const again = await fetch(`${server.url}/ui/app.js`, { headers: { 'if-none-match': app.headers.get('etag') as string } });
    expect(again.status).toBe(304);
  });

  it('serves only its own flat files: no path reaches the disk', async () => {
    for (const path of ['/ui/package.json', '/ui/..%2Fpackage.json', '/ui/sessions.ts', '/ui/static-files.ts'])
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
  });

  it('kioku ui prints the page URL when there is no browser, and says how to start a service when none runs', async () => {
    const found = await runCli(['ui', '--json'], { KIOKU_URL: server.url });
    expect(found.code).toBe(0);
    expect(found.json).toEqual({ running: true, url: `${server.url}/ui`, opened: false });
    const none = tempDir();
    try {
      const missing = await runCli(['ui', '--json', '--data', none.path]);
      expect(missing.code).toBe(1);
      expect(missing.json).toMatchObject({ running: false, hint: expect.stringContaining('kioku serve') });
    } finally {
      none.cleanup();
    }
  });

  it('says no sign-in is needed, and the API answers the anonymous owner', async () => {
    const who = await req(server, 'GET', '/ui/session');
    expect(who.body).toMatchObject({ auth_required: false, signed_in: true, anonymous: true });
    expect((await req(server, 'GET', '/v1/stats')).status).toBe(200);
  });
});

describe('the page with tokens', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      tokens: {
        tokens: [
          { name: 'alpha', token: ALPHA, namespace: 'alpha', scopes: ['memory:read', 'memory:write'] },
          { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read', 'memory:write'] },
        ],
      },
    });
  });
  afterAll(() => server.stop());

  async function signIn(token = ALPHA) {
    const res = await req(server, 'POST', '/ui/session', { body: { token } });
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { res, setCookie, cookie: setCookie.split(';')[0] as string, csrf: res.body['csrf'] as string };
  }

  it('serves the page itself without a token, but no API answer', async () => {
    expect((await fetch(`${server.url}/ui`)).status).toBe(200);
    expect((await req(server, 'GET', '/ui/session')).body).toEqual({ auth_required: true, signed_in: false });
    expect((await req(server, 'GET', '/v1/stats')).status).toBe(401);
  });

  it('refuses a wrong token and a token in the URL', async () => {
    const wrong = await req(server, 'POST', '/ui/session', { body: { token: 'not-a-token-of-the-auth-file' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await req(server, 'GET', `/ui?token=${ALPHA}`)).status).toBe(401);
    expect((await req(server, 'GET', `/ui/session?x=${ALPHA}`)).status).toBe(401);
  });

  it('signs in to an HttpOnly, SameSite=Strict cookie bound to the token namespace; the token is never echoed', async () => {
    const { res, setCookie } = await signIn();
    expect(res.status).toBe(200);
    expect(setCookie).toMatch(/^kioku_ui=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(res.body).toMatchObject({ auth_required: true, signed_in: true, name: 'alpha', namespace: 'alpha', scopes: ['memory:read', 'memory:write'] });
    expect(JSON.stringify(res.body)).not.toContain(ALPHA);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('acts as the token: its namespace answers, another is refused 403 as the API refuses it', async () => {
    const { cookie } = await signIn();
    const own = await req(server, 'GET', '/v1/stats', { cookie });
    expect(own.status).toBe(200);
    expect(own.body['namespace']).toBe('alpha');
    const other = await req(server, 'GET', '/v1/stats?namespace=beta', { cookie });
    expect(other.status).toBe(403);
    expect(code(other.body)).toBe('KIOKU_FORBIDDEN');
    const bearer = await req(server, 'GET', '/v1/stats?namespace=beta', { headers: { authorization: `Bearer ${ALPHA}` } });
    expect(bearer.status).toBe(other.status);
    expect((await req(server, 'GET', '/v1/health', { cookie })).body['namespace']).toBe('alpha');
  });

  it('refuses a write without the session CSRF header, and takes it with the header', async () => {
    const { cookie, csrf } = await signIn();
    const memories = [{ id: 'csrf-probe', kind: 'fact', text: 'A write from the web page.' }];
    const bare = await req(server, 'POST', '/v1/memories', { cookie, body: { memories } });
    expect(bare.status).toBe(403);
    expect(bare.body['error']).toMatchObject({ code: 'KIOKU_FORBIDDEN', details: { field: 'x-kioku-csrf' } });
    const forged = await req(server, 'POST', '/v1/memories', { cookie, body: { memories }, headers: { 'x-kioku-csrf': `${csrf}x` } });
    expect(forged.status).toBe(403);
    const ok = await req(server, 'POST', '/v1/memories', { cookie, body: { memories }, headers: { 'x-kioku-csrf': csrf } });
    expect(ok.status).toBe(200);
    const item = await req(server, 'GET', '/v1/evidence/ev1%3Aalpha%3Amemory%3Acsrf-probe', { headers: { authorization: `Bearer ${ALPHA}` } });
    expect(item.body['text']).toBe('A write from the web page.');
  });

  it('never falls back to the cookie when a bad Authorization header is sent', async () => {
    const { cookie } = await signIn();
    expect((await req(server, 'GET', '/v1/stats', { cookie, headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status).toBe(401);
  });

  it("answers the page's activity and an item's usage in the token's namespace only", async () => {
    const bearer = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
    for (const [token, ns] of [[ALPHA, 'alpha'], [BETA, 'beta']] as const) {
      await req(server, 'POST', '/v1/memories', { body: { memories: [{ id: `deploy-${ns}`, kind: 'fact', text: `The ${ns} deploy runs on Fridays.` }] }, ...bearer(token) });
      await req(server, 'POST', '/v1/sessions/open', { body: { agent: 'test', session_id: 's1' }, ...bearer(token) });
      expect((await req(server, 'POST', '/v1/turns/start', { body: { session_id: 's1', query: `when does the ${ns} deploy run?` }, ...bearer(token) })).status).toBe(200);
    }
    const { cookie } = await signIn();
    const a = await req(server, 'GET', '/v1/activity?days=7&limit=10', { cookie });
    expect(a.status).toBe(200);
    const turns = a.body['turns'] as { query: string; delivered: string[]; candidates: number }[];
    expect(turns.map((t) => t.query)).toEqual(['when does the alpha deploy run?']);
    expect(turns[0]?.delivered).toContain('ev1:alpha:memory:deploy-alpha');
    expect((a.body['per_day'] as { turns: number }[]).reduce((n, d) => n + d.turns, 0)).toBe(1);
    expect(code((await req(server, 'GET', '/v1/activity?days=abc', { cookie })).body)).toBe('KIOKU_INPUT_INVALID');
    expect((await req(server, 'GET', '/v1/activity?namespace=beta', { cookie })).status).toBe(403);
    const use = await req(server, 'GET', '/v1/evidence/ev1%3Aalpha%3Amemory%3Adeploy-alpha/usage', { cookie });
    expect(use.body).toMatchObject({ evidence_key: 'ev1:alpha:memory:deploy-alpha', usage: { considered: 1, returned: 1 }, access: { delivered: 1 } });
    expect((await req(server, 'GET', '/v1/evidence/ev1%3Abeta%3Amemory%3Adeploy-beta/usage', { cookie })).status).toBe(403);
  });

  it('signs out: the cookie is cleared and the session no longer answers', async () => {
    const { cookie } = await signIn(BETA);
    expect((await req(server, 'GET', '/v1/stats', { cookie })).body['namespace']).toBe('beta');
    const out = await req(server, 'POST', '/ui/session/end', { cookie });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await req(server, 'GET', '/v1/stats', { cookie })).status).toBe(401);
  });
});

describe('UiSessions', () => {
  it('ends a session after its time to live', () => {
    let now = 1_000;
    const sessions = new UiSessions(() => now);
    const { id } = sessions.create(ANONYMOUS);
    const cookie = `other=1; kioku_ui=${id}`;
    expect(cookieValue(cookie, 'kioku_ui')).toBe(id);
    expect(sessions.principalOf({ method: 'GET', headers: { cookie } })).toBe(ANONYMOUS);
    now += SESSION_TTL_MS;
    expect(sessions.principalOf({ method: 'GET', headers: { cookie } })).toBeUndefined();
  });
});
