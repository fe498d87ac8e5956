// Revealing a redacted secret (issue 33): POST /v1/secrets/reveal answers a caller on this machine
// with write scope for its namespace, and refuses one from another address or through a proxy
// (KIOKU_SECRET_REMOTE) whatever its token. A real server on a real port.
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';

const WRITE = 'writer-token-0123456789';
const READ = 'reader-token-0123456789';
const KEY = 'ghp_Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1';

/** An address of this machine other than loopback, when it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

describe('reveal a secret', () => {
  let server: TestServer;
  let id: string;
  beforeAll(async () => {
    server = await startTestServer({
      host: '0.0.0.0',
      allowNonLoopback: true,
      tokens: {
        tokens: [
          { name: 'writer', token: WRITE, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
          { name: 'reader', token: READ, namespace: 'team', scopes: ['memory:read'] },
        ],
      },
    });
    const w = await server.call('POST', '/v1/memories', { memories: [{ id: 'ci', kind: 'fact', text: `the CI token is ${KEY}` }] }, WRITE);
    expect(w.status).toBe(200);
    const item = await server.call('GET', '/v1/evidence/ev1:team:memory:ci', undefined, READ);
    const text = String(item.body['text']);
    expect(text).not.toContain(KEY);
    id = /⟦secret:github-token:([a-z0-9]+)⟧/.exec(text)?.[1] ?? '';
    expect(id).not.toBe('');
  });
  afterAll(() => server.stop());

  it('gives the value to a local caller with write scope, by id or by the whole placeholder', async () => {
    const byId = await server.call('POST', '/v1/secrets/reveal', { id }, WRITE);
    expect(byId).toEqual({ status: 200, body: { id, kind: 'github-token', namespace: 'team', placeholder: `⟦secret:github-token:${id}⟧`, value: KEY } });
    const byPlaceholder = await server.call('POST', '/v1/secrets/reveal', { id: `⟦secret:github-token:${id}⟧` }, WRITE);
    expect(byPlaceholder.body['value']).toBe(KEY);
  });

  it('refuses a token without write scope, and an id the vault does not hold in the namespace', async () => {
    expect((await server.call('POST', '/v1/secrets/reveal', { id }, READ)).body).toMatchObject({ error: { code: 'KIOKU_FORBIDDEN' } });
    const missing = await server.call('POST', '/v1/secrets/reveal', { id: '000000000000' }, WRITE);
    expect({ status: missing.status, body: missing.body }).toMatchObject({ status: 404, body: { error: { code: 'KIOKU_NOT_FOUND' } } });
  });

  it('refuses a caller behind a proxy and one from another address, whatever its token', async () => {
    const proxied = await fetch(`${server.url}/v1/secrets/reveal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE}`, 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ id }),
    });
    expect(proxied.status).toBe(403);
    expect(await proxied.json()).toMatchObject({ error: { code: 'KIOKU_SECRET_REMOTE' } });
    // headers CDNs and other proxies add (found by the outside attack: these were taken as local)
    for (const header of ['true-client-ip', 'cf-connecting-ip', 'via']) {
      const viaProxy = await fetch(`${server.url}/v1/secrets/reveal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE}`, [header]: header === 'via' ? '1.1 edge' : '203.0.113.9' },
        body: JSON.stringify({ id }),
      });
      expect({ header, status: viaProxy.status }).toEqual({ header, status: 403 });
    }
    const outside = outsideAddress();
    if (!outside) return; // a machine with loopback only cannot be called from elsewhere
    const port = new URL(server.url).port;
    const remote = await fetch(`http://${outside}:${port}/v1/secrets/reveal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE}` },
      body: JSON.stringify({ id }),
    });
    const body = (await remote.json()) as { error?: { code?: string }; value?: string };
    expect({ status: remote.status, code: body.error?.code, value: body.value }).toEqual({ status: 403, code: 'KIOKU_SECRET_REMOTE', value: undefined });
  });
});
