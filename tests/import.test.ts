// `kioku import`: idempotent — unchanged files append nothing, a changed file one
// upsert, a deleted file a removal only with --prune; a summary names errors by file.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importDirectory } from '../src/knowledge/index.js';
import { memoryStore, runCli, tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
let store: Awaited<ReturnType<typeof memoryStore>>;
beforeEach(async () => {
  dir = tempDir();
  store = await memoryStore();
  mkdirSync(join(dir.path, 'cards', 'ops'), { recursive: true });
  writeFileSync(join(dir.path, 'cards', 'ops', 'rollback.md'), '# Rollback\n\n## 1. Steps\nRun scripts/rollback.sh\n\n## 2. Claim grade\nA\n');
  writeFileSync(join(dir.path, 'cards', 'billing.md'), '---\nid: billing-v2\n---\n# Billing\n\n## 1. Rule\n发票每月一号开出。\n');
  writeFileSync(join(dir.path, 'cards', 'notes.txt'), 'not markdown, ignored');
});
afterEach(async () => {
  await store.close();
  dir.cleanup();
});

const run = (prune = false) => importDirectory(store.knowledge, store.projections.views.records, { kind: 'cards', dir: join(dir.path, 'cards'), prune });

it('adds new files, then appends nothing when nothing changed', async () => {
  const first = await run();
  expect(first).toMatchObject({ files: 2, added: ['billing-v2', 'ops/rollback'], changed: [], unchanged: 0, errors: [] });
  const head = store.log.head().seq;
  const second = await run();
  expect(second).toMatchObject({ added: [], changed: [], unchanged: 2, removed: [] });
  expect(store.log.head().seq).toBe(head);
});

it('appends exactly one upsert for a changed file', async () => {
  await run();
  const head = store.log.head().seq;
  writeFileSync(join(dir.path, 'cards', 'billing.md'), '---\nid: billing-v2\n---\n# Billing\n\n## 1. Rule\n发票每月五号开出。\n');
  expect(await run()).toMatchObject({ changed: ['billing-v2'], unchanged: 1 });
  expect(store.log.head().seq).toBe(head + 1);
});

it('removes a deleted file only with --prune', async () => {
  await run();
  rmSync(join(dir.path, 'cards', 'ops', 'rollback.md'));
  const kept = await run();
  expect(kept).toMatchObject({ removed: [], missing_not_pruned: ['ops/rollback'] });
  expect(store.projections.views.records.document('private', 'card', 'ops/rollback')[0]?.status).toBe('active');
  const pruned = await run(true);
  expect(pruned).toMatchObject({ removed: ['ops/rollback'] });
  expect(store.projections.views.records.document('private', 'card', 'ops/rollback')[0]?.status).toBe('removed');
});

it('reports a broken file by name and imports the rest', async () => {
  writeFileSync(join(dir.path, 'cards', 'broken.md'), '---\nid: [unclosed\n---\nbody');
  const summary = await run();
  expect(summary.added).toEqual(['billing-v2', 'ops/rollback']);
  expect(summary.errors).toEqual([{ file: 'broken.md', message: expect.stringMatching(/front matter/) }]);
});

it('imports daily notes by the date in the file name or front matter', async () => {
  mkdirSync(join(dir.path, 'notes'));
  writeFileSync(join(dir.path, 'notes', '2026-11-28.md'), '## Morning\nShipped.');
  writeFileSync(join(dir.path, 'notes', 'friday.md'), '---\ndate: 2026-11-27\n---\n## Evening\nPlanned.');
  writeFileSync(join(dir.path, 'notes', 'undated.md'), 'no date');
  const summary = await importDirectory(store.knowledge, store.projections.views.records, { kind: 'notes', dir: join(dir.path, 'notes') });
  expect(summary.added.sort()).toEqual(['2026-11-27', '2026-11-28']);
  expect(summary.errors).toEqual([{ file: 'undated.md', message: expect.stringMatching(/needs a date/) }]);
});

it('runs from the CLI with a summary and JSON, idempotently', async () => {
  const data = join(dir.path, 'data');
  const first = await runCli(['import', 'cards', join(dir.path, 'cards'), '--data', data, '--no-embed', '--json']);
  expect(first.code).toBe(0);
  expect(first.json).toMatchObject({ ok: true, added: ['billing-v2', 'ops/rollback'], embedding: null });
  const again = await runCli(['import', 'cards', join(dir.path, 'cards'), '--data', data, '--no-embed']);
  expect(again.stdout).toMatch(/added 0, changed 0, unchanged 2, removed 0, errors 0/);
  const bad = await runCli(['import', 'pictures', dir.path, '--data', data]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/cards, wiki, notes/);
});

it('embeds after importing with the configured embedder', async () => {
  const data = join(dir.path, 'data2');
  const r = await runCli(['import', 'cards', join(dir.path, 'cards'), '--data', data, '--json'], { KIOKU_EMBEDDER: 'hash' });
  // three card sections; billing's rule is mainly Chinese but the hashed embedder reads CJK
  expect(r.json).toMatchObject({ embedding: { status: 'succeeded', model: 'hash-ngram-64', embedded: 3 } });
  const re = await runCli(['reembed', '--model', 'hash', '--data', data, '--json']);
  expect(re.json).toMatchObject({ status: 'idle' });
});
