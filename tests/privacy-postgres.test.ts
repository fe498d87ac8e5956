// Redaction on a shared PostgreSQL store (issue 33): two nodes append to one table; no row holds a
// planted secret, both nodes show the placeholder, and each node reveals only what its own vault
// took in (the vault is local to a node's data dir). Skipped where PostgreSQL is not installed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

const ON_A = { key: 'sk-proj-Pq7Kd2Lm9Xv4Tn6Wb1Ks8Zr3Fg5Jy0AeQw9', password: 'N0de-A#pass' };
const ON_B = { token: 'ghp_Nb8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw2' };

let cluster: PgCluster;
let url: string;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  cluster = await startPgCluster();
  url = await cluster.createDatabase('kioku_privacy');
  await (await PostgresEventLog.open({ url })).close();
  a = await startTestServer({ store: url });
  b = await startTestServer({ store: url });
}, 90_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  cluster?.destroy();
});

/** Poll a node until `ok` holds of what it answers (nodes follow the table within a second). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.runIf(PG_AVAILABLE)('secrets on a shared PostgreSQL store', () => {
  it('keeps every row free of them, and lets each node reveal only its own', async () => {
    expect((await a.call('POST', '/v1/memories', { memories: [{ id: 'creds', kind: 'fact', text: `eval key ${ON_A.key}, db password=${ON_A.password}` }] })).status).toBe(200);
    const session = await b.call('POST', '/v1/sessions/open', { agent: 'node-b' });
    expect((await b.call('POST', '/v1/turns/start', { session_id: session.body['session_id'], query: `is ${ON_B.token} still valid?` })).status).toBe(200);

    // every row of the table, as stored
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = (await client.query<{ body: Buffer; type: string }>('SELECT body, type FROM public.kioku_events')).rows;
    await client.end();
    expect(rows.some((r) => r.type === 'secret.redacted')).toBe(true);
    const values = [ON_A.key, ON_A.password, ON_B.token];
    expect(rows.flatMap((r) => values.filter((v) => r.body.includes(v)).map((v) => `${r.type}: ${v}`))).toEqual([]);

    // node B shows node A's memory with placeholders; each node reveals what it redacted, not the other's
    const onB = await until(
      () => b.call('GET', '/v1/evidence/ev1:private:memory:creds'),
      (r) => r.status === 200,
    );
    const text = String(onB.body['text']);
    const keyId = /⟦secret:openai-key:([a-z0-9]+)⟧/.exec(text)?.[1] ?? '';
    expect(text).not.toContain(ON_A.key);
    expect((await a.call('POST', '/v1/secrets/reveal', { id: keyId })).body['value']).toBe(ON_A.key);
    expect((await b.call('POST', '/v1/secrets/reveal', { id: keyId })).body).toMatchObject({ error: { code: 'KIOKU_NOT_FOUND' } });
  }, 60_000);
});
