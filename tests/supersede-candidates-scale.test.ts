// Supersede candidates are looked up through the memories that share a term, rarest term
// first and with a bounded number of memories visited: a term thousands of memories carry
// must not make every write scan the library (it did: writes slowed as the library grew),
// and a candidate found through a rare term is still found.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SUPERSEDE_SCAN } from '../projections/records/index.js';
import { memoryStore } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
const COMMON = SUPERSEDE_SCAN * 3;

beforeAll(async () => {
  store = await memoryStore();
  for (let i = 0; i < COMMON; i += 500)
    await store.knowledge.writeMemories({
      memories: Array.from({ length: 500 }, (_, j) => ({
        id: `d${i + j}`,
        kind: 'fact' as const,
        text: `Deploy note ${i + j}.`,
        terms: ['deploy', `n${i + j}`],
      })),
    });
  await store.knowledge.writeMemories({ memories: [{ id: 'rare-old', kind: 'fact', text: 'Staging needs the VPN.', terms: ['vpn'] }] });
}, 60_000);
afterAll(() => store.close());

it('finds a candidate through a rare term however common the other term is', async () => {
  const r = await store.knowledge.writeMemories({
    memories: [{ id: 'rare-new', kind: 'fact', text: 'Staging no longer needs the VPN.', terms: ['deploy', 'vpn'] }],
  });
  expect(r.supersede_candidates['rare-new']).toContainEqual({ id: 'rare-old', overlap: 0.5 });
});

it('visits at most SUPERSEDE_SCAN memories for a term the whole library carries', () => {
  const records = store.projections.views.records;
  const found = records.supersedeCandidates('private', ['deploy', 'n5']);
  expect(found.map((c) => c.id)).toContain('d5'); // the rarer term is scanned first
  expect(found.length).toBeLessThanOrEqual(SUPERSEDE_SCAN);
});
