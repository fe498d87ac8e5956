// Issue 29 item 6: after the auto-started service was SIGKILLed, running `kioku mcp` processes
// kept calling its dead port (856 of 856 calls failed, 332 while a new service already served).
// Real `kioku mcp` processes over stdio (the SDK's client, the installed entry bin/kioku.js), a
// real service SIGKILLed: they follow a restarted service through the run file, start one
// themselves when nobody does (one for all of them), never write twice, and KIOKU_URL never
// wanders to another server. The hook shares the connection code.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { readRunFile, runFilePath } from '../src/run-file.js';
import { servicesOf } from './support/services.js';
import { freePort, REPO, serveProcess, tempDir } from './helpers.js';
import { callTool as call, mcpClient } from './support/mcp-client.js';

const baseEnv = (dataDir: string): Record<string, string> => ({ PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_EMBEDDER: 'hash' });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killService(dataDir: string): Promise<number> {
  const info = readRunFile(dataDir);
  if (!info) throw new Error('no service runs for the data dir');
  process.kill(info.pid, 'SIGKILL');
  while (alive(info.pid)) await new Promise((r) => setTimeout(r, 20));
  return info.pid;
}

async function cleanUp(dataDir: string, clients: Client[]): Promise<void> {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const pid of servicesOf(dataDir)) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (servicesOf(dataDir).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

/** `count` MCP processes over a fresh data dir; afterwards they, and every service of the dir, are stopped. */
async function withClients(count: number, body: (dataDir: string, clients: Client[]) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const data = tempDir();
  const clients = await Promise.all(Array.from({ length: count }, () => mcpClient(data.path, env)));
  try {
    await body(data.path, clients);
  } finally {
    await cleanUp(data.path, clients);
    data.cleanup();
  }
}

const memoryCount = async (url: string): Promise<number> =>
  ((await (await fetch(`${url}/v1/stats`)).json()) as { items: { by_layer: { memory?: number } } }).items.by_layer.memory ?? 0;

describe('kioku mcp after its service was SIGKILLed', () => {
  it(
    'follows the service a restart brought up elsewhere, answering within 3 s of it being up',
    () =>
      withClients(2, async (dir, clients) => {
        for (const [n, c] of clients.entries())
          expect(
            (await call(c, 'write_memory', { memories: [{ id: `before-${n}`, kind: 'fact', text: `Client ${n} wrote this before the crash.` }] })).isError,
          ).toBeFalsy();
        const lost = readRunFile(dir)?.url;
        await killService(dir);

        // someone else restarts the service, on another port
        await serveProcess(dir, await freePort());
        const up = performance.now();
        expect(readRunFile(dir)?.url).not.toBe(lost);
        const answers = await Promise.all(clients.map((c, n) => call(c, 'get_memory', { evidence_key: `ev1:private:memory:before-${n}` })));
        const ms = performance.now() - up;
        process.stderr.write(`mcp-reconnect: both MCP processes answered ${Math.round(ms)} ms after the new service was up\n`);
        for (const a of answers) expect(a.isError).toBeFalsy();
        expect(ms).toBeLessThan(3_000);
        // and go on using it
        for (const [n, c] of clients.entries())
          expect((await call(c, 'recall', { message: `what did client ${n} write before the crash?` })).isError).toBeFalsy();
        expect(servicesOf(dir)).toHaveLength(1);
      }),
    120_000,
  );

  it(
    'starts one service itself when nobody restarts it — one for all its clients — and writes nothing twice',
    () =>
      withClients(3, async (dir, clients) => {
        expect(
          (await call(clients[0] as Client, 'write_memory', { memories: [{ id: 'first', kind: 'fact', text: 'Written before the crash.' }] })).isError,
        ).toBeFalsy();
        const killed = await killService(dir);

        // the next calls find no service: one of them starts it, all of them use it. The writes carry no
        // ids: nothing reached a server (the connection was refused), so each is sent once more
        const started = performance.now();
        const answers = await Promise.all(
          clients.map((c, n) => call(c, 'write_memory', { memories: [{ kind: 'fact', text: `Client ${n} wrote this after the crash.` }] })),
        );
        process.stderr.write(`mcp-reconnect: a service started by the MCP processes answered in ${Math.round(performance.now() - started)} ms\n`);
        for (const a of answers) expect(a.isError, JSON.stringify(a.content)).toBeFalsy();
        const info = readRunFile(dir);
        expect(info?.pid).not.toBe(killed);
        expect(servicesOf(dir)).toEqual([info?.pid]);
        const log = readFileSync(join(dir, 'kioku-serve.log'), 'utf8');
        expect(log.match(/listening on/g)).toHaveLength(2); // the first service and its one successor
        // every write once: the one before the crash and one per client after it
        expect(await memoryCount(info?.url as string)).toBe(4);
      }),
    120_000,
  );

  it('with KIOKU_URL, talks to that service only, never to the one the run file names', async () => {
    const elsewhere = `http://127.0.0.1:${await freePort()}`;
    await withClients(
      1,
      async (dir, [client]) => {
        await serveProcess(dir, await freePort());
        const local = readRunFile(dir)?.url as string;
        const r = await call(client as Client, 'write_memory', { memories: [{ id: 'stray', kind: 'fact', text: 'must not land in the local service' }] });
        expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
        expect(await memoryCount(local)).toBe(0);
        expect(readRunFile(dir)?.url).toBe(local);
        expect(servicesOf(dir)).toHaveLength(1);
      },
      // a short wait for the dead URL (30 s by default; waiting itself is tests/mcp-waits-once-per-outage's): retried, never redirected
      { KIOKU_URL: elsewhere, KIOKU_READY_WAIT_MS: '2000' },
    );
  }, 60_000);
});

describe('the hook after its service was lost', () => {
  it(
    'starts a service when the run file names a port nothing listens on (its pid taken by another process)',
    () =>
      withClients(0, async (dir) => {
        // what a SIGKILLed service leaves when its pid is reused: a run file whose process is alive
        writeFileSync(
          runFilePath(dir),
          JSON.stringify({ url: `http://127.0.0.1:${await freePort()}`, pid: process.pid, started_at: new Date().toISOString() }),
        );
        const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [join(REPO, 'bin/kioku.js'), 'hook', 'run', '--data', dir], {
            cwd: REPO,
            // the hook starts a service only when the user allowed it (issue 31)
            env: { ...baseEnv(dir), KIOKU_HOOK_TIMEOUT: '20000', KIOKU_AUTOSTART: '1' },
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
          child.stdin.end(JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'sess-1', cwd: '/repo' }));
        });
        expect(out.code).toBe(0);
        expect(out.stderr).toBe('');
        expect(JSON.parse(out.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'SessionStart' } });
        const info = readRunFile(dir);
        expect(info?.pid).not.toBe(process.pid);
        expect(servicesOf(dir)).toEqual([info?.pid]);
      }),
    60_000,
  );
});
