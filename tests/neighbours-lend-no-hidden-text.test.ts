// Neighbours lend each other their words (issue 35): memories written without a session_id, close in
// time in one namespace and replying to each other, share window vectors, and the graph channel walks
// from one to the other. What a caller may not see must lend nothing that way:
// - in an org several members write in one namespace (issue 34), so the memory just before one of
//   bob's may be alice's private one: its words must not find bob's memory for bob, neither through
//   a window vector embedded with her text nor through a graph step from her memory to its neighbour;
// - the graph channel steps from the items naming the query's entities to the items sharing their
//   other entities: only from items the caller sees, else bob's shared memory naming Basel comes
//   back for bob's query naming alice's private words (her memory names both);
// - a forgotten memory's words must not go on finding its former neighbour through the window vector
//   embedded while it was live (forget: recall shows none of it).
//
// Real server on a loopback port, an auth file, the org built through POST /v1/org.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeChanges, acmeTokens } from './support/acme-org.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = { admin: 'admin-token-plainnb-0001', alice: 'alice-token-plainnb-0001', bob: 'bob-token-plainnb-00001' };
type Who = keyof typeof TOKENS;
const T0 = Date.parse('2026-11-02T09:00:00Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const key = (id: string): string => `ev1:team:memory:${id}`;
const DAY = 24 * 60;

let server: TestServer | undefined;
const call = (who: Who, method: string, path: string, body?: unknown) => (server as TestServer).call(method, path, body, TOKENS[who]);
const saved = { gap: process.env['KIOKU_PLAIN_SESSION_GAP_MIN'], graph: process.env['KIOKU_GRAPH_WEIGHT'] };

const write = async (who: Who, id: string, text: string, minutes: number, audience?: unknown): Promise<void> => {
  const memory = { id, kind: 'note', text, occurred_at: at(minutes), ...(audience ? { audience } : {}) };
  const r = await call(who, 'POST', '/v1/memories', { memories: [memory], wait_for_vectors: 30_000 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

beforeAll(async () => {
  // plain neighbours and the graph channel on, whatever the defaults are (both read at open)
  process.env['KIOKU_PLAIN_SESSION_GAP_MIN'] = '30';
  process.env['KIOKU_GRAPH_WEIGHT'] = '0.3';
  server = await startTestServer({ tokens: acmeTokens(TOKENS) });
  for (const change of acmeChanges(['alice', 'bob'], { alice: 'eng', bob: 'sales' })) expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  // alice's private question, then (two minutes later) bob's line: plain neighbours by time and shape
  await write('alice', 'A-secret', 'Is the acquisition target Zephyrion Biotech in Basel?', 0);
  await write('bob', 'B-after', 'Melanie: the quarterly offsite moves to Lisbon in May.', 2);
  // a day later: bob's own question and his own reply (he sees both)
  await write('bob', 'B-ask', 'Is the vendor Quorvanta Logistics still on our list?', DAY);
  await write('bob', 'B-reply', 'Melanie: the budget review is on Thursday.', DAY + 2);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  for (const [name, value] of [
    ['KIOKU_PLAIN_SESSION_GAP_MIN', saved.gap],
    ['KIOKU_GRAPH_WEIGHT', saved.graph],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

interface Rec {
  evidence_key: string;
  why: { lanes: Record<string, number>; lane_hits?: Record<string, { rank: number; score: number }> };
}
/**
 * What found memory `id` for `who`'s query through its neighbours: the graph lane, and a window
 * vector more similar to the query than the memory's own text (a window of its own text alone, as
 * a lone memory's, lends nothing).
 */
const lent = async (who: Who, query: string, id: string): Promise<{ graph: boolean; window: boolean }> => {
  const r = await call(who, 'POST', '/v1/candidates/query', { query, limit: 50 });
  expect(r.status).toBe(200);
  const rec = ((r.body['records'] ?? []) as Rec[]).find((x) => x.evidence_key === key(id));
  const hits = rec?.why.lane_hits ?? {};
  const own = hits['vector:utterance']?.score ?? -Infinity;
  return {
    graph: Object.keys(rec?.why.lanes ?? {}).some((lane) => lane.startsWith('graph:')),
    window: (hits['window:utterance']?.score ?? -Infinity) > own + 1e-6,
  };
};

describe('neighbours lend no text the caller may not see', () => {
  it('bob’s reply is found by the words of his own question before it (window and graph lanes)', async () => {
    expect(await lent('bob', 'Quorvanta Logistics vendor list', 'B-reply')).toEqual({ graph: true, window: true });
  });

  it('bob’s memory is not found through alice’s private one before it: no window holding her text, no graph step from it', async () => {
    // the query shares no word with B-after: a window or graph score for it could only come from A-secret
    expect(await lent('bob', 'Zephyrion Biotech acquisition target Basel', 'B-after')).toEqual({ graph: false, window: false });
  });

  it('the graph channel walks only from what the caller sees: alice’s private memory names Basel, bob’s shared one too', async () => {
    await write('bob', 'B-basel', 'Our Basel office closes for the summer in August.', 3 * DAY, { org: true });
    const query = 'Zephyrion Biotech acquisition';
    // alice sees her memory: the step from it over "basel" to bob's shared memory is hers to take
    expect((await lent('alice', query, 'B-basel')).graph).toBe(true);
    // bob does not: his shared memory must not come back for words only her memory holds
    expect((await lent('bob', query, 'B-basel')).graph).toBe(false);
  });

  it('a forgotten memory’s words stop finding its former neighbour once vectors are brought up to date', async () => {
    await write('alice', 'A-ask', 'Is the Orrinbrook warehouse lease renewed?', 2 * DAY);
    await write('alice', 'A-reply', 'Dana: the parking permits arrive next week.', 2 * DAY + 2);
    const query = 'Orrinbrook warehouse lease renewed';
    expect((await lent('alice', query, 'A-reply')).window).toBe(true);
    expect((await call('alice', 'POST', '/v1/memories/A-ask/forget', {})).status).toBe(200);
    // any later write runs the embedding job (a served library runs it in the background)
    await write('alice', 'A-later', 'The cafeteria closes early on Fridays.', 5 * DAY);
    expect((await lent('alice', query, 'A-reply')).window).toBe(false);
  });
});
