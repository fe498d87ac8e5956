// A log written before recall.performed became compact (v2) must read the same forever. The
// fixture (tests/fixtures/recall-log-v1, made once by its make.ts with the code of 2026-12-03)
// holds a library and a conversation history recorded as v1 events, and the answers that code's
// replay, `report cold`, `report delivery` and usage projection gave. Today's code must give the
// same answers on that log, rebuilt from genesis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { compactRecall, recallBackends, recallCandidates, recordedVerdicts, upcast, type EventData } from '../src/events/index.js';
import { decodeBody } from '../src/log/codec.js';
import { openKioku } from '../src/kioku.js';
import { openEventStore } from '../src/log/index.js';
import { readChainFile } from '../src/log/transfer.js';
import { resolvePaths } from '../src/config.js';
import { writeLibrary } from './fixtures/library-v1/library.js';
import { askRecallLog, fixtureEmbedder, fixtureJudge, recordTurns } from './fixtures/recall-log-v1/turns.js';
import { tempDir } from './helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'recall-log-v1');
const before = JSON.parse(readFileSync(join(FIXTURE, 'answers.json'), 'utf8')) as unknown;
const dir = tempDir('kioku-recall-compat-');
afterAll(() => dir.cleanup());

/**
 * The answers read from the recorded events. What replay decides under today's delivery rules
 * (its `rules` echo, `after`, `changed_turns`) moves with those rules, which replay exists to
 * try: it is left out, everything the recorded candidates, verdicts and deliveries say is kept.
 */
function fromTheLog(answers: unknown): unknown {
  const ruleBound = new Set(['rules', 'after', 'changed_turns']);
  // replay lists the span's notices since issue 34; a v1 log holds none, so today's answer has an
  // empty list where the old code had no field (a notice found there would still fail)
  const addedEmpty = (k: string, v: unknown): boolean => k === 'notices' && Array.isArray(v) && v.length === 0;
  return JSON.parse(JSON.stringify(answers), (k, v: unknown) => (ruleBound.has(k) || addedEmpty(k, v) ? undefined : v));
}

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
    expect(fromTheLog(JSON.parse(JSON.stringify(await askRecallLog(store))))).toEqual(fromTheLog(before));
    // the chain is read, never rewritten
    expect((await store.log.verify()).ok).toBe(true);
  } finally {
    await store.close();
  }
});

/** The stored bytes of every recall.performed of a store, and their versions. */
async function recallEvents(
  store: Awaited<ReturnType<typeof openKioku>>,
): Promise<{ bytes: number; versions: number[]; data: EventData<'recall.performed'>[]; verdictBytes: number; verdictVersions: number[] }> {
  const out = { bytes: 0, versions: [] as number[], data: [] as EventData<'recall.performed'>[], verdictBytes: 0, verdictVersions: [] as number[] };
  for await (const r of store.log.read({ types: ['recall.performed', 'verdict.recorded'] })) {
    if (r.type === 'verdict.recorded') {
      out.verdictBytes += r.bytes;
      out.verdictVersions.push(r.v);
      continue;
    }
    out.bytes += r.bytes;
    out.versions.push(r.v);
    out.data.push(r.data as EventData<'recall.performed'>);
  }
  return out;
}

it('the same history recorded today writes compact v2 events, under half the bytes, that replay to the deliveries made', async () => {
  const old = await openKioku({ data: dir.path, embedder: fixtureEmbedder(), judge: fixtureJudge() });
  const v1 = await recallEvents(old).finally(() => old.close());
  const today = tempDir('kioku-recall-v2-');
  const store = await openKioku({ data: today.path, embedder: fixtureEmbedder(), judge: fixtureJudge() });
  try {
    await writeLibrary(store);
    await recordTurns(store);
    const v2 = await recallEvents(store);
    expect(v2.versions).toEqual(v1.versions.map(() => 2));
    expect(v2.bytes).toBeLessThan(v1.bytes / 2);
    expect(v2.verdictVersions).toEqual(v1.verdictVersions.map(() => 2));
    expect(v2.verdictBytes).toBeLessThan(v1.verdictBytes * 0.7);
    // the columns decode and encode back to themselves
    for (const d of v2.data) {
      const again = compactRecall({ prefix: d.key_prefix, candidates: recallCandidates(d), ...(d.backends ? { backends: recallBackends(d) } : {}) });
      expect(again).toEqual(Object.fromEntries(Object.entries(d).filter(([k]) => k in again)));
    }
    // what was recorded is what delivery decided on: replay under today's rules delivers the same
    for (const namespace of ['private', 'team']) {
      const r = await store.replay({ namespace });
      expect(r.totals.turns).toBeGreaterThan(0);
      expect(r.turns.map((t) => t.after)).toEqual(r.turns.map((t) => t.before));
    }
  } finally {
    await store.close();
    today.cleanup();
  }
});

it('every v1 candidate and verdict reads back through the upcasters as it was written (key, layer, score, flags, lanes; fingerprints of judged ones)', async () => {
  const { frames } = await readChainFile(join(FIXTURE, 'chain.kioku'));
  let candidates = 0;
  let verdicts = 0;
  for await (const frame of frames) {
    const raw = decodeBody(frame.body);
    if (raw.type === 'verdict.recorded') {
      expect(raw.v).toBe(1);
      const written = (raw.data as { verdicts: { evidence_key: string; score: number | null }[] }).verdicts;
      expect(recordedVerdicts(upcast(raw).data as EventData<'verdict.recorded'>)).toEqual(written);
      verdicts += written.length;
    }
    if (raw.type !== 'recall.performed') continue;
    expect(raw.v).toBe(1);
    type V1 = { evidence_key: string; layer: string; score: number; lanes: Record<string, { rank: number; score: number }>; fingerprint?: string; flags?: string[] };
    const written = (raw.data as { candidates: V1[] }).candidates;
    const read = recallCandidates(upcast(raw).data as EventData<'recall.performed'>);
    expect(read.map((c) => ({ ...c, flags: Object.keys(c.flags).filter((f) => c.flags[f as keyof typeof c.flags]) }))).toEqual(
      written.map((c) => ({
        evidence_key: c.evidence_key,
        layer: c.layer,
        score: c.score,
        lanes: c.lanes,
        flags: ['returned', 'judged', 'demoted', 'meta'].filter((f) => c.flags?.includes(f)),
        ...(c.fingerprint && c.flags?.includes('judged') ? { fingerprint: c.fingerprint } : {}),
      })),
    );
    candidates += written.length;
  }
  expect(candidates).toBeGreaterThan(100);
  expect(verdicts).toBeGreaterThan(20);
});
