// A log written before recall.performed became compact (v2) must read the same forever. The
// fixture (tests/fixtures/recall-log-v1, made once by its make.ts with the code of 2026-12-03)
// holds a library and a conversation history recorded as v1 events, and the answers that code's
// replay, `report cold`, `report delivery` and usage projection gave. Today's code must give the
// same answers on that log, rebuilt from genesis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openKioku } from '../src/kioku.js';
import { openEventStore } from '../src/log/index.js';
import { readChainFile } from '../src/log/transfer.js';
import { resolvePaths } from '../src/config.js';
import { askRecallLog, fixtureEmbedder, fixtureJudge } from './fixtures/recall-log-v1/turns.js';
import { tempDir } from './helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'recall-log-v1');
const before = JSON.parse(readFileSync(join(FIXTURE, 'answers.json'), 'utf8')) as unknown;
const dir = tempDir('kioku-recall-compat-');
afterAll(() => dir.cleanup());

it('replay, report cold, report delivery and usage answer on a v1 recall log as the code that wrote it did', async () => {
  const log = await openEventStore(resolvePaths({ data: dir.path }));
  const { frames } = await readChainFile(join(FIXTURE, 'chain.kioku'));
  await log.importChain?.(frames);
  await log.close();
  const store = await openKioku({ data: dir.path, embedder: fixtureEmbedder(), judge: fixtureJudge() });
  try {
    expect(store.projections.status().every((s) => s.source === 'genesis')).toBe(true);
    let recalls = 0;
    for await (const _ of store.log.read({ types: ['recall.performed'] })) recalls += 1;
    expect(recalls).toBe(11);
    expect(JSON.parse(JSON.stringify(await askRecallLog(store)))).toEqual(before);
    // the chain is read, never rewritten
    expect((await store.log.verify()).ok).toBe(true);
  } finally {
    await store.close();
  }
});
