// The one connection path (src/connect.ts): which steps each client may take, and each step taken
// for real — the store opened when no live service owns it, the service its run file names, the
// service a locked store's starter is bringing up (or the lock named), KIOKU_URL only, and the start
// refused when the user stopped the service or the client may not start one. Starting a service
// (spawning `kioku serve`) is driven through the real entries in mcp.test.ts, mcp-reconnect.test.ts
// and service-lifecycle.test.ts.
import { symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, stepsFor, type ConnectOptions } from '../src/connect.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { isKiokuError } from '../src/errors.js';
import { openKioku } from '../src/kioku.js';
import { writeRunFile, writeStopMarker } from '../src/run-file.js';
import { tempDir } from './helpers.js';
import { startTestServer } from './server-helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function library(): string {
  const dir = tempDir('kioku-connect-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

/** The CLI's local step: the store itself, never created (as tools/commands open it). */
const cli = (data: string, env: NodeJS.ProcessEnv = {}): ConnectOptions => ({
  data,
  client: 'cli',
  env,
  openLocal: (lib) => openKioku({ data: lib.dataDir, embedder: new HashedEmbedder(32), actor: 'cli' }),
});

describe('the steps each client may take', () => {
  it('CLI local then service; MCP service then start (unless KIOKU_AUTOSTART=0); the hook starts only with KIOKU_AUTOSTART=1', () => {
    expect(stepsFor('cli', {})).toEqual(['local', 'service']);
    expect(stepsFor('cli', { KIOKU_AUTOSTART: '1' })).toEqual(['local', 'service']);
    expect(stepsFor('mcp', {})).toEqual(['service', 'start']);
    expect(stepsFor('mcp', { KIOKU_AUTOSTART: '0' })).toEqual(['service']);
    expect(stepsFor('hook', {})).toEqual(['service']);
    expect(stepsFor('hook', { KIOKU_AUTOSTART: '1' })).toEqual(['service', 'start']);
    expect(stepsFor('hook', { KIOKU_AUTOSTART: 'true' })).toEqual(['service', 'start']);
  });
});

describe('the CLI', () => {
  it('opens the store when no service runs, and when the run file names a port nothing listens on', async () => {
    const data = library();
    const c = await connect(cli(data));
    expect(c).toMatchObject({ step: 'local', via: 'the store', started: false });
    expect(c.kioku.mode).toBe('local');
    await c.kioku.close();

    // a killed service's run file, its pid taken by a live process (this one)
    const dead = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => dead.once('listening', r));
    const port = (dead.address() as { port: number }).port;
    await new Promise((r) => dead.close(r));
    writeRunFile(data, { url: `http://127.0.0.1:${port}`, pid: process.pid, started_at: new Date().toISOString() });
    const again = await connect(cli(data));
    expect(again).toMatchObject({ step: 'local', via: 'the store' });
    expect(again.library.url).toBeUndefined();
    await again.kioku.close();
  });

  it('asks the live service its run file names, without opening the store', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    writeRunFile(server.dir, { url: server.url, pid: process.pid, started_at: new Date().toISOString() });
    const c = await connect({ ...cli(server.dir), openLocal: () => Promise.reject(new Error('the store must not be opened')) });
    expect(c).toMatchObject({ step: 'service', url: server.url, via: `the service at ${server.url} (pid ${process.pid})` });
    expect(c.kioku.mode).toBe('remote');
    expect((await c.kioku.stats({})).namespace).toBe('private');
  });

  it('a store locked by another process with no run file: waits briefly for one, then names the lock', async () => {
    const data = library();
    const holder = await openKioku({ data, embedder: new HashedEmbedder(32) });
    cleanups.push(() => holder.close());
    const started = Date.now();
    const err = await connect(cli(data)).catch((e: unknown) => e);
    expect(isKiokuError(err, 'KIOKU_STORE_LOCKED')).toBe(true);
    expect((err as Error).message).toContain(`the store in ${data} is in use by another process`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
  });

  it('KIOKU_URL: that service only; --data beats it for the CLI, not for MCP and the hook', async () => {
    const data = library();
    const url = 'http://127.0.0.1:9';
    const { data: _named, ...unnamed } = cli(data, { KIOKU_URL: url, HOME: data });
    expect(await connect(unnamed)).toMatchObject({ step: 'remote', url, via: `the service at ${url} (KIOKU_URL)` });
    const named = await connect(cli(data, { KIOKU_URL: url }));
    expect(named.step).toBe('local');
    await named.kioku.close();
    for (const client of ['mcp', 'hook'] as const) expect(await connect({ data, client, env: { KIOKU_URL: `${url}/` } })).toMatchObject({ step: 'remote', url });
  });
});

describe('MCP and the hook, no service running', () => {
  it('the hook may not start one: KIOKU_SERVICE_NOT_RUNNING with how to start it (or let the hook)', async () => {
    const data = library();
    const err = await connect({ data, client: 'hook', env: {} }).catch((e: unknown) => e);
    expect(isKiokuError(err, 'KIOKU_SERVICE_NOT_RUNNING')).toBe(true);
    expect((err as Error).message).toBe(`Kioku is not running for ${data}; start it with \`kioku serve --data ${data}\` (or set KIOKU_AUTOSTART=1 to let the hook start it)`);
  });

  it('a file where the data dir should be: says so, neither "stopped" nor "start it with kioku serve"', async () => {
    const file = join(library(), 'not-a-dir');
    writeFileSync(file, 'x');
    for (const client of ['mcp', 'hook'] as const) {
      const err = await connect({ data: file, client, env: { KIOKU_AUTOSTART: '1' } }).catch((e: unknown) => e);
      expect(isKiokuError(err, 'KIOKU_STORE_UNREADABLE')).toBe(true);
      expect((err as Error).message).toBe(`the data dir ${file} is a file, not a directory; point --data (or KIOKU_DATA) at a directory`);
    }
  });

  it('a path through a file, or a symlink to nothing: says so as KIOKU_STORE_UNREADABLE, not a raw ENOTDIR / ENOENT', async () => {
    const dir = library();
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere'), dangling);
    const cases: [string, string][] = [
      [join(file, 'kioku'), `the data dir ${join(file, 'kioku')} lies under a file, not a directory; point --data (or KIOKU_DATA) at a directory`],
      [dangling, `the data dir ${dangling} is a symlink to ${join(dir, 'nowhere')}, which does not exist; point --data (or KIOKU_DATA) at a directory`],
    ];
    for (const [data, message] of cases)
      for (const client of ['mcp', 'hook'] as const) {
        const err = await connect({ data, client, env: { KIOKU_AUTOSTART: '1' } }).catch((e: unknown) => e);
        expect(isKiokuError(err, 'KIOKU_STORE_UNREADABLE')).toBe(true);
        expect((err as Error).message).toBe(message);
      }
  });

  it('a service the user stopped is started by neither, whatever KIOKU_AUTOSTART says', async () => {
    const data = library();
    writeStopMarker(data, { by: 'kioku stop', at: '2026-12-03T10:00:00Z' });
    for (const client of ['mcp', 'hook'] as const) {
      const err = await connect({ data, client, env: { KIOKU_AUTOSTART: '1' } }).catch((e: unknown) => e);
      expect(isKiokuError(err, 'KIOKU_SERVICE_NOT_RUNNING')).toBe(true);
      expect((err as Error).message).toMatch(/^Kioku is stopped for .* \(kioku stop at 2026-12-03T10:00:00Z\); start it with `kioku serve --data /);
    }
  });
});
