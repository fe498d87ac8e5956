// Notices in replay (issue 34): `POST /v1/replay` and `kioku replay` show the notice events of the
// replayed span (sent, arrived, acked), each member only those it is party to (the sender every
// recipient's arrival and sign-off, a recipient the sending and its own), a token acting as no
// member none; a replayed turn names the notices about the items it delivered. One real server
// (one LevelDB library, an auth file), the CLI as a child process through it and then in process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = {
  admin: 'admin-token-replay-00001',
  alice: 'alice-token-replay-00001',
  bob: 'bob-token-replay-000001',
  carol: 'carol-token-replay-00001',
  stranger: 'stranger-token-replay-01',
};
type Who = keyof typeof TOKENS;
const MEMORY = 'The billing cutover ships in three stages, starting with the invoices service.';
const KEY = 'ev1:team:memory:cutover';

interface Line {
  event: string;
  notice_id: string;
  from: string;
  to: string[];
  member?: string;
  text?: string;
  note?: string;
  evidence_key?: string;
}
const dir = tempDir();
let server: TestServer | undefined;
let serverUrl = '';
let fromAlice = '';
let fromCarol = '';
let aliceTurn = '';

const call = async (who: Who, method: string, path: string, body?: unknown) => (server as TestServer).call(method, path, body, TOKENS[who]);
const linesOf = (body: Record<string, unknown>): string[] =>
  ((body['notices'] ?? []) as Line[]).map((l) => `${l.event} ${l.notice_id === fromAlice ? 'A' : l.notice_id === fromCarol ? 'C' : l.notice_id}${l.member ? ` ${l.member}` : ''}`);

beforeAll(async () => {
  server = await startTestServer({
    dir: dir.path,
    tokens: {
      tokens: [
        { name: 'admin', token: TOKENS.admin, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
        { name: 'stranger', token: TOKENS.stranger, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        ...(['alice', 'bob', 'carol'] as const).map((m) => ({ name: `${m}-laptop`, token: TOKENS[m], namespace: 'team', scopes: ['memory:read', 'memory:write'] })),
      ],
    },
  });
  serverUrl = server.url;
  for (const change of [
    { action: 'space_add', space: 'acme' },
    ...(['alice', 'bob', 'carol'] as const).map((m) => ({ action: 'member_add', member: m, tokens: [`${m}-laptop`] })),
    ...(['alice', 'bob', 'carol'] as const).map((m) => ({ action: 'member_join', member: m, space: 'acme' })),
  ])
    expect((await call('admin', 'POST', '/v1/org', change)).status).toBe(200);
  // alice writes a memory for the whole org and notifies bob; carol sends bob a note of her own
  const wrote = await call('alice', 'POST', '/v1/memories', {
    memories: [{ id: 'cutover', kind: 'decision', text: MEMORY, session_id: 's-alice', audience: { org: true }, notify: ['bob'] }],
  });
  expect(wrote.status).toBe(200);
  expect((await call('carol', 'POST', '/v1/notices', { to: ['bob'], text: 'Lunch moved to noon.' })).status).toBe(200);
  fromAlice = ((await call('alice', 'GET', '/v1/outbox')).body['notices'] as { notice_id: string }[])[0]?.notice_id as string;
  fromCarol = ((await call('carol', 'GET', '/v1/outbox')).body['notices'] as { notice_id: string }[])[0]?.notice_id as string;
  // bob looks (both arrive in one event) and signs alice's off
  expect(((await call('bob', 'GET', '/v1/inbox')).body['notices'] as unknown[]).length).toBe(2);
  expect((await call('bob', 'POST', `/v1/notices/${fromAlice}/ack`, { note: 'on it' })).status).toBe(200);
  // alice's turn delivers her memory: the replayed turn names the notice about it
  expect((await call('alice', 'POST', '/v1/sessions/open', { agent: 'replay', session_id: 's-alice' })).status).toBe(200);
  const turn = await call('alice', 'POST', '/v1/turns/start', { session_id: 's-alice', query: MEMORY });
  aliceTurn = turn.body['turn_id'] as string;
  expect((turn.body['delivery'] as { evidence_key: string }[]).map((d) => d.evidence_key)).toContain(KEY);
  await call('alice', 'POST', `/v1/turns/${aliceTurn}/complete`, { answer: 'three stages, invoices first' });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  dir.cleanup();
});

describe('notices in replay', () => {
  it('POST /v1/replay shows each member the notice events it is party to, a stranger none', async () => {
    const seen: Record<Who, string[]> = {
      alice: ['sent A', 'arrived A bob', 'acked A bob'],
      bob: ['sent A', 'sent C', 'arrived A bob', 'arrived C bob', 'acked A bob'],
      carol: ['sent C', 'arrived C bob'],
      stranger: [],
      admin: [],
    };
    for (const who of Object.keys(seen) as Who[]) {
      const r = await call(who, 'POST', '/v1/replay', {});
      expect(r.status, who).toBe(200);
      expect(linesOf(r.body), who).toEqual(seen[who]);
    }
    const alice = (await call('alice', 'POST', '/v1/replay', {})).body;
    const [sent, , acked] = alice['notices'] as Line[];
    expect(sent).toMatchObject({ from: 'alice', to: ['bob'], text: MEMORY, evidence_key: KEY });
    expect(acked).toMatchObject({ member: 'bob', note: 'on it', evidence_key: KEY });
    const turn = (alice['turns'] as { turn_id: string; notices?: string[] }[]).find((t) => t.turn_id === aliceTurn);
    expect(turn?.notices).toEqual([fromAlice]);
    // carol's note to bob is in no answer of alice's
    expect(JSON.stringify(alice)).not.toContain('Lunch');
  });

  it('kioku replay through the service (as bob) and in process (the local owner: every notice)', async () => {
    const env = { HOME: dir.path, KIOKU_URL: serverUrl, KIOKU_TOKEN: TOKENS.bob };
    const text = await runCli(['replay'], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('notices: 5 event(s)');
    expect(text.stdout).toContain(`${fromAlice} acked: bob (from alice) about ${KEY} "on it"`);
    expect(text.stdout).toContain(`${fromCarol} sent: carol → bob`);
    await (server as TestServer).close();
    server = undefined;
    const local = await runCli(['replay', '--json', '--data', dir.path, '--ns', 'team'], { HOME: dir.path });
    expect(local.code, local.stderr).toBe(0);
    expect(linesOf(local.json as Record<string, unknown>)).toEqual(['sent A', 'sent C', 'arrived A bob', 'arrived C bob', 'acked A bob']);
  });
});
