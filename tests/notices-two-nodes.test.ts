// Notify → inbox → ack → outbox between two members on two nodes of one PostgreSQL store (issue
// 34): alice on node A and bob on node B, each through `kioku mcp` on stdio in remote mode with its
// own token. alice writes a commitment with notify and sends a note; bob's inbox (node B) lists
// both, which marks them arrived; bob signs one off; alice's outbox (node A) shows per recipient
// arrived and acked. Refused whole, appending nothing: a notify to an unknown member, and a notify
// from a token that acts as no member, and a notify to a member the memory's audience keeps it
// from (a notice carries the memory's text). Every step is an event in the shared log.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { runCli } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, remoteMcpClient, type ToolResult } from './support/mcp.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';
const EVE = 'eve-token-0123456789'; // a token of the namespace that acts as no member
const ADMIN = 'admin-token-0123456789';
const rw = ['memory:read', 'memory:write'];
const tokens = {
  tokens: [
    { name: 'alice', token: ALICE, namespace: 'acme', scopes: rw },
    { name: 'bob', token: BOB, namespace: 'acme', scopes: rw },
    { name: 'eve', token: EVE, namespace: 'acme', scopes: rw },
    { name: 'admin', token: ADMIN, namespace: 'acme', scopes: ['org:admin', 'memory:read'] },
  ],
};

let cluster: PgCluster;
let url: string;
let nodeA: TestServer;
let nodeB: TestServer;
const clients: Client[] = [];

/** Ask until `ok` holds (another node's events arrive by LISTEN/NOTIFY or the 250 ms head read), at most `ms`. */
async function until(ask: () => Promise<ToolResult>, ok: (r: ToolResult) => boolean, ms = 10_000): Promise<ToolResult> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await ask();
    if (ok(r) || Date.now() > end) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const data = (r: ToolResult) => r.structuredContent as Record<string, unknown>;
const notices = (r: ToolResult) => (data(r)['notices'] ?? []) as { notice_id: string; kind: string; from?: string; text: string; to?: { member: string; status: string; note?: string }[] }[];

beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  cluster = await startPgCluster();
  url = await cluster.createDatabase('kioku_notices');
  await (await PostgresEventLog.open({ url })).close(); // the table, made as the administrator
  nodeA = await startTestServer({ store: url, tokens });
  nodeB = await startTestServer({ store: url, tokens });
  for (const change of [
    { action: 'space_add', space: 'billing' },
    { action: 'member_add', member: 'alice' },
    { action: 'member_add', member: 'bob' },
    { action: 'member_join', member: 'alice', space: 'billing' },
    { action: 'member_join', member: 'bob', space: 'billing' },
  ])
    expect((await nodeA.call('POST', '/v1/org', change, ADMIN)).status).toBe(200);
}, 90_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await nodeA?.stop();
  await nodeB?.stop();
  cluster?.destroy();
});

