// Issue 31: with the default library served on one port and a second on another, `kioku import
// wiki DIR --data d2` wrote into the default library, and `report delivery` / `replay` read it.
// Three libraries side by side — the default one (~/.kioku), A and B — each served by its own
// `kioku serve` process on its own port; every CLI command that reads or writes runs against A
// and B (import, import jsonl, recall, report delivery, report cold, replay, log stats, verify,
// status, list, export), naming the library once with --data and once with KIOKU_DATA_DIR, and the effect must
// land in (or the answer come from) that library and no other. The CLI and the services run as installed
// (bin/kioku.js → dist/): ~60 processes, each spared tsx's start-up.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFile } from '../src/run-file.js';
import { freePort, runCli, serveProcess, tempDir } from './helpers.js';

const home = tempDir('kioku-two-libs-');
const dirs = { default: join(home.path, '.kioku'), a: join(home.path, 'lib-a'), b: join(home.path, 'lib-b') };
type Lib = keyof typeof dirs;
const services: ChildProcess[] = [];
const url = (lib: Lib): string => readRunFile(dirs[lib])?.url as string;

async function call(lib: Lib, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${url(lib)}${path}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  return (await r.json()) as Record<string, unknown>;
}

/** Completed turns: the default library 0, A 1, B 2 — the reports tell the libraries apart by them. */
async function turns(lib: Lib, n: number): Promise<void> {
  const { session_id } = (await call(lib, 'POST', '/v1/sessions/open', { agent: 'test' })) as { session_id: string };
  for (let i = 0; i < n; i++) {
    const turn = await call(lib, 'POST', '/v1/turns/start', { session_id, query: `how is ${lib} library turn ${i} going?` });
    await call(lib, 'POST', `/v1/turns/${String(turn['turn_id'])}/complete`, { answer: `Turn ${i} of library ${lib} went fine.` });
  }
}

/** The CLI with HOME at the temp home (so ~/.kioku is the default library), naming `lib` by flag or by environment. */
function cli(lib: 'a' | 'b', how: 'flag' | 'env', args: string[]): ReturnType<typeof runCli> {
  const env = { HOME: home.path, KIOKU_EMBEDDER: 'hash', ...(how === 'env' ? { KIOKU_DATA_DIR: dirs[lib] } : {}) };
  return runCli([...args, ...(how === 'flag' ? ['--data', dirs[lib]] : [])], env, 'installed');
}

beforeAll(async () => {
  for (const lib of Object.keys(dirs) as Lib[]) {
    mkdirSync(dirs[lib], { recursive: true });
    services.push(await serveProcess(dirs[lib], await freePort(), [], {}, 'installed'));
  }
  await turns('a', 1);
  await turns('b', 2);
}, 90_000);

afterAll(async () => {
  await Promise.all(services.map((s) => new Promise((r) => (s.once('exit', r), s.kill('SIGTERM')))));
  home.cleanup();
});

