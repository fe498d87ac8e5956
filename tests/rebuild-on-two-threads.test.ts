// A rebuild folds keyword, records and graph on a worker thread (projections/worker-fold/) while
// the runner folds the rest. What it hands back must be exactly what one thread would have built:
// the same digests, the same snapshot bytes, the same answers, and the same place to go on from;
// a worker that dies costs time, never state; a projection that throws there fails as it would here.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { defaultProjections, type Projection } from '../projections/index.js';
import { readSnapshotFile } from '../projections/snapshot-file.js';
import { foldWorkerScript } from '../projections/worker-fold/index.js';
import { FOLDED_TYPES } from '../src/knowledge/fold.js';
import { openKioku, type OpenKiokuOptions } from '../src/kioku.js';
import type { AppendInput } from '../src/events/index.js';
import { EVENT_TYPES } from '../src/events/index.js';
import { benchEvent } from '../tools/bench/event-mix.js';
import { memoryEvent, tempDir } from './helpers.js';

const ONE_THREAD: OpenKiokuOptions = { foldOnWorkerFrom: Infinity };
const TWO_THREADS: OpenKiokuOptions = { foldOnWorkerFrom: 1 };
const FOLDED_THERE = ['keyword', 'records', 'graph'];

/** the bench's turn mix, with cards, a wiki, supersedes, forgets and removals among it */
function library(): AppendInput[] {
  const events: AppendInput[] = Array.from({ length: 600 }, (_, i) => benchEvent(i));
  const section = (id: string, body: string) => ({ id, heading: id, body });
  events.splice(100, 0, {
    type: 'card.upserted',
    actor: 't',
    data: { id: 'c1', title: 'Billing', content_hash: 'a'.repeat(64), sections: [section('inv', 'Invoices go out on the first.'), section('owner', 'Dana')] },
  });
  events.splice(200, 0, {
    type: 'wiki.upserted',
    actor: 't',
    data: { topic_id: 'w1', title: 'Release runbook', content_hash: 'b'.repeat(64), sections: [section('rollback', 'scripts/rollback.sh then re-apply.')] },
  });
  events.splice(300, 0, { type: 'memory.superseded', actor: 'bench', data: { id: 'm5', by: 'm11' } });
  events.splice(350, 0, { type: 'memory.forgotten', actor: 'bench', data: { id: 'm17' } });
  events.splice(400, 0, { type: 'card.removed', actor: 't', data: { id: 'c1' } });
  events.push(memoryEvent('last', 'the CJK lane: 回滚脚本在 scripts 目录'));
  return events;
}

let dir: ReturnType<typeof tempDir>;
beforeEach(async () => {
  dir = tempDir();
  const store = await openKioku({ data: dir.path, ...ONE_THREAD });
  await store.log.appendAll(library());
  await store.close();
});
afterEach(() => dir.cleanup());

interface Built {
  digests: Record<string, string>;
  status: unknown[];
  states: Record<string, string>;
  hits: unknown;
  /** the graph's answers: items naming an entity, and the namespace's size */
  graph: { naming: string[]; size: number };
  warnings: string[];
}

async function firstSeqOf(type: string, from: number): Promise<number> {
  const store = await openKioku({ data: dir.path, ...ONE_THREAD });
  try {
    for await (const record of store.log.read({ types: [type], from })) return record.seq;
    throw new Error(`no ${type} from ${from}`);
  } finally {
    await store.close();
  }
}

const stateOf = (read: ReturnType<typeof readSnapshotFile>): string => ('state' in read ? Buffer.from(read.state).toString('base64') : 'none');

/** Rebuild every projection with `options`, and take what a later reader would see. */
async function rebuilt(options: OpenKiokuOptions, names?: string[]): Promise<Built> {
  const warnings: string[] = [];
  const store = await openKioku({ data: dir.path, ...options, onWarning: (m) => warnings.push(m) });
  try {
    await store.projections.rebuild(names);
    const snapshots = join(dir.path, 'projections');
    return {
      digests: store.projections.digests(),
      status: store.projections.status(),
      states: Object.fromEntries(FOLDED_THERE.map((name) => [name, stateOf(readSnapshotFile(snapshots, name))])),
      hits: store.projections.views.keyword.search('rollback migration 回滚', { namespaces: ['private', 'team'], limit: 5 }),
      graph: { naming: [...store.projections.views.graph.itemsNaming('private', 'scripts/rollback.sh')].sort(), size: store.projections.views.graph.size('private') },
      warnings,
    };
  } finally {
    await store.close();
  }
}

it('a rebuild on two threads ends in the very state, snapshot bytes and answers of one on one thread', async () => {
  const one = await rebuilt(ONE_THREAD);
  const two = await rebuilt(TWO_THREADS);
  expect(two.warnings).toEqual([]);
  expect(two.digests).toEqual(one.digests);
  expect(two.status).toEqual(one.status);
  expect(two.states).toEqual(one.states);
  expect(two.hits).toEqual(one.hits);
  expect((one.hits as unknown[]).length).toBeGreaterThan(0);
  expect(two.graph).toEqual(one.graph);
  expect(one.graph.naming.length).toBeGreaterThan(10);
  // only the worker's projections: nothing decodes the records here, their types are peeked
  const alone = await rebuilt(TWO_THREADS, FOLDED_THERE);
  expect(alone.warnings).toEqual([]);
  expect(alone.digests).toEqual(one.digests);
  expect(alone.states).toEqual(one.states);
});