describe.runIf(PG_AVAILABLE)('notices between two members on two nodes of one PostgreSQL store, over MCP', () => {
  it('notify → inbox → ack → outbox, every step an event of the shared log; refusals append nothing', async () => {
    const [alice, bob, eve] = await Promise.all([
      remoteMcpClient(nodeA.url, ALICE, nodeA.dir),
      remoteMcpClient(nodeB.url, BOB, nodeB.dir),
      remoteMcpClient(nodeB.url, EVE, nodeB.dir),
    ]);
    clients.push(alice as Client, bob as Client, eve as Client);
    const log = await PostgresEventLog.open({ url });
    try {
      /** every record in the shared table now, read past this log's own head (the nodes wrote them) */
      const all = async () => {
        const out: { type: string; actor: string }[] = [];
        for await (const r of log.read({ from: 1, to: Number.MAX_SAFE_INTEGER })) out.push({ type: r.type, actor: r.actor });
        return out;
      };
      const headNow = async () => (await all()).length;

      const wrote = await callTool(alice as Client, 'write_memory', {
        memories: [{ id: 'cutover', kind: 'commitment', text: 'Bob moves the billing cutover to May 3 and tells finance.', audience: { spaces: ['billing'] }, notify: ['bob'] }],
      });
      expect(wrote.isError, JSON.stringify(wrote)).toBeFalsy();
      const note = await callTool(alice as Client, 'notify', { to: 'bob', text: 'Please review the rollback runbook before Friday.', about: 'cutover' });
      expect(data(note)).toMatchObject({ sent: 1, notice_ids: [expect.stringMatching(/^n-[0-9a-f]{16}$/)] });
      // the same note again is the notice sent: nothing appended
      expect(data(await callTool(alice as Client, 'notify', { to: 'bob', text: 'Please review the rollback runbook before Friday.', about: 'cutover' }))).toMatchObject({ sent: 0 });

      // refused whole: an unknown member (the memory is not written either), a token that acts as no member
      const at = await headNow();
      const unknown = await callTool(alice as Client, 'write_memory', { memories: [{ id: 'leak', kind: 'fact', text: 'x', notify: ['bob', 'zed'] }] });
      expect(unknown.structuredContent).toMatchObject({
        error: { code: 'KIOKU_NOT_FOUND', message: 'write memories: memories.0.notify.1: no member "zed" in this org; nothing was written' },
      });
      expect((await callTool(alice as Client, 'notify', { to: ['zed'], text: 'hi' })).structuredContent).toMatchObject({ error: { code: 'KIOKU_NOT_FOUND' } });
      // a notice carries the memory's text: a recipient its audience (here: alice only) keeps it from is refused
      const hidden = await callTool(alice as Client, 'write_memory', { memories: [{ id: 'private-note', kind: 'fact', text: 'Only mine.', notify: ['bob'] }] });
      expect(hidden.structuredContent).toMatchObject({ error: { code: 'KIOKU_AUDIENCE_REFUSED', message: expect.stringContaining('memories.0.notify.0: "bob" would not see this memory') } });
      const stranger = await until(
        () => callTool(eve as Client, 'notify', { to: 'bob', text: 'hi' }),
        (r) => (r.structuredContent?.['error'] as { code?: string } | undefined)?.code !== 'KIOKU_SINGLE_USER',
      );
      expect(stranger.structuredContent).toMatchObject({ error: { code: 'KIOKU_FORBIDDEN' } });
      expect(await headNow()).toBe(at);
      expect((await nodeA.call('GET', '/v1/evidence/ev1:acme:memory:leak', undefined, ALICE)).status).toBe(404);

      // bob, on the other node: both wait in his inbox (the commitment as an assignment), and his look marks them arrived
      const inbox = await until(
        () => callTool(bob as Client, 'inbox', {}),
        (r) => notices(r).length === 2,
      );
      expect(notices(inbox).map((n) => [n.kind, n.from])).toEqual([
        ['assignment', 'alice'],
        ['note', 'alice'],
      ]);
      expect(notices(inbox)[0]).toMatchObject({ text: 'Bob moves the billing cutover to May 3 and tells finance.', evidence_key: 'ev1:acme:memory:cutover' });
      expect(notices(inbox)[1]).toMatchObject({ evidence_key: 'ev1:acme:memory:cutover' });
      const [assignment, reminder] = notices(inbox).map((n) => n.notice_id) as [string, string];

      const sent = await until(
        () => callTool(alice as Client, 'outbox', {}),
        (r) => notices(r).every((n) => n.to?.[0]?.status === 'arrived'),
      );
      expect(notices(sent).map((n) => n.to)).toEqual([
        [{ member: 'bob', status: 'arrived', arrived_at: expect.any(String) }],
        [{ member: 'bob', status: 'arrived', arrived_at: expect.any(String) }],
      ]);

      // bob signs the assignment off; alice may not sign off bob's notice
      expect((await callTool(alice as Client, 'ack', { notice_id: assignment })).structuredContent).toMatchObject({ error: { code: 'KIOKU_NOT_FOUND' } });
      expect(data(await callTool(bob as Client, 'ack', { notice_id: assignment, note: 'will do on Monday' }))).toEqual({ notice_id: assignment, acked: true });
      expect(data(await callTool(bob as Client, 'ack', { notice_id: assignment }))).toEqual({ notice_id: assignment, acked: false });
      expect(notices(await callTool(bob as Client, 'inbox', {})).map((n) => n.notice_id)).toEqual([reminder]);
      expect(notices(await callTool(bob as Client, 'inbox', { include_acked: true }))).toHaveLength(2);

      const after = await until(
        () => callTool(alice as Client, 'outbox', {}),
        (r) => notices(r).some((n) => n.to?.[0]?.status === 'acked'),
      );
      expect(notices(after).map((n) => [n.notice_id, n.to?.[0]?.status, n.to?.[0]?.note])).toEqual([
        [assignment, 'acked', 'will do on Monday'],
        [reminder, 'arrived', undefined],
      ]);

      // the CLI shows the same outbox, as the member its token acts as
      const cli = await runCli(['outbox', '--json'], { KIOKU_URL: nodeA.url, KIOKU_TOKEN: ALICE, HOME: nodeA.dir });
      expect(cli.code, cli.stderr).toBe(0);
      const printed = JSON.parse(cli.stdout.trim().split('\n').at(-1) ?? '{}') as { member: string; notices: { to: { status: string }[] }[] };
      expect([printed.member, printed.notices.map((n) => n.to[0]?.status)]).toEqual(['alice', ['acked', 'arrived']]);

      // every step is in the shared log, each written by the node and member that took it
      const steps = (await all()).filter((r) => r.type.startsWith('notice.')).map((r) => [r.type, r.actor]);
      expect(steps).toEqual([
        ['notice.sent', 'http:alice'],
        ['notice.sent', 'http:alice'],
        ['notice.arrived', 'http:bob'],
        ['notice.acked', 'http:bob'],
      ]);
    } finally {
      await log.close();
    }
  }, 60_000);
});
