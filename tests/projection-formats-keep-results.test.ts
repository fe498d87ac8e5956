// A change of projection or snapshot format must not change answers. The fixture
// (tests/fixtures/library-v1, made once by its make.ts with the code of 2026-12-01) holds a
// library's log, the snapshots that code wrote and the answers it gave. Here the same
// questions are asked of: the old snapshots loaded by today's code, a rebuild from the old
// log, and today's snapshots reloaded — every answer must equal the stored one. One rule changed
// since: a search of one namespace scores BM25 over that namespace's own statistics (issue 29
// item 10), so `textPrivateMemories` holds today's scores (same keys, same order); every other
// answer is still the old code's. And since issue 33 a forgotten item keeps only its tombstone
// (no title, text, terms or fingerprints; `forgottenToday`), so records v1 snapshots, which may
// hold such text, are refolded from the log like turns v1. Keyword v1 snapshots too (issue 30: tokens
// now hold an identifier's words), though this library's answers are the same (it has none).
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openKioku } from '../src/kioku.js';
import { openEventStore } from '../src/log/index.js';
import { readChainFile } from '../src/log/transfer.js';
import { readSnapshotFile, unpackState, type SnapshotFile } from '../projections/snapshot-file.js';
import { resolvePaths } from '../src/config.js';
import { askLibrary } from './fixtures/library-v1/library.js';
import { tempDir } from './helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'library-v1');
/** A forgotten item as records answer it since issue 33: its tombstone (when, by whom), no text left. */
function forgottenToday(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forgottenToday);
  if (!value || typeof value !== 'object') return value;
  const entry = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forgottenToday(v)]));
  if (entry['status'] !== 'forgotten' || typeof entry['key'] !== 'string') return entry;
  const { fingerprint: _gone, ...kept } = entry;
  return {
    ...kept,
    title: '',
    text: '',
    terms: [],
    content_fp: '',
    ...('heading' in entry ? { heading: '' } : {}),
    tombstone: { at: expect.any(String), by: 'fixture' },
  };
}
const before = forgottenToday(JSON.parse(readFileSync(join(FIXTURE, 'answers.json'), 'utf8')) as unknown);
const dirs: ReturnType<typeof tempDir>[] = [];
const SNAPSHOTS_IN_FIXTURE = new Set(['delivered', 'jobs', 'keyword', 'records', 'stats', 'turns', 'usage', 'vector']);
const REFOLDED = { has: (name: string): boolean => ['turns', 'records', 'keyword', 'delivered'].includes(name) || !SNAPSHOTS_IN_FIXTURE.has(name) };
afterAll(() => dirs.forEach((d) => d.cleanup()));

async function oldLibrary(withSnapshots: boolean): Promise<string> {
  const dir = tempDir('kioku-formats-');
  dirs.push(dir);
  const log = await openEventStore(resolvePaths({ data: dir.path }));
  const { frames } = await readChainFile(join(FIXTURE, 'chain.kioku'));
  await log.importChain?.(frames);
  await log.close();
  if (withSnapshots) cpSync(join(FIXTURE, 'projections'), join(dir.path, 'projections'), { recursive: true });
  return dir.path;
}

it('snapshots written by the old code load, and answer as the old code did', async () => {
  const data = await oldLibrary(true);
  const store = await openKioku({ data });
  try {
    // turns v2 files sessions by namespace and id (issue 29 item 10), records v2 keeps no text of a forgotten item
    // (issue 33), keyword v2 tokenizes identifiers' words (issue 30), delivered v2 keys sessions by namespace (issue 35's
    // turn windows): their v1 snapshots are discarded and refolded from the log; projections added since (access,
    // graph, lifecycle, notices, org) had no snapshot then and fold from genesis
    for (const s of store.projections.status())
      expect({ name: s.name, source: s.source }).toEqual({ name: s.name, source: REFOLDED.has(s.name) ? 'genesis' : 'snapshot' });
    expect(await askLibrary(store)).toEqual(before);
    // and hold the same state as a rebuild from the log
    const loaded = store.projections.digests();
    await store.projections.rebuild();
    expect(store.projections.digests()).toEqual(loaded);
  } finally {
    await store.close();
  }
});

it('an older snapshot format is written again in the current one when the store closes', async () => {
  const data = await oldLibrary(true);
  const old = readSnapshotFile(join(data, 'projections'), 'keyword') as SnapshotFile;
  expect(old.encoding).toBeUndefined();
  const store = await openKioku({ data });
  await store.close(); // no new events: only the older formats are rewritten
  for (const name of ['keyword', 'vector', 'records']) {
    const snap = readSnapshotFile(join(data, 'projections'), name) as SnapshotFile;
    expect(snap.encoding).toBe('msgpack-records');
  }
  const formatOf = (name: string): number | undefined =>
    (unpackState(readSnapshotFile(join(data, 'projections'), name) as SnapshotFile) as { format?: number }).format;
  expect({ keyword: formatOf('keyword'), records: formatOf('records') }).toEqual({ keyword: 2, records: 3 });
  const again = await openKioku({ data });
  try {
    expect(await askLibrary(again)).toEqual(before);
  } finally {
    await again.close();
  }
});

it('the old log rebuilt from genesis answers as before; its new snapshots reload to the same answers and digests', async () => {
  const data = await oldLibrary(false);
  let store = await openKioku({ data });
  expect(store.projections.status().every((s) => s.source === 'genesis')).toBe(true);
  expect(await askLibrary(store)).toEqual(before);
  const rebuilt = store.projections.digests();
  await store.close(); // writes today's snapshot formats
  store = await openKioku({ data });
  try {
    expect(store.projections.status().every((s) => s.source === 'snapshot')).toBe(true);
    expect(await askLibrary(store)).toEqual(before);
    expect(store.projections.digests()).toEqual(rebuilt);
  } finally {
    await store.close();
  }
});
