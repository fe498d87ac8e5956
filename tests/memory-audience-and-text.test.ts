// Memory writes say what they do (issue 29 item 11): the text is stored exactly as sent, and an
// audience can only be the caller in single-user Kioku — naming anyone else is refused with
// 403 KIOKU_AUDIENCE_REFUSED and nothing changes. Over HTTP on a loopback port and over MCP on
// stdio (remote mode against the same server).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient } from './support/mcp.js';

const TOKEN = 'audience-token-0123456789';
const PADDED = '   padded text   ';
let s: TestServer;
const head = () => s.state.store!.log.head().seq;
const evidence = async (id: string) => (await s.call('GET', `/v1/evidence/ev1:solo:memory:${id}`, undefined, TOKEN)).body;

beforeAll(async () => {
  s = await startTestServer({ tokens: { tokens: [{ name: 'solo', token: TOKEN, namespace: 'solo', scopes: ['memory:read', 'memory:write'] }] } });
}, 30_000);
afterAll(async () => s?.stop());

describe('memory text over HTTP', () => {
  it('keeps the text exactly as sent: padding, indentation and a trailing newline', async () => {
    const indented = '    $ scripts/rollback.sh --tag v1.2\n';
    const r = await s.call('POST', '/v1/memories', { memories: [{ id: 'pad', kind: 'fact', text: PADDED }, { id: 'code', kind: 'procedure', text: indented }] }, TOKEN);
    expect(r.body).toMatchObject({ written: ['pad', 'code'] });
    expect(await evidence('pad')).toMatchObject({ text: PADDED });
    expect(await evidence('code')).toMatchObject({ text: indented });
    // the same body again is an idempotent repeat
    const at = head();
    expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'pad', kind: 'fact', text: PADDED }] }, TOKEN)).body).toMatchObject({ written: [] });
    expect(head()).toBe(at);
  });

  it('still refuses a text of whitespace only, naming the field', async () => {
    expect((await s.call('POST', '/v1/memories', { memories: [{ kind: 'fact', text: ' \n\t ' }] }, TOKEN)).body).toMatchObject({
      error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'memories.0.text' } },
    });
  });
});

describe('a memory’s audience over HTTP', () => {
  it('refuses an audience naming another person with 403 KIOKU_AUDIENCE_REFUSED, and changes nothing', async () => {
    await s.call('POST', '/v1/memories', { memories: [{ id: 'aud', kind: 'fact', text: 'Only for me.' }] }, TOKEN);
    const at = head();
    const refused = await s.call('POST', '/v1/memories/aud/audience', { audience: ['me', 'bob'] }, TOKEN);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'KIOKU_AUDIENCE_REFUSED', details: { field: 'audience', value: 'bob' } } });
    expect(head()).toBe(at);
    expect(await evidence('aud')).not.toHaveProperty('audience');
    // decided from the request alone: the same answer for a memory that does not exist
    expect((await s.call('POST', '/v1/memories/nowhere/audience', { audience: ['me', 'bob'] }, TOKEN)).body).toEqual(refused.body);
  });

  it('accepts the caller’s own audience: [] or ["me"]', async () => {
    expect((await s.call('POST', '/v1/memories/aud/audience', { audience: ['me'] }, TOKEN)).body).toEqual({ id: 'aud', audience: ['me'] });
    expect(await evidence('aud')).toMatchObject({ audience: ['me'] });
    expect((await s.call('POST', '/v1/memories/aud/audience', { audience: [] }, TOKEN)).body).toEqual({ id: 'aud', audience: [] });
  });

  it('refuses a memory written for another person the same way, the whole call appending nothing', async () => {
    const at = head();
    const r = await s.call('POST', '/v1/memories', { memories: [{ id: 'ok1', kind: 'fact', text: 'fine' }, { id: 'x', kind: 'fact', text: 'for alice', audience: ['alice'] }] }, TOKEN);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: { code: 'KIOKU_AUDIENCE_REFUSED', details: { field: 'memories.1.audience', value: 'alice' } } });
    expect(head()).toBe(at);
    expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'mine', kind: 'fact', text: 'for me', audience: ['me'] }] }, TOKEN)).status).toBe(200);
  });
});

describe('over MCP (kioku mcp on stdio)', () => {
  let client: Client;
  let home: string;
  beforeAll(async () => {
    home = s.dir;
    client = await remoteMcpClient(s.url, TOKEN, home);
  }, 30_000);
  afterAll(async () => client?.close());

  it('says in set_memory_audience’s description what it refuses, and refuses it', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'set_memory_audience')?.description).toMatch(/only be you.*refused with KIOKU_AUDIENCE_REFUSED/s);
    await callTool(client, 'write_memory', { memories: [{ id: 'via-mcp', kind: 'fact', text: 'Mine alone.' }] });
    const at = head();
    const r = await callTool(client, 'set_memory_audience', { id: 'via-mcp', audience: ['carol'] });
    expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_AUDIENCE_REFUSED' } } });
    expect(head()).toBe(at);
    expect((await callTool(client, 'set_memory_audience', { id: 'via-mcp', audience: ['me'] })).isError).toBeFalsy();
  });

  it('keeps write_memory’s text exactly as sent, as get_memory shows', async () => {
    expect((await callTool(client, 'write_memory', { memories: [{ id: 'pad-mcp', kind: 'fact', text: PADDED }] })).isError).toBeFalsy();
    const got = await callTool(client, 'get_memory', { evidence_key: 'ev1:solo:memory:pad-mcp' });
    expect(got.structuredContent).toMatchObject({ text: PADDED });
  });
});
