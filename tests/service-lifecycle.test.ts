// Issue 31: one service per library, visible and controllable. `kioku status` and `kioku stop`;
// a second `kioku serve` for a served library says where it runs and exits 0; a service the user
// stopped is not started again behind their back — the hook exits 0 at once and says so once, the
// MCP server answers with how to start it; the hook starts one only with KIOKU_AUTOSTART=1, on the
// configured port when free (another when taken), and such a service may stop itself when idle.
// Real processes throughout: `kioku serve`, the CLI, the hook and `kioku mcp` as hosts run them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHook } from '../src/hook/run.js';
import { readRunFile, readStopMarker } from '../src/run-file.js';
import { servicesOf } from './support/services.js';
import { freePort, REPO, runCli, serveProcess, tempDir } from './helpers.js';
import { callTool, mcpClient } from './support/mcp-client.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function library(): string {
  const dir = tempDir('kioku-lifecycle-');
  cleanups.push(async () => {
    for (const pid of servicesOf(dir.path)) process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (servicesOf(dir.path).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    dir.cleanup();
  });
  return dir.path;
}

/** One hook event through the installed entry (bin/kioku.js → the bundled hook), as Claude Code runs it. */
function hook(dataDir: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/kioku.js'), 'hook', 'run', '--data', dataDir], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_EMBEDDER: 'hash', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - started }));
    child.stdin.end(JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', prompt: 'how do I roll back the release?' }));
  });
}

const env = (dataDir: string, extra: Record<string, string> = {}) => ({ HOME: dataDir, KIOKU_EMBEDDER: 'hash', ...extra });

describe('status, stop, serve again', () => {
  it('status names the service; a second serve says where it runs and exits 0; stop stops it and keeps it stopped', async () => {
    const dir = library();
    const port = await freePort();
    const served = await serveProcess(dir, port);
    const url = `http://127.0.0.1:${port}`;

    const status = await runCli(['status', '--data', dir, '--json'], env(dir));
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({ running: true, answers: true, ready: true, url, pid: served.pid, data_dir: dir, store: 'leveldb', started_by: 'user' });
    expect(status.json?.['uptime_s']).toBeGreaterThanOrEqual(0);

    const again = await runCli(['serve', '--data', dir], env(dir));
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`already running for ${dir} at ${url} (pid ${served.pid}`);
    expect(again.stderr).toContain(`kioku stop --data ${dir}`);
    expect(servicesOf(dir)).toEqual([served.pid]);

    const stop = await runCli(['stop', '--data', dir, '--json'], env(dir));
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.json).toMatchObject({ ok: true, was_running: true, pid: served.pid, url });
    expect(served.exitCode ?? served.signalCode).not.toBeNull(); // gone before stop answered
    expect(readRunFile(dir)).toBeUndefined();
    expect(readStopMarker(dir)).toMatchObject({ by: 'kioku stop' });

    const down = await runCli(['status', '--data', dir, '--json'], env(dir));
    expect(down.code).toBe(1);
    expect(down.json).toMatchObject({ running: false, stopped: { by: 'kioku stop' }, hint: `kioku serve --data ${dir}` });

    // stopped by the user: the hook neither restarts it (not even with KIOKU_AUTOSTART=1) nor waits
    // (waiting would take the hook's 6 s timeout; 3 s leaves room for a loaded machine's process start)
    const first = await hook(dir, { KIOKU_AUTOSTART: '1' });
    expect(first.code).toBe(0);
    expect(first.ms).toBeLessThan(3_000);
    expect(JSON.parse(first.stdout)).toEqual({ systemMessage: expect.stringContaining(`start it with \`kioku serve --data ${dir}\``) });
    const second = await hook(dir, { KIOKU_AUTOSTART: '1' });
    expect(second).toMatchObject({ code: 0, stdout: '' }); // said once, not on every prompt
    expect(second.stderr).toMatch(/Kioku is stopped for .*kioku stop.*the prompt goes on without Kioku/);
    expect(second.ms).toBeLessThan(3_000);
    process.stderr.write(`service-lifecycle: hook with a stopped service answered in ${Math.round(first.ms)} / ${Math.round(second.ms)} ms\n`);

    // nor does kioku mcp: its tool call says how to start the service
    const client = await mcpClient(dir);
    cleanups.push(() => client.close());
    const r = await callTool(client, 'recall', { message: 'how do I roll back?' });
    expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_NOT_RUNNING' } } });
    expect(JSON.stringify(r.content)).toContain(`kioku serve --data ${dir}`);
    expect(readRunFile(dir)).toBeUndefined();
    expect(servicesOf(dir)).toEqual([]);

    // serve again: the marker goes, and the hook is told again the next time the service is down
    const back = await serveProcess(dir, port);
    expect(readStopMarker(dir)).toBeUndefined();
    expect(existsSync(join(dir, 'hook', 'service-down.notice'))).toBe(true);
    expect((await hook(dir)).code).toBe(0);
    expect(existsSync(join(dir, 'hook', 'service-down.notice'))).toBe(false);
    back.kill('SIGTERM');
    await new Promise((r) => back.once('exit', r));
  }, 120_000);

  it('Ctrl-C on a kioku serve the user started leaves it stopped; kioku stop with nothing running keeps it stopped', async () => {
    const dir = library();
    const served = await serveProcess(dir, await freePort());
    served.kill('SIGINT');
    await new Promise((r) => served.once('exit', r));
    expect(readStopMarker(dir)).toMatchObject({ by: 'Ctrl-C on kioku serve' });
    // Codex has no field for a message to the user: the line goes to stderr only, the output stays empty
    const codex = await runHook(JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'c1', prompt: 'what did we decide about retries?' }), {
      data: dir,
      host: 'codex',
      env: { HOME: dir },
    });
    expect(codex.stdout).toBe('');
    expect(codex.problem).toMatch(new RegExp(`Kioku is stopped for ${dir} \\(Ctrl-C on kioku serve at .*\\); start it with \`kioku serve --data ${dir}\``));

    const other = library();
    const stop = await runCli(['stop', '--data', other], env(other));
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('was not running');
    expect(readStopMarker(other)).toMatchObject({ by: 'kioku stop' });
  }, 60_000);
});