describe('two libraries, each with its own service', () => {
  const cases = (['a', 'b'] as const).flatMap((lib) => (['flag', 'env'] as const).map((how) => [lib, how] as const));

  it.each(cases)(
    'library %s named by %s: every command reaches that library and no other',
    async (lib, how) => {
      const id = `doc-${lib}-${how}`;
      const wiki = join(home.path, `wiki-${lib}-${how}`);
      mkdirSync(wiki, { recursive: true });
      writeFileSync(join(wiki, `${id}.md`), `# Zebra ${id}\n\n## Crossing\n\nThe zebra ${id} crosses the river at dawn.\n`);

      // a write: import through the service that owns the library
      const imported = await cli(lib, how, ['import', 'wiki', wiki, '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.json).toMatchObject({ added: [id], via: url(lib) });
      const key = `ev1:private:wiki:${id}#crossing`;
      for (const other of Object.keys(dirs) as Lib[]) {
        const found = await fetch(`${url(other)}/v1/evidence/${encodeURIComponent(key)}`);
        expect(found.status, `${key} in ${other}`).toBe(other === lib ? 200 : 404);
      }

      // a memory write: a jsonl line, as kioku export writes them
      const memoryId = `mem-${lib}-${how}`;
      const lines = join(home.path, `${memoryId}.jsonl`);
      writeFileSync(lines, `${JSON.stringify({ type: 'memory', id: memoryId, kind: 'fact', text: `The zebra of ${lib} ${how} is striped.` })}\n`);
      const wrote = await cli(lib, how, ['import', 'jsonl', lines, '--json']);
      expect(wrote.code, wrote.stderr).toBe(0);
      for (const other of Object.keys(dirs) as Lib[]) {
        const found = await fetch(`${url(other)}/v1/evidence/${encodeURIComponent(`ev1:private:memory:${memoryId}`)}`);
        expect(found.status, `${memoryId} in ${other}`).toBe(other === lib ? 200 : 404);
      }

      // reads, each answered by the library's own service
      const [recall, delivery, replay, cold, stats, verify, status, list, exported] = await Promise.all([
        cli(lib, how, ['recall', `zebra ${id} crossing`, '--json']),
        cli(lib, how, ['report', 'delivery', '--json']),
        cli(lib, how, ['replay', '--json']),
        cli(lib, how, ['report', 'cold', '--min-considered', '1', '--json']),
        cli(lib, how, ['log', 'stats', '--json']),
        cli(lib, how, ['verify', '--json']),
        cli(lib, how, ['status', '--json']),
        cli(lib, how, ['list', '--layer', 'wiki', '--json']),
        cli(lib, how, ['export', '--format', 'jsonl']),
      ]);
      for (const r of [recall, delivery, replay, cold, stats, verify, status, list, exported]) expect(r.code, r.stderr).toBe(0);
      const listed = JSON.stringify(list.json);
      expect(listed).toContain(id);
      expect(listed).not.toContain(`doc-${lib === 'a' ? 'b' : 'a'}-`);
      expect(exported.stdout).toContain(memoryId);
      expect(exported.stdout).not.toContain(`mem-${lib === 'a' ? 'b' : 'a'}-`);
      expect((recall.json?.['records'] as { evidence_key: string }[]).map((r) => r.evidence_key)).toContain(key);
      expect(recall.stdout).not.toContain('from the store'); // the service holds it
      const expectedTurns = lib === 'a' ? 1 : 2;
      expect(delivery.json).toMatchObject({ turns: expectedTurns });
      expect(replay.json).toMatchObject({ totals: { turns: expectedTurns } });
      expect((replay.json?.['turns'] as { query: string }[]).every((t) => t.query.includes(`${lib} library`))).toBe(true);
      expect((cold.json?.['items'] as { key: string }[]).every((i) => !i.key.includes(lib === 'a' ? 'doc-b' : 'doc-a'))).toBe(true);
      const health = (await call(lib, 'GET', '/v1/health')) as { head: { seq: number } };
      expect((stats.json as { head: { seq: number } }).head.seq).toBeLessThanOrEqual(health.head.seq);
      expect((stats.json as { head: { seq: number } }).head.seq).toBeGreaterThan(0);
      expect(verify.json).toMatchObject({ ok: true });
      expect(status.json).toMatchObject({ running: true, answers: true, url: url(lib), data_dir: dirs[lib], started_by: 'user' });
    },
    120_000,
  );

  it('the default library is untouched by commands that named another', async () => {
    const stats = (await call('default', 'GET', '/v1/stats')) as { items: { by_layer: Record<string, number> } };
    expect(stats.items.by_layer['wiki'] ?? 0).toBe(0);
    const delivery = await runCli(['report', 'delivery', '--json'], { HOME: home.path }, 'installed');
    expect(delivery.json).toMatchObject({ turns: 0 });
  }, 60_000);

  it('--data beats KIOKU_URL, and KIOKU_URL beats KIOKU_DATA_DIR (the documented order)', async () => {
    const byFlag = await runCli(['status', '--json', '--data', dirs.a], { HOME: home.path, KIOKU_URL: url('b') }, 'installed');
    expect(byFlag.json).toMatchObject({ url: url('a'), source: 'run file' });
    const byEnv = await runCli(['status', '--json'], { HOME: home.path, KIOKU_URL: url('b'), KIOKU_DATA_DIR: dirs.a }, 'installed');
    expect(byEnv.json).toMatchObject({ url: url('b'), source: 'KIOKU_URL' });
    // KIOKU_PORT never chooses the library: with --data b, the port of A is ignored
    const port = new URL(url('a')).port;
    const recall = await runCli(['report', 'delivery', '--json', '--data', dirs.b], { HOME: home.path, KIOKU_PORT: port }, 'installed');
    expect(recall.json).toMatchObject({ turns: 2 });
  }, 60_000);
});
