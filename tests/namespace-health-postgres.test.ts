// Health per token on a PostgreSQL node (issue 29 items 10 and 11): when a garbage row stalls the
// node's projections, a namespaced token learns only that reads may be stale — not the stall's
// seq or message, which speak of the whole log — while a service:read token sees the stall.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { freePort, serveProcess, tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

const BETA = 'beta-token-0123456789';
const OPS = 'ops-token-0123456789';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 60_000);
afterAll(() => cluster?.destroy());

describe.runIf(PG_AVAILABLE)('a stalled PostgreSQL node’s health, per token', () => {
  it('tells a namespaced token its reads may be stale, and only a service:read token where and why', async () => {
    const url = await cluster.createDatabase('kioku_ns_health');
    await (await PostgresEventLog.open({ url })).close(); // the table, made as the administrator
    const dir = tempDir();
    const auth = join(dir.path, 'auth.json');
    writeFileSync(
      auth,
      JSON.stringify({
        tokens: [
          { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read', 'memory:write'] },
          { name: 'ops', token: OPS, namespace: 'ops', scopes: ['service:read'] },
        ],
      }),
    );
    const port = await freePort();
    let child: ChildProcess | undefined;
    try {
      child = await serveProcess(dir.path, port, ['--store', url], { KIOKU_AUTH_FILE: auth });
      const health = async (token: string) =>
        (await (await fetch(`http://127.0.0.1:${port}/v1/health`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, unknown>;
      const write = await fetch(`http://127.0.0.1:${port}/v1/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BETA}` },
        body: JSON.stringify({ memories: [{ id: 'good', kind: 'fact', text: 'a good row' }] }),
      });
      expect(write.status).toBe(200);
      expect(await health(BETA)).toMatchObject({ namespace: 'beta', stale: false, store: { kind: 'postgres', connected: true } });
      const admin = new pg.Client({ connectionString: url });
      admin.on('error', () => undefined); // a cluster stopped under a failed test must not end the run
      await admin.connect();
      // the bad row goes after whatever the service appended last (its background jobs may append
      // after the write answers, so a head read over HTTP can be one behind on a loaded machine)
      const bad = await admin
        .query<{ seq: string }>(
        `INSERT INTO kioku_events (seq, prev, hash, body, type, ns, ts) SELECT COALESCE(MAX(seq), 0) + 1, '\\x${'00'.repeat(32)}', '\\x${'11'.repeat(32)}', '\\xdeadbeef', 'memory.written', 'alpha', 0 FROM kioku_events RETURNING seq`,
        )
        .finally(() => admin.end());
      const head = Number(bad.rows[0]!.seq) - 1;
      let ops: Record<string, unknown> = {};
      for (const end = Date.now() + 15_000; !ops['projections_stalled'] && Date.now() < end; await new Promise((r) => setTimeout(r, 100))) ops = await health(OPS);
      expect(ops).toMatchObject({ stale: true, projections_stalled: { after_seq: head, error: expect.any(String) } });
      const beta = await health(BETA);
      expect(beta).toMatchObject({ namespace: 'beta', stale: true, store: { kind: 'postgres', connected: true } });
      for (const global of ['head', 'projections_stalled', 'projections', 'projection_lag']) expect(beta).not.toHaveProperty(global);
      expect(JSON.stringify(beta)).not.toMatch(/seq|stalled/); // nothing of where the log stalled
    } finally {
      child?.kill('SIGKILL');
      dir.cleanup();
    }
  }, 90_000);
});
