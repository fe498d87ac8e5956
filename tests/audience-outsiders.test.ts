// Callers outside the org (issue 34): a token of the namespace that acts as no member sees no
// member's item — only what has no owner (the namespace's documents and notes) — and, holding
// org:admin, also what is shared with the whole org; the local owner (no token: the CLI or MCP on
// the data dir, a loopback service without an auth file) sees everything. Audience-matrix style:
// every caller × every item × the read paths (recall, candidates, items by entity, list, evidence,
// related, stats), on one real server with an auth file, then the library in process.
//
// Tree: acme ─┬─ eng (alice)   alice writes A-own, A-eng {spaces:[eng]}, A-org {org:true}
//             └─ sales (bob)   the local owner writes S-note: it has no owner (the stranger token, no
//                              member, may not write once an org exists: tests/attack-session4)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { LocalJudge } from '../src/recall/index.js';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = {
  admin: 'admin-token-outsiders-001',
  stranger: 'stranger-token-outsider-1',
  alice: 'alice-token-outsiders-001',
  bob: 'bob-token-outsiders-00001',
};
type Who = keyof typeof TOKENS;
const ITEMS = ['A-own', 'A-eng', 'A-org', 'S-note'] as const;
/** who sees what: the whole matrix */
const SEES: Record<Who, readonly string[]> = {
  alice: ['A-own', 'A-eng', 'A-org', 'S-note'],
  bob: ['A-org', 'S-note'],
  stranger: ['S-note'],
  admin: ['A-org', 'S-note'],
};
const WHO = Object.keys(SEES) as Who[];
const key = (id: string): string => `ev1:team:memory:${id}`;
const ours = (keys: readonly string[]): string[] => [...new Set(keys.filter((k) => ITEMS.some((m) => k === key(m))))].sort();
const expected = (who: Who): string[] => SEES[who].map(key).sort();
const keysOf = (list: unknown, field = 'evidence_key'): string[] => ((list ?? []) as Record<string, string>[]).map((x) => x[field] ?? x['key'] ?? '');

const dir = tempDir();
let server: TestServer | undefined;
const call = (who: Who, method: string, path: string, body?: unknown) => (server as TestServer).call(method, path, body, TOKENS[who]);

beforeAll(async () => {
  // S-note has no owner: the local owner writes it (a token acting as no member may not write in an org)
  const local = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
  try {
    await local.writeMemories({
      namespace: 'team',
      memories: [{ id: 'S-note', kind: 'decision', text: 'The warehouse migration plan S-note: move the cold storage racks on Friday.', entities: ['Warehouse'] }],
    });
  } finally {
    await local.close();
  }
  server = await startTestServer({
    dir: dir.path,
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
        { name: 'stranger', token: TOKENS.stranger, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        { name: 'alice-laptop', token: TOKENS.alice, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        { name: 'bob-laptop', token: TOKENS.bob, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
      ],
    },
  });
  for (const change of [
    { action: 'space_add', space: 'acme' },
    { action: 'space_add', space: 'eng', parent: 'acme' },
    { action: 'space_add', space: 'sales', parent: 'acme' },
    { action: 'member_add', member: 'alice', tokens: ['alice-laptop'] },
    { action: 'member_add', member: 'bob', tokens: ['bob-laptop'] },
    { action: 'member_join', member: 'alice', space: 'eng' },
    { action: 'member_join', member: 'bob', space: 'sales' },
  ])
    expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  const write = (who: Who, id: string, audience?: unknown) =>
    call(who, 'POST', '/v1/memories', {
      memories: [{ id, kind: 'decision', text: `The warehouse migration plan ${id}: move the cold storage racks on Friday.`, entities: ['Warehouse'], ...(audience ? { audience } : {}) }],
    });
  expect((await write('alice', 'A-own')).status).toBe(200);
  expect((await write('alice', 'A-eng', { spaces: ['eng'] })).status).toBe(200);
  expect((await write('alice', 'A-org', { org: true })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  dir.cleanup();
});

describe('callers outside the org, over HTTP', () => {
  const query = { query: 'warehouse migration plan cold storage racks', limit: 50 };
  it.each(WHO)('%s: recall and candidates answer exactly its audience, and count what was kept out', async (who) => {
    for (const path of ['/v1/recall', '/v1/candidates/query']) {
      const r = await call(who, 'POST', path, query);
      expect(r.status).toBe(200);
      expect(ours(keysOf(r.body['records'])), `${who} ${path}`).toEqual(expected(who));
      const filtered = r.body['filtered_counts'] as { by_layer: Record<string, number> };
      expect(filtered.by_layer['memory'] ?? 0, `${who} ${path} filtered`).toBe(ITEMS.length - SEES[who].length);
    }
  });

  it.each(WHO)('%s: items by entity, the list, evidence, related and stats answer exactly its audience', async (who) => {
    const items = await call(who, 'POST', '/v1/items/query', { entity: 'Warehouse', limit: 50 });
    expect(ours(keysOf(items.body['items'], 'key'))).toEqual(expected(who));
    const listed = await call(who, 'GET', '/v1/items?limit=500');
    expect(ours(keysOf(listed.body['items'], 'key'))).toEqual(expected(who));
    for (const m of ITEMS) {
      const seen = SEES[who].includes(m);
      expect((await call(who, 'GET', `/v1/evidence/${encodeURIComponent(key(m))}`)).status, `${who} evidence ${m}`).toBe(seen ? 200 : 404);
      expect((await call(who, 'GET', `/v1/evidence/${encodeURIComponent(key(m))}/related?limit=50`)).status, `${who} related ${m}`).toBe(seen ? 200 : 404);
    }
    const stats = await call(who, 'GET', '/v1/stats');
    expect((stats.body['items'] as { by_layer: Record<string, number> }).by_layer['memory']).toBe(SEES[who].length);
  });

  it('a token acting as no member still may not widen an audience, nor read or send notices', async () => {
    const widened = await call('stranger', 'POST', '/v1/memories', { memories: [{ id: 'S-wide', kind: 'fact', text: 'for everyone', audience: { org: true } }] });
    expect(widened).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_AUDIENCE_REFUSED' } } });
    expect((await call('stranger', 'GET', '/v1/inbox')).status).toBe(403);
  });
});

describe('the local owner (no token), in process', () => {
  it('sees every item of the org: it is the library’s administrator', async () => {
    await (server as TestServer).close();
    server = undefined;
    const k = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
    try {
      const items = await k.items({ namespace: 'team', entity: 'Warehouse', limit: 50 });
      expect(ours(items.items.map((i) => i.key))).toEqual(ITEMS.map(key).sort());
      const recalled = await k.recall({ namespace: 'team', query: 'warehouse migration plan cold storage racks', limit: 50 });
      expect(ours(recalled.records.map((r) => r.evidence_key))).toEqual(ITEMS.map(key).sort());
    } finally {
      await k.close();
    }
  });
});
