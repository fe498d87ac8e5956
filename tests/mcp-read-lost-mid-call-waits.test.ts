// A read a `kioku mcp` tool call had in flight when its service died (the connection lost under
// it) is sent again once the service answers, within KIOKU_READY_WAIT_MS: a read cannot be doubled,
// so the agent sees an answer, not KIOKU_SERVICE_UNAVAILABLE; so is a memory write naming its ids.
// A write without ids still answers "outcome unknown" (sent again it could be written twice). Real kioku mcp over stdio, a
// real server behind a loopback proxy that cuts the first request of each kind under way.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool } from './support/mcp.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { REPO } from './helpers.js';

let s: TestServer;
let proxy: Server;
let agent: Client;
const home = tempDir('kioku-mcp-lost-');
/** routes whose next request the proxy cuts (the connection destroyed once the request arrived) */
const cut = new Set<string>();
const seen: string[] = [];

beforeAll(async () => {
  s = await startTestServer();
  const target = new URL(s.url);
  proxy = createServer((req, res) => {
    const route = req.url ?? '';
    seen.push(route);
    if (cut.delete(route)) {
      req.resume();
      req.on('end', () => req.socket.destroy()); // the service died with the request in hand
      return;
    }
    const upstream = request({ host: target.hostname, port: target.port, path: route, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'bin/kioku.js'), 'mcp'],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: home.path, KIOKU_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, KIOKU_READY_WAIT_MS: '5000' },
    stderr: 'ignore',
  });
  agent = new McpClient({ name: 'kioku-test', version: '0.0.0' });
  await agent.connect(transport);
  const w = await callTool(agent, 'write_memory', { memories: [{ id: 'deploy', kind: 'fact', text: 'The deploy window is Tuesday at 10:00.' }] });
  expect(w.isError, w.content[0]?.text).toBeFalsy();
}, 60_000);

/** The next request comes on a new connection (a kept-alive one lost as a request went out is sent again by the client already). */
async function freshConnection(): Promise<void> {
  proxy.closeIdleConnections();
  await new Promise((r) => setTimeout(r, 200));
}

afterAll(async () => {
  await agent?.close();
  await new Promise((r) => proxy?.close(r));
  await s?.stop();
  home.cleanup();
});

/** A tool call whose first request to `route` loses its (fresh) connection: the answer and how often the route was asked. */
async function cutUnder(route: string, tool: string, args: Record<string, unknown>): Promise<{ r: Awaited<ReturnType<typeof callTool>>; sent: number }> {
  await freshConnection();
  cut.add(route);
  const before = seen.length;
  const r = await callTool(agent, tool, args);
  return { r, sent: seen.slice(before).filter((u) => u === route).length };
}

it('a recall whose connection is lost under it is sent again and answered', async () => {
  const { r, sent } = await cutUnder('/v1/recall', 'recall', { message: 'when is the deploy window?' });
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  expect(sent).toBe(2);
}, 60_000);

it('a memory write naming its ids is sent again and answered', async () => {
  const { r, sent } = await cutUnder('/v1/memories', 'write_memory', { memories: [{ id: 'freeze', kind: 'fact', text: 'The freeze starts on Friday.' }] });
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  expect(sent).toBe(2);
}, 60_000);

it('a memory write without ids lost under way still answers that its outcome is unknown, sent once', async () => {
  const { r, sent } = await cutUnder('/v1/memories', 'write_memory', { memories: [{ kind: 'fact', text: 'The thaw starts on Monday.' }] });
  expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
  expect(sent).toBe(1);
}, 60_000);
