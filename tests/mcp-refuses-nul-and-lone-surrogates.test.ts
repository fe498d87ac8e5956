// The one text rule (40362a4) through a real `kioku mcp` over stdio: a tool call whose text, tag,
// reason or notice holds NUL or a lone surrogate (JSON's "\ud800" escape, as a client that cut a
// string inside an emoji sends it) is answered as a tool error KIOKU_INPUT_INVALID naming the
// field, nothing is appended, and the MCP process goes on answering.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient } from './support/mcp.js';

const TOKEN = 'mcp-text-rule-token-0001';
let s: TestServer;
let agent: Client;
const home = tempDir('kioku-mcp-text-');

beforeAll(async () => {
  s = await startTestServer({ tokens: { tokens: [{ name: 'agent', token: TOKEN, namespace: 'private', scopes: ['memory:read', 'memory:write'] }] } });
  agent = await remoteMcpClient(s.url, TOKEN, home.path);
  expect((await callTool(agent, 'write_memory', { memories: [{ id: 'ok', kind: 'fact', text: 'The deploy window is Tuesday.' }] })).isError).toBeFalsy();
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await s?.stop();
  home.cleanup();
});

const head = (): number => s.state.store!.log.head().seq;

it.each([
  ['a memory text with NUL', 'write_memory', { memories: [{ kind: 'fact', text: 'the staging\u0000 database' }] }, 'memories.0.text'],
  ['a tag with a lone surrogate', 'write_memory', { memories: [{ kind: 'fact', text: 'fine', tags: ['cut \ud83d'] }] }, 'memories.0.tags.0'],
  ['a forget reason with NUL', 'forget', { id: 'ok', reason: 'wrong\u0000' }, 'reason'],
])('refuses %s as a tool error naming the field, appending nothing', async (_what, tool, args, field) => {
  const before = head();
  const r = await callTool(agent, tool, args);
  expect(r.isError).toBe(true);
  expect(r.structuredContent, JSON.stringify(r.structuredContent)).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID' } });
  expect(r.content[0]?.text).toContain(field);
  expect(head()).toBe(before);
  // the process goes on answering
  expect((await callTool(agent, 'recall', { message: 'when is the deploy window?' })).isError).toBeFalsy();
}, 60_000);
