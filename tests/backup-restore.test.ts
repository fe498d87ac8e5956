// Backup (issue 31): `kioku backup DIR` of a live library while writers write through HTTP is a
// consistent, verified copy (the chain up to a head every projection stood at, their digests
// there); `kioku restore DIR --data NEW` makes a library that verifies and whose rebuilt
// projections have the same digests. A restore never goes over an existing library.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
const target = tempDir();
const backups = tempDir();

beforeAll(async () => {
  s = await startTestServer();
  const memories = Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, kind: 'fact', text: `fact ${i} about the release train`, tags: [`t${i % 5}`] }));
  expect((await s.call('POST', '/v1/memories', { memories })).status).toBe(200);
  const { body: session } = await s.call('POST', '/v1/sessions/open', { agent: 'test' });
  const { body: turn } = await s.call('POST', '/v1/turns/start', { session_id: session['session_id'], query: 'what about the release train?' });
  await s.call('POST', `/v1/turns/${String(turn['turn_id'])}/complete`, { answer: 'fact 3.' });
  expect((await runCli(['verify', '--data', s.dir, '--write-anchor'])).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await s.stop();
  target.cleanup();
  backups.cleanup();
});

describe('backup while writing, restore', () => {
  it('restores a library that verifies, with the projection digests of the original at the backup head', async () => {
    let stop = false;
    const refused: number[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const r = await s.call('POST', '/v1/memories', { memories: [{ id: `w${w}-${i}`, kind: 'fact', text: `writer ${w} fact ${i}`, tags: ['live'] }] });
        if (r.status !== 200) refused.push(r.status);
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    const dir = join(backups.path, 'b1');
    let backup;
    try {
      backup = await runCli(['backup', dir, '--data', s.dir, '--live-digests', '--json']);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(refused).toEqual([]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(String(backup.json?.['via'])).toMatch(/http:/);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      head: { seq: number; hash: string };
      digests: Record<string, string>;
      live_digests: Record<string, string>;
      anchors?: string;
    };
    expect(manifest.anchors).toBe('anchors.jsonl');
    // the service's own projections at the backup head: what the backup's chain folds to
    expect(manifest.live_digests).toEqual(manifest.digests);
    // the original went on writing after the backup's head
    const head = (await s.call('GET', '/v1/log/stats')).body['head'] as { seq: number };
    expect(head.seq).toBeGreaterThan(manifest.head.seq);
    // the backup head is the original's record there
    expect((await s.call('GET', `/v1/log/records/${manifest.head.seq}`)).body['hash']).toBe(manifest.head.hash);

    const restored = await runCli(['restore', dir, '--data', target.path, '--json']);
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    expect(restored.json).toMatchObject({ ok: true, verified: true, digests_equal: true, differing: [], head: manifest.head });
    expect(restored.json?.['digests']).toEqual(manifest.digests);
    expect(Object.keys(manifest.digests).length).toBeGreaterThan(3);

    const verify = await runCli(['verify', '--data', target.path, '--json']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.json).toMatchObject({ ok: true, head: manifest.head, anchors: { checked: 1, trusted_key: true } });
  }, 180_000);

  it('without --live-digests the service never pauses: the backup folds its own chain to check it restores', async () => {
    const dir = join(backups.path, 'b2');
    const backup = await runCli(['backup', dir, '--data', s.dir, '--json']);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.json?.['live_digests']).toBeUndefined();
    const restored = await runCli(['restore', dir, '--data', join(target.path, 'second'), '--json']);
    expect(restored.json).toMatchObject({ ok: true, digests_equal: true });
  }, 120_000);

  it('refuses a non-empty backup dir, a restore over a library, and a damaged backup', async () => {
    expect((await runCli(['backup', backups.path, '--data', s.dir])).code).toBe(2);
    // a file where the backup dir should be is a usage error naming it, never KIOKU_INTERNAL
    const file = join(backups.path, 'b1', 'manifest.json');
    expect(existsSync(file)).toBe(true);
    const onFile = await runCli(['backup', file, '--data', s.dir]);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toContain('is not a directory');
    const into = await runCli(['restore', join(backups.path, 'b1'), '--data', target.path, '--json']);
    expect(into.json).toMatchObject({ ok: false, error: { code: 'KIOKU_BACKUP_INVALID' } });
    const none = await runCli(['restore', target.path, '--data', join(target.path, 'x'), '--json']);
    expect(none.json).toMatchObject({ ok: false, error: { code: 'KIOKU_BACKUP_INVALID' } });
    expect(existsSync(join(target.path, 'x', 'log'))).toBe(false);
  }, 60_000);
});