it('goes on from a two-thread fold as from a one-thread one: later writes, then a one-thread rebuild of the whole log', async () => {
  // firstOpen: the projections folder is gone, so the open itself folds from genesis (on two threads)
  for (const firstOpen of [false, true]) {
    if (firstOpen) rmSync(join(dir.path, 'projections'), { recursive: true, force: true });
    const store = await openKioku({ data: dir.path, ...TWO_THREADS });
    if (!firstOpen) await store.projections.rebuild();
    expect(store.projections.status().every((s) => s.seq === store.log.head().seq && !s.failed)).toBe(true);
    await store.log.appendAll([memoryEvent(`later-${firstOpen}`, 'rollback drill on Fridays'), { type: 'memory.forgotten', actor: 't', data: { id: 'm23' } }]);
    await store.projections.waitFor(store.log.head().seq);
    const wentOn = store.projections.digests();
    await store.close();
    const reopened = await openKioku({ data: dir.path, ...ONE_THREAD });
    try {
      expect(reopened.projections.digests()).toEqual(wentOn); // its snapshots load
      await reopened.projections.rebuild();
      expect(reopened.projections.digests()).toEqual(wentOn);
    } finally {
      await reopened.close();
    }
  }
});

it('folds on this thread instead when the worker dies, and says so', async () => {
  const one = await rebuilt(ONE_THREAD);
  const dies = await rebuilt({ ...TWO_THREADS, foldWorker: { script: pathToFileURL(join(import.meta.dirname, 'fixtures', 'fold-worker-exits.mjs')) } });
  // the worker's projections in the runner's order (graph joined records and keyword on the worker, issue 35)
  expect(dies.warnings.join('\n')).toMatch(/fold worker stopped: it exited with code 3; folding records, keyword, graph on this thread/);
  expect(dies.digests).toEqual(one.digests);
  expect(dies.states).toEqual(one.states);
  const missing = await rebuilt({ ...TWO_THREADS, foldWorker: { script: pathToFileURL(join(dir.path, 'no-such-worker.mjs')) } });
  expect(missing.warnings.join('\n')).toMatch(/fold worker stopped/);
  expect(missing.digests).toEqual(one.digests);
});

it('a projection that throws on the worker fails where and as it would on this thread', async () => {
  // a record keyword acts on (the worker is never handed the others)
  const failAt = await firstSeqOf('memory.written', 250);
  const source = foldWorkerScript();
  expect(source?.tsx).toBeDefined(); // the tests run from source
  process.env.KIOKU_TEST_KEYWORD_FAILS_AT = String(failAt);
  const { KeywordProjection } = await import('../projections/keyword/index.js');
  const apply = KeywordProjection.prototype.apply;
  try {
    const two = await rebuilt({
      ...TWO_THREADS,
      foldWorker: { ...(source as NonNullable<typeof source>), script: pathToFileURL(join(import.meta.dirname, 'fixtures', 'fold-worker-keyword-throws.ts')) },
    });
    KeywordProjection.prototype.apply = function (this: InstanceType<typeof KeywordProjection>, record) {
      if (record.seq === failAt) throw new Error(`keyword cannot take record ${failAt}`);
      apply.call(this, record);
    };
    const one = await rebuilt(ONE_THREAD);
    const keyword = (b: Built) => b.status.find((s) => (s as { name: string }).name === 'keyword');
    expect(keyword(one)).toMatchObject({ seq: failAt - 1, failed: { code: 'KIOKU_PROJECTION_FAILED', seq: failAt } });
    expect(keyword(two)).toEqual(keyword(one));
    expect(two.digests).toEqual(one.digests);
    expect(two.warnings).toEqual(one.warnings);
  } finally {
    KeywordProjection.prototype.apply = apply;
    delete process.env.KIOKU_TEST_KEYWORD_FAILS_AT;
  }
});

it('the knowledge fold reads only catalog types, and a projection that names its types ignores every other', async () => {
  for (const type of FOLDED_TYPES) expect(EVENT_TYPES).toContain(type);
  const store = await openKioku({ data: dir.path, ...ONE_THREAD });
  try {
    const named = store.projections.names().filter((name) => store.projections.get(name).types);
    expect(named).toEqual(expect.arrayContaining(['keyword', 'records', 'usage']));
    for (const name of named) {
      const fresh = (): Projection => defaultProjections().find((p) => p.name === name) as Projection;
      const [all, only] = [fresh(), fresh()];
      const types = all.types as ReadonlySet<string>;
      for await (const record of store.log.read()) {
        all.apply(record);
        if (types.has(record.type)) only.apply(record);
      }
      expect(only.digest(), name).toBe(all.digest());
    }
  } finally {
    await store.close();
  }
});
