// An agent sees a short wait, not an error, while its service restarts: a real `kioku mcp` over
// stdio against a real `kioku serve` at a fixed KIOKU_URL that is stopped and started again under a
// tool call (no connection, then 503 KIOKU_NOT_READY while it opens). Past KIOKU_READY_WAIT_MS the
// tool answers the error, saying how long it waited.
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, REPO, serveProcess, tempDir } from './helpers.js';
import { callTool } from './support/mcp.js';

const dir = tempDir('kioku-mcp-restart-');
const clients: Client[] = [];
let server: ChildProcess | undefined;
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  server?.kill('SIGKILL');
  dir.cleanup();
});

async function mcp(url: string, env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'bin/kioku.js'), 'mcp'],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KIOKU_URL: url, ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'kioku-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const stop = async (child: ChildProcess): Promise<void> => {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
};
const write = (client: Client, id: string) => callTool(client, 'write_memory', { memories: [{ id, kind: 'fact', text: `restart note ${id}: the deploy window is Tuesday` }] });

it('a tool call made while the service restarts waits for it and is answered', async () => {
  const data = join(dir.path, 'lib');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  server = await serveProcess(data, port);
  const agent = await mcp(url);
  const impatient = await mcp(url, { KIOKU_READY_WAIT_MS: '0' });
  expect((await write(agent, 'before')).isError).toBeFalsy();

  await stop(server);
  const during = write(agent, 'during');
  const refused = await write(impatient, 'refused');
  server = await serveProcess(data, port);
  const answer = await during;
  expect(answer.isError, answer.content[0]?.text).toBeFalsy();
  expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
  const found = await callTool(agent, 'get_memory', { id: 'during' });
  expect(found.isError, found.content[0]?.text).toBeFalsy();
}, 120_000);

it('past the bound the tool answers the error, saying how long it waited', async () => {
  if (server) await stop(server);
  const agent = await mcp(`http://127.0.0.1:${await freePort()}`, { KIOKU_READY_WAIT_MS: '600' });
  const t0 = Date.now();
  const r = await write(agent, 'nobody');
  expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
  expect(r.content[0]?.text).toMatch(/waited \d+ ms/);
}, 60_000);
