// Attacks on issue 31's new surfaces that found defects (each test failed before its fix).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKiokuServe } from '../tools/commands/stop.js';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
const HASH = 'c'.repeat(64);

const head = async (): Promise<number> => {
  const r = await s.call('GET', '/v1/log/stats');
  expect(r.status).toBe(200);
  return (r.body['head'] as { seq: number }).seq;
};

beforeAll(async () => {
  s = await startTestServer();
  expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'm-kept', kind: 'fact', text: 'the first text' }] })).status).toBe(200);
}, 60_000);
afterAll(async () => s.stop());

describe('POST /v1/import/items: a refused batch writes nothing', () => {
  it('a memory that conflicts with a stored one refuses the batch before its documents are appended', async () => {
    const before = await head();
    const r = await s.call('POST', '/v1/import/items', {
      items: [
        { type: 'card', id: 'c-new', title: 'New card', content_hash: HASH, sections: [{ id: 's1', heading: 'New card', body: 'body of the new card' }] },
        { type: 'memory', id: 'm-kept', kind: 'fact', text: 'another text under the same id' },
      ],
    });
    expect(r.status).toBe(409);
    expect(await head()).toBe(before);
    const cards = await s.call('GET', '/v1/items?layer=card&include_retired=1');
    expect((cards.body['items'] as unknown[]).length).toBe(0);
  });

  it('two lines with one memory id refuse the batch and append nothing', async () => {
    const before = await head();
    const r = await s.call('POST', '/v1/import/items', {
      items: [
        { type: 'wiki', id: 'w-new', title: 'Topic', content_hash: HASH, sections: [{ id: 's1', heading: 'Topic', body: 'a topic body' }] },
        { type: 'memory', id: 'm-twice', kind: 'fact', text: 'one' },
        { type: 'memory', id: 'm-twice', kind: 'fact', text: 'two' },
      ],
    });
    expect(r.status).toBe(400);
    expect(await head()).toBe(before);
  });
});

describe('kioku stop and a run file whose pid another program took', () => {
  it('never signals a process that runs `serve` but is not Kioku (jekyll serve, php artisan serve)', async () => {
    const dir = tempDir().path;
    const victim = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'serve'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      writeFileSync(
        join(dir, 'kioku.run.json'),
        JSON.stringify({ url: 'http://127.0.0.1:9', pid: victim.pid, started_at: '2026-01-01T00:00:00Z', data_dir: dir }),
      );
      const stop = await runCli(['stop', '--data', dir, '--timeout', '2'], { HOME: dir });
      expect(stop.code, stop.stdout).toBe(2);
      expect(stop.stderr).toContain('not a Kioku service');
      expect(victim.exitCode ?? victim.signalCode).toBeNull();
    } finally {
      victim.kill('SIGKILL');
    }
  }, 30_000);

  it('recognises the command lines Kioku services run with', () => {
    expect(isKiokuServe(['node', '/repo/bin/kioku.js', 'serve', '--data', '/d'])).toBe(true);
    expect(isKiokuServe(['node', '--import', 'tsx', '/repo/tools/kioku.ts', 'serve'])).toBe(true);
    expect(isKiokuServe(['node', '/usr/local/bin/kioku', 'serve'])).toBe(true);
    expect(isKiokuServe(['node', '/x/dist/hook.mjs', 'serve', '--data', '/d', '--started-by', 'hook'])).toBe(true);
    expect(isKiokuServe(['ruby', '/usr/bin/jekyll', 'serve', '--source', '/home/me/kioku'])).toBe(false);
    expect(isKiokuServe(['php', 'artisan', 'serve'])).toBe(false);
    expect(isKiokuServe(['node', '/repo/bin/kioku.js', 'status'])).toBe(false);
  });
});
