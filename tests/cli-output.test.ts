// Issue 31, "small things that cost time", through the real CLI and a real `kioku serve`:
// --version; number flags named in their error; the one start-up line the README shows; a
// mistyped namespace reported as such, with nothing appended under it; `last_job` naming the
// job that ran, not the check after it; `kioku recall` showing each delivered item once, with
// its text, and why items beyond --limit were delivered.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, freePort, REPO, runCli, serveProcess, tempDir } from './helpers.js';

const data = tempDir('kioku-cli-output-');
let service: ChildProcess;
let url: string;
const env = { HOME: data.path, KIOKU_EMBEDDER: 'hash' };

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  service = await serveProcess(data.path, port);
  const wiki = join(data.path, 'wiki');
  mkdirSync(wiki);
  for (const n of [1, 2, 3, 4])
    writeFileSync(join(wiki, `release-${n}.md`), `# Release ${n}\n\n## Rollback\n\nTo roll back release ${n} run scripts/rollback.sh v${n}.\n`);
  const imported = await runCli(['import', 'wiki', wiki, '--data', data.path, '--json'], env);
  expect(imported.code, imported.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await new Promise((r) => (service.once('exit', r), service.kill('SIGTERM')));
  data.cleanup();
});

describe('what the CLI prints', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('a number flag that is not one names the flag and what was given', async () => {
    for (const [args, message] of [
      [['recall', 'x', '--limit', 'abc'], "--limit must be a whole number from 1 to 50, got 'abc'"],
      [['recall', 'x', '--limit', '0'], "--limit must be a whole number from 1 to 50, got '0'"],
      [['report', 'cold', '--min-considered', '2.5'], "--min-considered must be a whole number of at least 1, got '2.5'"],
      [['report', 'delivery', '--days', 'week'], "--days must be a number above 0, got 'week'"],
      [['serve', '--port', 'http'], "--port must be a port number 0–65535, got 'http'"],
    ] as const) {
      const r = await runCli([...args, '--data', data.path], env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${message} [KIOKU_USAGE]`);
    }
  }, 60_000);

  it('serve prints one start-up line: URL, data dir, store, auth, head, embedder, pid', async () => {
    const dir = tempDir('kioku-startup-');
    const port = await freePort();
    const child = spawn(process.execPath, [...CLI_ENTRY.installed, 'serve', '--data', dir.path, '--port', String(port)], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KIOKU_EMBEDDER: 'hash' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 30_000;
      while (!out.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300)); // anything printed right after it would show now
      expect(out.split('\n').filter(Boolean)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^kioku: ready, listening on http://127\\.0\\.0\\.1:${port} \\(data ${dir.path}, store leveldb; auth: off \\(loopback, anonymous\\); head 0, embedder hash-ngram-\\d+; pid ${child.pid}\\)$`,
          ),
        ),
      ]);
    } finally {
      await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
      dir.cleanup();
    }
  }, 60_000);

  it('a mistyped namespace is reported as unknown, and its recall appends nothing under it', async () => {
    const r = await runCli(['recall', 'roll back release 2', '--ns', 'privte', '--data', data.path, '--json'], env);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ namespace: 'privte', records: [] });
    expect(r.json?.['warnings']).toContain('unknown_namespace');
    expect(r.json?.['warnings']).not.toContain('records_filtered_by_acl');
    const human = await runCli(['recall', 'roll back release 2', '--ns', 'privte', '--data', data.path], env);
    expect(human.stdout).toContain("unknown_namespace: nothing was ever written in namespace 'privte' (mistyped?)");
    const stats = await runCli(['log', 'stats', '--data', data.path, '--json'], env);
    expect(Object.keys(stats.json?.['by_namespace'] as object)).toEqual(['private']);
  }, 60_000);

  it('/v1/ingest/status last_job reports the job that embedded the import, not the empty check after it', async () => {
    type Status = { indexing: { running: boolean; last_job: { status: string; planned: number; embedded: number } | null } };
    const status = async (): Promise<Status> => (await (await fetch(`${url}/v1/ingest/status`)).json()) as Status;
    const deadline = Date.now() + 20_000;
    while ((await status()).indexing.last_job?.status !== 'succeeded' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // the job's own embedding events wake the indexer once more; that check finds nothing to do
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await status()).indexing).toMatchObject({ running: false, last_job: { status: 'succeeded', planned: 4, embedded: 4 } });
  }, 30_000);

  it('recall shows each delivered item once with its text, and says why it delivered more than --limit lists', async () => {
    const r = await runCli(['recall', 'how do I roll back a release?', '--limit', '1', '--data', data.path], env);
    expect(r.code, r.stderr).toBe(0);
    const json = await runCli(['recall', 'how do I roll back a release?', '--limit', '1', '--data', data.path, '--json'], env);
    const delivery = json.json?.['delivery'] as { evidence_key: string; text: string }[];
    expect(delivery.length).toBeGreaterThan(1);
    for (const d of delivery) {
      expect(r.stdout.split(d.evidence_key).length - 1, d.evidence_key).toBeLessThanOrEqual(2); // once delivered, at most once more as a listed record
      expect(r.stdout).toContain(d.text.split('\n').at(-1) as string);
    }
    expect(r.stdout).toMatch(/rank below the 1 record\(s\) --limit 1 lists: delivery chooses from every judged candidate/);
    expect(r.stdout).toMatch(/records \(top 1 by score; \* = delivered above\):\n 1\. \* ev1:private:wiki:/);
  }, 60_000);
});
