// Scenario mcp: K real `kioku mcp` processes over stdio (the SDK's own client), each writing
// memories with its own ids through write_memory. They start the library's service themselves
// (issue 29 item 6); it is SIGKILLed R times at random moments and nobody else restarts it: the
// MCP processes must find it gone, start one, and send again only what a repeat cannot double.
// Acknowledged tool answers are counted and then read back over HTTP from the service they use.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunFile } from '../../src/run-file.js';
import { HANG_MS, readBack } from './http.js';
import { around, check, median, newLedger, sleep, startWriters, type Outcome } from './ledger.js';
import { chaosEnv, cliArgs, figures, freePort, progress, REPO, verify, type Entry } from './service.js';

export interface McpOptions {
  rounds: number;
  clients: number;
  entry: Entry;
  /** writing between kills (at random around it), ms */
  holdMs: number;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function mcpClient(entry: Entry, data: string, port: number): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(entry, ['mcp', '--data', data]),
    cwd: REPO,
    // the service an MCP process starts takes KIOKU_PORT: a free one, not the default 18972
    env: chaosEnv(data, { KIOKU_PORT: String(port) }),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'kioku-chaos', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

async function writeTool(client: Client, id: string, text: string): Promise<Outcome> {
  try {
    const r = (await client.callTool({ name: 'write_memory', arguments: { memories: [{ id, kind: 'fact', text }] } }, undefined, { timeout: HANG_MS })) as {
      isError?: boolean;
      structuredContent?: { error?: { code?: string } };
    };
    return r.isError ? { ack: false, why: r.structuredContent?.error?.code ?? 'tool error' } : { ack: true };
  } catch (err) {
    return { ack: false, why: /timed out/i.test((err as Error).message) ? 'timeout' : `mcp error: ${(err as Error).message.slice(0, 80)}` };
  }
}

/** SIGKILL the service named by the run file; its pid, once gone. */
async function killRunning(data: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  let info = readRunFile(data);
  // right after a kill the MCP processes may still be starting the next one
  while ((!info || !alive(info.pid)) && Date.now() < deadline) {
    await sleep(100);
    info = readRunFile(data);
  }
  if (!info) throw new Error('no service runs for the data dir');
  process.kill(info.pid, 'SIGKILL');
  while (alive(info.pid)) await sleep(20);
  return info.pid;
}

/** SIGTERM the service the run file names and wait for it to go (bounded). */
async function stopRunning(data: string): Promise<{ exit: 'stopped' | 'hung' | 'none'; ms: number }> {
  const info = readRunFile(data);
  if (!info || !alive(info.pid)) return { exit: 'none', ms: 0 };
  const started = performance.now();
  process.kill(info.pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (alive(info.pid) && Date.now() < deadline) await sleep(50);
  if (alive(info.pid)) process.kill(info.pid, 'SIGKILL');
  return { exit: alive(info.pid) ? 'hung' : 'stopped', ms: Math.round(performance.now() - started) };
}

export async function mcpScenario(options: McpOptions): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'kioku-chaos-mcp-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const started = performance.now();
  const clients: Client[] = [];
  try {
    const port = await freePort();
    for (let i = 0; i < options.clients; i++) clients.push(await mcpClient(options.entry, data, port));
    const ledger = newLedger();
    const writers = startWriters(options.clients, ledger, (w, id, text) => writeTool(clients[w] as Client, id, text), { pauseMs: 100 });
    const recoveryMs: number[] = [];
    // the MCP processes start the service on their first call: kill it only once it has answered
    while (!ledger.acked.size && performance.now() - started < 90_000) await sleep(50);
    for (let round = 1; round <= options.rounds; round++) {
      await sleep(around(options.holdMs));
      const pid = await killRunning(data);
      const killedAt = Date.now();
      const acked = ledger.acked.size;
      // recovered: the first acknowledgement after the kill
      while ((ledger.ackTimes.at(-1) ?? 0) <= killedAt && Date.now() - killedAt < 90_000) await sleep(50);
      recoveryMs.push(Date.now() - killedAt);
      progress(`mcp round ${round}/${options.rounds}: service ${pid} SIGKILLed; writes acknowledged again after ${recoveryMs.at(-1)} ms (acknowledged ${acked}; not acknowledged ${JSON.stringify(ledger.refusals)})`);
    }
    await sleep(1_000);
    await writers.stop();
    const url = readRunFile(data)?.url;
    if (!url) throw new Error('no service runs for the data dir after the last round');
    const result = check(ledger, await readBack(url));
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    const stop = await stopRunning(data);
    const verified = await verify(options.entry, data);
    const f = figures('mcp', result, ledger, verified, started);
    return {
      scenario: 'mcp',
      ok: f.clean && stop.exit === 'stopped',
      rounds: options.rounds,
      clients: options.clients,
      ...f.figures,
      kill_to_first_ack_ms: { median: median(recoveryMs), all: recoveryMs },
      final_stop: stop,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await stopRunning(data).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
