// Plain memories close in time get window vectors under one rule (plain_session_gap_min,
// KIOKU_PLAIN_SESSION_GAP_MIN) whichever door embeds them: `kioku reembed` and `kioku import` (the
// CLI's embedding) embedded with no gap at all. And when the gap is turned off, a window embedded
// under the old rule is embedded again from the memory's own text: it no longer lends a neighbour's words.
import { afterAll, expect, it } from 'vitest';
import { openKioku } from '../src/kioku.js';
import { fingerprint } from '../src/knowledge/evidence.js';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir('kioku-plain-gap-');
afterAll(() => dir.cleanup());

// a question and its answer, five minutes apart: neighbours under the plain-memory rule (projections/graph.ts plainNeighbours)
const A = 'Ann: where did the staging database move to?';
const B = 'Bo: to pg-two, on Monday; its backups run nightly at three.';

async function windows(): Promise<Record<string, string | undefined>> {
  const store = await openKioku({ data: dir.path, createIfMissing: false });
  try {
    const vectors = store.projections.views.vector;
    const id = vectors.laneIds().find((l) => l.startsWith('window@'));
    const lane = id ? vectors.lane('window', id.slice('window@'.length)) : undefined;
    return { a: lane?.fingerprintOf('ev1:private:memory:a'), b: lane?.fingerprintOf('ev1:private:memory:b') };
  } finally {
    await store.close();
  }
}

it('kioku reembed gives plain memories close in time their window vectors, and re-embeds them alone once the gap is 0', async () => {
  const store = await openKioku({ data: dir.path });
  await store.knowledge.writeMemories({
    memories: [
      { id: 'a', kind: 'fact', text: A, occurred_at: '2026-12-01T10:00:00Z' },
      { id: 'b', kind: 'fact', text: B, occurred_at: '2026-12-01T10:05:00Z' },
    ],
  });
  await store.close();

  const env = { KIOKU_EMBEDDER: 'hash', KIOKU_DATA_DIR: dir.path };
  const first = await runCli(['reembed', '--json'], env, 'installed');
  expect(first.code, first.stderr).toBe(0);
  // the default gap (30 min): each window holds both memories, as the server embeds them
  expect(await windows()).toEqual({ a: fingerprint(`${A}\n${B}`), b: fingerprint(`${A}\n${B}`) });

  const off = await runCli(['reembed', '--json'], { ...env, KIOKU_PLAIN_SESSION_GAP_MIN: '0' }, 'installed');
  expect(off.code, off.stderr).toBe(0);
  expect(await windows()).toEqual({ a: fingerprint(A), b: fingerprint(B) });
}, 120_000);