describe('the hook and a library no service serves', () => {
  it('by default it starts nothing: exit 0 without waiting, and it says how to start one', async () => {
    const dir = library();
    const r = await hook(dir);
    expect(r.code).toBe(0);
    // it does not wait: a hook that waited for a service would take its 6 s call timeout (a process
    // start alone took 1.2 s under the suite's parallel load, so the bound is not one second)
    expect(r.ms).toBeLessThan(3_000);
    expect(r.stdout).toContain('KIOKU_AUTOSTART=1');
    expect(r.stderr).toContain(`Kioku is not running for ${dir}; start it with`);
    expect(readRunFile(dir)).toBeUndefined();
    expect(servicesOf(dir)).toEqual([]);
  }, 30_000);

  it('with KIOKU_AUTOSTART=1 it starts one on the configured port, another when that is taken; KIOKU_IDLE_SHUTDOWN stops it', async () => {
    const dir = library();
    const wanted = await freePort();
    const r = await hook(dir, { KIOKU_AUTOSTART: '1', KIOKU_PORT: String(wanted), KIOKU_IDLE_SHUTDOWN: '0.05' });
    expect(r.code).toBe(0);
    const info = readRunFile(dir);
    expect(info).toMatchObject({ url: `http://127.0.0.1:${wanted}`, started_by: 'hook', idle_shutdown_min: 0.05 });
    const status = await runCli(['status', '--data', dir, '--json'], env(dir));
    expect(status.json).toMatchObject({ running: true, started_by: 'hook', idle_shutdown_min: 0.05 });
    // no request for 3 s: it stops itself, and leaves no stop marker (it may be started again)
    const deadline = Date.now() + 20_000;
    while (readRunFile(dir) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
    expect(readRunFile(dir)).toBeUndefined();
    expect(readStopMarker(dir)).toBeUndefined();
    expect(readFileSync(join(dir, 'kioku-serve.log'), 'utf8')).toContain('KIOKU_IDLE_SHUTDOWN');

    // the configured port taken by something else: the started service takes another
    const squatter = createServer().listen(wanted, '127.0.0.1');
    cleanups.push(() => void squatter.close());
    await new Promise((res) => squatter.once('listening', res));
    expect((await hook(dir, { KIOKU_AUTOSTART: '1', KIOKU_PORT: String(wanted) })).code).toBe(0);
    const moved = readRunFile(dir);
    expect(moved?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(moved?.url).not.toBe(`http://127.0.0.1:${wanted}`);
  }, 90_000);
});
