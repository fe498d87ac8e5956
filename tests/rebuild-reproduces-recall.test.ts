// Rebuild reproduces answers, not only digests: a store built through the live service
// (memories, turns with answers, the embedding job with its window lane, a restart from
// snapshots, more writes) is copied and rebuilt from genesis; the same questions then get
// identical recall packets — records, scores, verdicts and delivery — from both.
import { cpSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { createEmbedder, type Embedder, type EmbedderKind } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import type { RecallPacket } from '../src/recall/index.js';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const dirs: ReturnType<typeof tempDir>[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

const ROUNDS = Number(process.env['KIOKU_TEST_ROUNDS'] ?? 4);
const QUESTIONS = [
  'who finished the billing migration?',
  'how do we roll back a release?',
  'what did Dana say about the cache?',
  'which database does staging use?',
  'what happened with the checkout outage?',
  'when is the design review?',
];

async function waitIndexed(s: TestServer): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const st = (await s.call('GET', '/v1/ingest/status')).body as { indexing: { running: boolean; pending: number } };
    if (st.indexing.pending === 0 && !st.indexing.running) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the embedding job did not settle in 30 s');
}

async function history(s: TestServer, round: number): Promise<void> {
  await s.call('POST', '/v1/memories', {
    memories: [
      { id: `billing-${round}`, kind: 'event', text: `Dana: I finished the billing migration step ${round} today.`, session_id: `chat-${round}` },
      { id: `cache-${round}`, kind: 'event', text: `Lee: the cache TTL is ${round * 5} minutes now, Dana agreed.`, session_id: `chat-${round}` },
      { id: `staging-${round}`, kind: 'fact', text: `Staging uses the pg-${round} database.` },
      { id: `rollback-${round}`, kind: 'procedure', text: `Roll back release ${round} with scripts/rollback.sh and the previous tag.` },
    ],
  });
  const { session_id } = (await s.call('POST', '/v1/sessions/open', { agent: 'test' })).body as { session_id: string };
  for (const [q, a] of [
    ['the checkout outage happened again, what was it?', 'A bad deploy of the payment service; we rolled back.'],
    ['when is the design review?', 'Thursday at 10.'],
    ['who owns the billing migration?', 'Dana owns it.'],
  ]) {
    const t = (await s.call('POST', '/v1/turns/start', { session_id, query: `${q} (${round})` })).body as { turn_id: string };
    // the embedding job runs between start and completion: the trace is embedded twice (question, then with its answer)
    await new Promise((r) => setTimeout(r, 300));
    await s.call('POST', `/v1/turns/${t.turn_id}/complete`, { answer: a });
  }
}

const stable = (p: RecallPacket) => ({
  records: p.records.map((r) => ({ key: r.evidence_key, score: r.score, rank: r.rank_score, why: r.why })),
  delivery: p.delivery,
  retrieval_mode: p.retrieval_mode,
  backends: p.backends,
  warnings: p.warnings,
});

async function answers(s: TestServer): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUESTIONS) {
    out.push(stable((await s.call('POST', '/v1/candidates/query', { query, limit: 20 })).body as unknown as RecallPacket));
    // a recall with judge and delivery (it appends, the same on both sides)
    out.push(stable((await s.call('POST', '/v1/recall', { query, limit: 20 })).body as unknown as RecallPacket));
  }
  return out;
}

it('gives identical recall packets after a rebuild from genesis as the live store that was built through the service', async () => {
  const live = tempDir();
  const copy = tempDir();
  dirs.push(live, copy);
  // three lives of the service, each ending in snapshots the next one starts from
  for (let life = 0; life < 3; life++) {
    const s = await startTestServer({ dir: live.path, backgroundIndexing: true, ...embedderOption() });
    for (let round = life * ROUNDS + 1; round <= (life + 1) * ROUNDS; round++) await history(s, round);
    await waitIndexed(s);
    await s.close();
  }

  cpSync(live.path, copy.path, { recursive: true });
  const store = await openKioku({ data: copy.path });
  await store.projections.rebuild();
  await store.close();

  const a = await startTestServer({ dir: live.path, backgroundIndexing: false, ...embedderOption() });
  const fromLive = await answers(a);
  await a.close();
  const b = await startTestServer({ dir: copy.path, backgroundIndexing: false, ...embedderOption() });
  const fromRebuild = await answers(b);
  await b.close();
  expect(fromLive.length).toBe(QUESTIONS.length * 2);
  expect((fromLive[0] as { records: unknown[] }).records.length).toBeGreaterThan(5);
  expect(fromRebuild).toEqual(fromLive);
}, 120_000);

/** KIOKU_TEST_EMBEDDER=use-lite runs this with the bundled model (slower; the default is the hashed test embedder). */
function embedderOption(): { embedder?: Embedder } {
  const kind = process.env['KIOKU_TEST_EMBEDDER'];
  return kind ? { embedder: createEmbedder({ kind: kind as EmbedderKind }) } : {};
}
