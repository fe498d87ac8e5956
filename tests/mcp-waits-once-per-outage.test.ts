// A service that is down, not restarting (a wrong KIOKU_URL, a host that does not resolve), costs
// an agent one wait, not one per tool call: since 1f85370 every `kioku mcp` tool call waited
// KIOKU_READY_WAIT_MS (30 s by default) for it, so an agent making five calls against a misspelled
// host waited 2.5 minutes before it could tell its user. After one call waited in vain, later calls
// try once and answer at once, saying why, until a call is answered; then the wait holds again.
// Real kioku mcp over stdio, a real kioku serve started at the fixed URL later.
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, REPO, serveProcess, tempDir } from './helpers.js';
import { callTool } from './support/mcp.js';

const dir = tempDir('kioku-mcp-outage-');
let client: Client | undefined;
let server: ChildProcess | undefined;
afterAll(async () => {
  await client?.close();
  server?.kill('SIGKILL');
  dir.cleanup();
});

const timed = async <T>(f: () => Promise<T>): Promise<{ ms: number; r: T }> => {
  const t0 = Date.now();
  const r = await f();
  return { ms: Date.now() - t0, r };
};

it('waits once for a service that never serves, answers later calls at once, and waits again after it served', async () => {
  const port = await freePort();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'bin/kioku.js'), 'mcp'],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KIOKU_URL: `http://127.0.0.1:${port}`, KIOKU_READY_WAIT_MS: '6000' },
    stderr: 'ignore',
  });
  client = new Client({ name: 'kioku-test', version: '0.0.0' });
  await client.connect(transport);
  const recall = () => callTool(client!, 'recall', { message: 'when is the deploy window?' });

  const first = await timed(recall);
  expect(first.ms).toBeGreaterThanOrEqual(6_000);
  expect(first.r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
  expect(first.r.content[0]?.text).toMatch(/waited \d+ ms/);

  const second = await timed(recall);
  expect(second.ms).toBeLessThan(3_000); // not the 6 s wait (a loaded machine is slow to answer even at once)
  expect(second.r.isError).toBe(true);
  expect(second.r.content[0]?.text).toMatch(/not waited for: the service did not serve during the last call's wait/);

  server = await serveProcess(join(dir.path, 'lib'), port);
  const served = await recall();
  expect(served.isError, served.content[0]?.text).toBeFalsy();

  // it served: the next outage is waited for again
  const gone = new Promise((r) => server!.once('exit', r));
  server.kill('SIGTERM');
  await gone;
  server = undefined;
  const again = await timed(recall);
  expect(again.ms).toBeGreaterThanOrEqual(1_500);
  expect(again.r.content[0]?.text).toMatch(/waited \d+ ms/);
}, 120_000);
