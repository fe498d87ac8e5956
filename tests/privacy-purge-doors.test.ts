// Purge and forget at every door (issue 33): the MCP `purge` tool (kioku mcp over stdio against a
// real loopback server with tokens) calls the facade's purge with the HTTP route's rules — refused
// without confirm: true, refused to a token without memory:write, refused for another namespace —
// and `kioku forget KEY|ID` (a real CLI child process) is the facade's forget, with --json and exit
// codes like the other reporting commands.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient } from './support/mcp.js';

const NS = 'solo';
const WRITER = 'purge-doors-writer-0123456789';
const READER = 'purge-doors-reader-0123456789';
const TOKENS = {
  tokens: [
    { name: 'writer', token: WRITER, namespace: NS, scopes: ['memory:read', 'memory:write'] },
    { name: 'reader', token: READER, namespace: NS, scopes: ['memory:read'] },
  ],
};
const home = tempDir('kioku-purge-doors-home-');
let s: TestServer;
let writer: Client;
let reader: Client;
const evidence = async (key: string) => (await s.call('GET', `/v1/evidence/${encodeURIComponent(key)}`, undefined, WRITER)).body;
const cli = (args: string[], token = WRITER) => runCli([...args, '--json'], { KIOKU_URL: s.url, KIOKU_TOKEN: token });

beforeAll(async () => {
  s = await startTestServer({ tokens: TOKENS });
  const wrote = await s.call(
    'POST',
    '/v1/memories',
    {
      memories: [
        { id: 'm-mcp', kind: 'fact', text: 'The heliotrope vault code is kept by the porter.' },
        { id: 'm-cli', kind: 'fact', text: 'The lanternfish rota is on the back door.' },
        { id: 'm-key', kind: 'fact', text: 'The quillwort ledger is upstairs.' },
        { id: 'm-keep', kind: 'fact', text: 'The kestrel timetable stays.' },
      ],
    },
    WRITER,
  );
  expect(wrote.status).toBe(200);
  [writer, reader] = await Promise.all([remoteMcpClient(s.url, WRITER, home.path), remoteMcpClient(s.url, READER, home.path)]);
}, 60_000);
afterAll(async () => {
  await writer?.close();
  await reader?.close();
  await s?.stop();
  home.cleanup();
});

describe('MCP purge', () => {
  it('is listed with a required confirmation argument', async () => {
    const { tools } = await writer.listTools();
    const purge = tools.find((t) => t.name === 'purge');
    expect(purge?.inputSchema.required).toEqual(expect.arrayContaining(['scope', 'confirm']));
  });

  it('refuses without confirm: true, and to a token without memory:write; nothing is purged', async () => {
    const missing = await callTool(writer, 'purge', { scope: 'memory', id: 'm-mcp' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    const unconfirmed = await callTool(writer, 'purge', { scope: 'memory', id: 'm-mcp', confirm: false });
    expect(unconfirmed).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    expect(unconfirmed.content[0]?.text).toContain('cannot be undone');
    const readOnly = await callTool(reader, 'purge', { scope: 'memory', id: 'm-mcp', confirm: true });
    expect(readOnly.isError).toBe(true);
    expect(readOnly.content[0]?.text).toMatch(/KIOKU_FORBIDDEN/);
    expect((await evidence(`ev1:${NS}:memory:m-mcp`))['text']).toContain('heliotrope');
  });

  it("purges a memory of the token's namespace through the facade (the same answer and tombstone as POST /v1/purge)", async () => {
    const done = await callTool(writer, 'purge', { scope: 'memory', id: 'm-mcp', confirm: true, reason: 'asked to' });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ scope: 'memory', target: 'm-mcp', items: 1 });
    expect(await evidence(`ev1:${NS}:memory:m-mcp`)).toMatchObject({ status: 'forgotten', text: '', tombstone: { purged: true } });
  });
});

describe('kioku forget', () => {
  it('forgets a memory by id and by evidence key; --json is one object', async () => {
    const byId = await cli(['forget', 'm-cli', '--reason', 'wrong']);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.json).toMatchObject({ ok: true, id: 'm-cli', forgotten: true });
    const byKey = await cli(['forget', `ev1:${NS}:memory:m-key`]);
    expect(byKey.json).toMatchObject({ ok: true, id: 'm-key', forgotten: true });
    for (const key of [`ev1:${NS}:memory:m-cli`, `ev1:${NS}:memory:m-key`]) {
      const e = await evidence(key);
      expect(e).toMatchObject({ status: 'forgotten', text: '' });
      expect(JSON.stringify(e)).not.toMatch(/lanternfish|quillwort/);
    }
    expect((await evidence(`ev1:${NS}:memory:m-keep`))['text']).toContain('kestrel');
  }, 120_000); // real CLI processes: seconds each on a loaded machine

  it('exits 2 with the error code for an unknown id and for a token without memory:write', async () => {
    const unknown = await cli(['forget', 'no-such-memory']);
    expect(unknown.code).toBe(2);
    expect(unknown.json).toMatchObject({ ok: false, error: { code: 'KIOKU_NOT_FOUND' } });
    const readOnly = await cli(['forget', 'm-keep'], READER);
    expect(readOnly.code).toBe(2);
    expect(readOnly.json).toMatchObject({ ok: false, error: { code: 'KIOKU_FORBIDDEN' } });
    expect((await evidence(`ev1:${NS}:memory:m-keep`))['text']).toContain('kestrel');
  }, 120_000);
});
