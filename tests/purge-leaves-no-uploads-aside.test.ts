// A namespace purge renames the uploads folder aside (.purged-<ns>-<random>) and then deletes it a
// few entries at a time (b81e29b). A service that dies meanwhile, or a file that refuses, left that
// folder behind, and nothing else ever looked at it: the purged namespace's bytes stayed on disk for
// good. Such folders go when the service starts, and with the next namespace purge.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const dir = tempDir('kioku-purged-aside-');
let s: TestServer | undefined;
afterAll(async () => {
  await s?.close();
  dir.cleanup();
});

/** A folder as a purge that died half-way leaves it, with bytes in it. */
function leftAside(name: string): string {
  const aside = join(dir.path, 'assets', name);
  mkdirSync(join(aside, 'a1'), { recursive: true });
  writeFileSync(join(aside, 'a1', 'runbook.txt'), 'the purged tenant runbook');
  return aside;
}

async function until(done: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
}

it('a service that starts deletes the uploads a purge left aside, and keeps the live ones', async () => {
  const aside = leftAside('.purged-private-0123456789ab');
  mkdirSync(join(dir.path, 'assets', 'other'), { recursive: true });
  writeFileSync(join(dir.path, 'assets', 'other', 'kept.txt'), 'a live upload');
  s = await startTestServer({ dir: dir.path });
  await until(() => !existsSync(aside));
  expect(existsSync(aside)).toBe(false);
  expect(existsSync(join(dir.path, 'assets', 'other', 'kept.txt'))).toBe(true);
});

it('a namespace purge also deletes what an earlier purge left aside', async () => {
  const up = await s!.call('POST', '/v1/assets', { content: 'the runbook for the staging database', name: 'runbook.txt', description: 'staging runbook' });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  const aside = leftAside('.purged-private-ba9876543210');
  const r = await s!.call('POST', '/v1/purge', { scope: 'namespace', reason: 'tenant left' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(existsSync(aside)).toBe(false);
  expect(readdirSync(join(dir.path, 'assets')).sort()).toEqual(['other']);
});

it('two namespace purges at once both answer while each deletes what is left aside', async () => {
  for (const ns of ['alpha', 'beta']) {
    const up = await s!.call('POST', '/v1/assets', { namespace: ns, content: `the ${ns} runbook`, name: 'runbook.txt', description: 'runbook' });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
  }
  const aside = leftAside('.purged-gamma-00aa00aa00aa');
  for (let i = 0; i < 40; i++) {
    mkdirSync(join(aside, `d${i}`), { recursive: true });
    for (let j = 0; j < 50; j++) writeFileSync(join(aside, `d${i}`, `f${j}`), 'x');
  }
  const answers = await Promise.all(['alpha', 'beta'].map((ns) => s!.call('POST', '/v1/purge', { namespace: ns, scope: 'namespace', reason: 'tenant left' })));
  for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(readdirSync(join(dir.path, 'assets')).sort()).toEqual(['other']);
});
