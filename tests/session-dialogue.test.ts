// Seed rule: a client that sends no `conversation` (HTTP without a transcript, MCP tools) gets
// the same session's completed turns as its dialogue — namespace-scoped, since the last
// compaction, bounded as a sent dialogue is. Driven through a real server on a loopback port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.call('POST', '/v1/memories', {
    memories: [
      { id: 'failover', kind: 'procedure', text: 'Postgres failover drill: promote the replica with pg_ctl promote, then repoint PgBouncer.' },
      { id: 'coffee', kind: 'fact', text: 'The office coffee machine is descaled on Fridays.' },
    ],
  });
  await s.call('POST', '/v1/memories', {
    namespace: 'other',
    memories: [{ id: 'ingress', kind: 'fact', text: 'Kubernetes ingress certificates renew through cert-manager.' }],
  });
});
afterAll(async () => s.stop());

type Packet = {
  turn_id: string;
  queries: { kind: string; text: string }[];
  records: { evidence_key: string; why: { lanes: Record<string, number> } }[];
  conversation_messages: number;
};

async function turn(session: string, query: string, extra: Record<string, unknown> = {}): Promise<Packet> {
  const r = await s.call('POST', '/v1/turns/start', { session_id: session, query, ...extra });
  expect(r.status).toBe(200);
  return r.body as unknown as Packet;
}

const complete = async (turnId: string, answer: string, extra: Record<string, unknown> = {}): Promise<void> => {
  expect((await s.call('POST', `/v1/turns/${turnId}/complete`, { answer, ...extra })).status).toBe(200);
};

describe('the dialogue of a client that sends none', () => {
  it("is the session's completed turns: the context query finds what only the first turn named", async () => {
    await s.call('POST', '/v1/sessions/open', { agent: 'http-client', session_id: 'drill' });
    const first = await turn('drill', 'we must rehearse the Postgres failover this week');
    await complete(first.turn_id, 'Agreed, the replica gets promoted during the rehearsal.');

    const second = await turn('drill', 'what comes first?');
    const context = second.queries.find((q) => q.kind === 'context');
    expect(context?.text).toContain('Postgres failover');
    expect(context?.text).toContain('replica gets promoted'); // the answer is part of the dialogue
    expect(second.conversation_messages).toBe(2);
    const found = second.records.find((r) => r.evidence_key === 'ev1:private:memory:failover');
    expect(found).toBeDefined();
    expect(Object.keys(found!.why.lanes).some((lane) => lane.endsWith(':context'))).toBe(true);

    // the same words in a session with no earlier turn: no dialogue, no context query, not found
    await s.call('POST', '/v1/sessions/open', { agent: 'http-client', session_id: 'fresh' });
    const alone = await turn('fresh', 'what comes first?');
    expect(alone.queries.map((q) => q.kind)).not.toContain('context');
    expect(alone.records.map((r) => r.evidence_key)).not.toContain('ev1:private:memory:failover');
  });

  it("leaves out turns still running, turns before the last compaction, and another namespace's session of the same id", async () => {
    await s.call('POST', '/v1/sessions/open', { agent: 'http-client', session_id: 'shared-id', namespace: 'other' });
    const elsewhere = await turn('shared-id', 'the Kubernetes ingress is failing', { namespace: 'other' });
    await complete(elsewhere.turn_id, 'cert-manager should renew it.', { namespace: 'other' });

    await s.call('POST', '/v1/sessions/open', { agent: 'http-client', session_id: 'shared-id' });
    const running = await turn('shared-id', 'the coffee machine needs descaling'); // never completed
    expect(running.conversation_messages).toBe(0);
    const mine = await turn('shared-id', 'and who does it?');
    expect(mine.queries.map((q) => q.kind)).not.toContain('context'); // the running turn is not dialogue
    expect(JSON.stringify(mine.queries)).not.toContain('Kubernetes');
    await complete(mine.turn_id, 'The facilities team, on Fridays.');

    const next = await turn('shared-id', 'remind me again');
    expect(next.queries.find((q) => q.kind === 'context')?.text).toContain('facilities team');
    expect(JSON.stringify(next.queries)).not.toContain('Kubernetes');
    // after a compaction the earlier turns are out of view: not dialogue either
    const compacted = await turn('shared-id', 'remind me again', { context_since: new Date(Date.now() + 1_000).toISOString() });
    expect(compacted.queries.map((q) => q.kind)).not.toContain('context');
    // a dialogue the client sends wins over the session's
    const sent = await turn('shared-id', 'remind me again', { conversation: [{ role: 'user', content: 'about the Postgres failover' }] });
    expect(sent.queries.find((q) => q.kind === 'context')?.text).toContain('Postgres failover');
    expect(sent.queries.find((q) => q.kind === 'context')?.text).not.toContain('facilities');
  });
});
