// A real `kioku serve` node on a real PostgreSQL, running as a role that may only SELECT and
// INSERT, faulted as issue 29 found it: its sessions terminated every second under 4 writers, a
// forged NOTIFY from a role with no grants, a garbage row inserted with the node's credentials,
// a changed type/ns column, a typo'd store URL, and recall with the database stopped.
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { grantStatements } from '../src/log/postgres-schema.js';
import { freePort, memoryEvent, runCli, serveProcess, tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

const NODE_ROLE = 'kioku_fault_node';
const STRANGER = 'kioku_fault_stranger';

let cluster: PgCluster;
beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  cluster = await startPgCluster();
  await admin(cluster.adminUrl, [`CREATE ROLE ${NODE_ROLE} LOGIN`, `CREATE ROLE ${STRANGER} LOGIN`]);
}, 60_000);
afterAll(() => cluster?.destroy());

async function admin(url: string, statements: string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: pg.QueryResult[] = [];
    for (const sql of statements) out.push(await client.query(sql));
    return out;
  } finally {
    await client.end();
  }
}

/** A fresh database with the Kioku table, and the node role's URL for it (SELECT and INSERT only). */
async function nodeDatabase(): Promise<{ adminUrl: string; nodeUrl: string; database: string }> {
  const adminUrl = await cluster.createDatabase('kioku_faults');
  const log = await PostgresEventLog.open({ url: adminUrl });
  await log.close();
  await admin(adminUrl, grantStatements(log.tableNames, NODE_ROLE));
  return { adminUrl, nodeUrl: adminUrl.replace('postgres@', `${NODE_ROLE}@`), database: new URL(adminUrl).pathname.slice(1) };
}

interface Node {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  cleanup: () => void;
}

async function startNode(store: string): Promise<Node> {
  const dir = tempDir();
  const port = await freePort();
  const child = await serveProcess(dir.path, port, ['--store', store]);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: () => stderr,
    cleanup: () => {
      child.kill('SIGKILL');
      dir.cleanup();
    },
  };
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(node: Node, method: string, path: string, body?: unknown, timeoutMs = 20_000): Promise<Answer> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const write = (node: Node, id: string, timeoutMs?: number): Promise<Answer> =>
  call(node, 'POST', '/v1/memories', { memories: [{ id, kind: 'fact', text: `note ${id} about the deploy pipeline` }] }, timeoutMs);
const errorCode = (a: Answer): string | undefined => (a.body['error'] as { code?: string } | undefined)?.code;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** SIGTERM, and how long the process took to exit (Infinity past `limitMs`). */
async function stopTime(child: ChildProcess, limitMs: number): Promise<number> {
  const started = performance.now();
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(limitMs).then(() => false)]);
  return done ? performance.now() - started : Infinity;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The memory ids written to the table, as the administrator reads them. */
async function tableMemoryIds(adminUrl: string): Promise<string[]> {
  const log = await PostgresEventLog.open({ url: adminUrl, createSchema: false });
  try {
    expect(await log.verify()).toMatchObject({ ok: true });
    const ids: string[] = [];
    for await (const r of log.read({ types: ['memory.written'] })) ids.push((r.data as { id: string }).id);
    return ids;
  } finally {
    await log.close();
  }
}

// 15 s of terminations rather than the issue's 30 (the file's budget); the node died within 1–3 rounds before the fix
const TERMINATE_FOR_MS = 15_000;

describe.runIf(PG_AVAILABLE)('a PostgreSQL node under database faults', () => {
  it('survives its sessions being terminated every second under 4 writers: 503 while cut, every acknowledged write kept once, LISTEN back', async () => {
    const db = await nodeDatabase();
    const node = await startNode(db.nodeUrl);
    try {
      const acked: string[] = [];
      const outcomes = { ok: 0, unavailable: 0, other: [] as string[], hung: 0 };
      let running = true;
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; running; i++) {
          const id = `w${w}-${i}`;
          try {
            const res = await write(node, id);
            if (res.status === 200) {
              acked.push(id);
              outcomes.ok += 1;
            } else if (res.status === 503 && errorCode(res) === 'KIOKU_STORE_UNAVAILABLE') outcomes.unavailable += 1;
            else outcomes.other.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          } catch (err) {
            // a timeout is a hang; a refused connection is a dead node
            if ((err as Error).name === 'TimeoutError') outcomes.hung += 1;
            else outcomes.other.push(`${(err as Error).message}`);
            await sleep(100);
          }
        }
      });
      let terminated = 0;
      const stopAt = Date.now() + TERMINATE_FOR_MS;
      while (Date.now() < stopAt) {
        await sleep(1_000);
        const [res] = await admin(cluster.adminUrl, [
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${NODE_ROLE}' AND datname = '${db.database}'`,
        ]);
        terminated += res?.rowCount ?? 0;
        expect(node.child.exitCode, node.stderr()).toBeNull();
      }
      // the storm is over: writes go through again
      await sleep(1_000);
      running = false;
      await Promise.all(writers);
      const after = await write(node, 'after-the-storm');
      expect(after.status).toBe(200);
      acked.push('after-the-storm');

      expect(node.child.exitCode, node.stderr()).toBeNull();
      expect(terminated).toBeGreaterThan(TERMINATE_FOR_MS / 1_000); // every round found sessions to end
      expect(outcomes.other).toEqual([]);
      expect(outcomes.hung).toBe(0);
      expect(outcomes.ok).toBeGreaterThan(50);

      // every acknowledged write is in the table once, and readable through the node
      const ids = await tableMemoryIds(db.adminUrl);
      expect(new Set(ids).size).toBe(ids.length);
      expect(acked.filter((id) => !ids.includes(id))).toEqual([]);
      for (const id of acked) expect((await call(node, 'GET', `/v1/evidence/${encodeURIComponent(`ev1:private:memory:${id}`)}`)).status, id).toBe(200);

      // the node listens again (its LISTEN session was among those ended); that session also takes
      // the embedding job's role lock, so its last statement is the one or the other
      await until('the LISTEN session back', async () => {
        const [res] = await admin(cluster.adminUrl, [
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = '${NODE_ROLE}' AND datname = '${db.database}'
             AND (query LIKE 'LISTEN %' OR query LIKE 'SELECT pg_try_advisory_lock(%')`,
        ]);
        return (res?.rows[0] as { n: number }).n === 1 ? true : undefined;
      });
      const health = (await call(node, 'GET', '/v1/health')).body;
      expect(health).toMatchObject({ stale: false, store: { connected: true, replication_lag: 0 } });
      process.stdout.write(
        `terminations: ${terminated} sessions over ${TERMINATE_FOR_MS / 1000} s; writes acknowledged ${acked.length}, 503 ${outcomes.unavailable}, lost 0, duplicated 0\n`,
      );
      expect(await stopTime(node.child, 10_000), node.stderr()).toBeLessThan(10_000);
    } finally {
      node.cleanup();
    }
  }, 90_000);

  it('ignores a forged NOTIFY from a role with no grants: head unchanged, writes go on, SIGTERM stops it promptly', async () => {
    const db = await nodeDatabase();
    const node = await startNode(db.nodeUrl);
    try {
      expect((await write(node, 'before')).status).toBe(200);
      const tableHead = async (): Promise<number> =>
        (((await admin(db.adminUrl, ['SELECT coalesce(max(seq), 0)::int AS seq FROM kioku_events']))[0]?.rows[0] as { seq: number }).seq);
      const strangerUrl = db.adminUrl.replace('postgres@', `${STRANGER}@`);
      await admin(strangerUrl, [`NOTIFY kioku_events_public, '{"seq":1000000000,"hash":"00","ts":0}'`, `NOTIFY kioku_events_public, 'not json'`]);
      await sleep(500);
      // the node's head is the table's (background jobs may append meanwhile), never the forged one
      const health = (await call(node, 'GET', '/v1/health')).body as { head: { seq: number }; store: { node_head: number; table_head: number } };
      expect(health.head.seq).toBeLessThan(1_000);
      expect(health.store.table_head).toBeLessThan(1_000);
      expect(health.head.seq).toBeLessThanOrEqual(await tableHead());
      const next = await write(node, 'after', 5_000);
      expect(next.status).toBe(200);
      expect(((await call(node, 'GET', '/v1/health')).body['head'] as { seq: number }).seq).toBe(await tableHead());
      expect(await tableMemoryIds(db.adminUrl)).toEqual(['before', 'after']);
      expect(await stopTime(node.child, 10_000)).toBeLessThan(5_000);
    } finally {
      node.cleanup();
    }
  }, 60_000);

  it('shows a garbage row inserted with the node role as a projection stall in health, and answers writes instead of hanging', async () => {
    const db = await nodeDatabase();
    const node = await startNode(db.nodeUrl);
    try {
      expect((await write(node, 'good')).status).toBe(200);
      const head = ((await call(node, 'GET', '/v1/health')).body['head'] as { seq: number }).seq;
      await admin(db.nodeUrl, [
        `INSERT INTO kioku_events (seq, prev, hash, body, type, ns, ts) VALUES (${head + 1}, '\\x${'00'.repeat(32)}', '\\x${'11'.repeat(32)}', '\\xdeadbeef', 'memory.written', 'private', 0)`,
      ]);
      const health = await until('the stall in health', async () => {
        const h = (await call(node, 'GET', '/v1/health')).body;
        return h['projections_stalled'] ? h : undefined;
      });
      expect(health).toMatchObject({ stale: true, projections_stalled: { after_seq: head, error: expect.any(String) } });
      const doctor = await runCli(['doctor', '--json'], { KIOKU_URL: node.url });
      expect(doctor.json?.['warnings'], doctor.stdout + doctor.stderr).toEqual(expect.arrayContaining([expect.stringContaining(`projections stopped after seq ${head}`)]));
      const refused = await write(node, 'behind-the-garbage', 10_000);
      expect(refused.status).toBe(500);
      expect(errorCode(refused)).toBe('KIOKU_PROJECTION_FAILED');
      expect(await stopTime(node.child, 10_000)).toBeLessThan(5_000);
    } finally {
      node.cleanup();
    }
  }, 60_000);

  it('verify reports a changed type or ns column as modified at its seq', async () => {
    for (const [column, value] of [
      ['ns', 'someone-else'],
      ['type', 'job.enqueued'],
    ] as const) {
      const db = await nodeDatabase();
      const log = await PostgresEventLog.open({ url: db.adminUrl });
      for (let i = 1; i <= 3; i++) await log.append(memoryEvent(`m${i}`, `note ${i}`));
      await log.close();
      const clean = await runCli(['verify', '--json', '--store', db.adminUrl, '--data', tempDir().path]);
      expect(clean.json).toMatchObject({ ok: true, checked: 3 });
      // a superuser can switch the append-only trigger off; the chain's hashes do not cover the columns
      await admin(db.adminUrl, [
        'ALTER TABLE kioku_events DISABLE TRIGGER kioku_events_no_change',
        `UPDATE kioku_events SET ${column} = '${value}' WHERE seq = 2`,
        'ALTER TABLE kioku_events ENABLE TRIGGER kioku_events_no_change',
      ]);
      const res = await runCli(['verify', '--json', '--store', db.adminUrl, '--data', tempDir().path]);
      expect(res.code, res.stderr).toBe(1);
      expect(res.json).toMatchObject({ ok: false, damage: { seq: 2, kind: 'modified', detail: expect.stringContaining(`the ${column} column`) } });
    }
  }, 60_000);

  // stops the cluster: the file's last test
  it('answers recall from its projections while the database is stopped, marked stale, the record not kept; turns and writes get 503; stops promptly', async () => {
    const db = await nodeDatabase();
    const node = await startNode(db.nodeUrl);
    const other = await startNode(db.nodeUrl); // stopped while the database is away
    try {
      for (const id of ['rollback', 'canary']) expect((await write(node, id)).status).toBe(200);
      const session = await call(node, 'POST', '/v1/sessions/open', { agent: 'tester' });
      expect(session.status).toBe(200);
      cluster.stop();
      try {
        await until('the node to see the database gone', async () => ((await call(node, 'GET', '/v1/health')).body['stale'] ? true : undefined));
        const recalled = await call(node, 'POST', '/v1/recall', { query: 'note rollback about the deploy pipeline' });
        expect(recalled.status, JSON.stringify(recalled.body)).toBe(200);
        expect((recalled.body['records'] as unknown[]).length).toBeGreaterThan(0);
        expect(recalled.body['warnings']).toEqual(
          expect.arrayContaining([expect.stringMatching(/^store_unreachable:stale_since_ms=\d+$/), 'record_not_saved:KIOKU_STORE_UNAVAILABLE']),
        );
        // a turn must be recorded to be completed later, a write to be acknowledged: both refused cleanly
        const turn = await call(node, 'POST', '/v1/turns/start', { session_id: session.body['session_id'], query: 'rollback' });
        expect([turn.status, errorCode(turn)]).toEqual([503, 'KIOKU_STORE_UNAVAILABLE']);
        const refused = await write(node, 'while-stopped');
        expect([refused.status, errorCode(refused)]).toEqual([503, 'KIOKU_STORE_UNAVAILABLE']);
        // nothing waits for the database to come back at shutdown (reconnect timers, the projection runner's retries)
        expect(await stopTime(other.child, 10_000), other.stderr()).toBeLessThan(5_000);
      } finally {
        cluster.restart();
      }
      await until('writes again', async () => ((await write(node, 'after-restart')).status === 200 ? true : undefined), 15_000);
      expect(await tableMemoryIds(db.adminUrl)).toEqual(['rollback', 'canary', 'after-restart']);
      expect(await stopTime(node.child, 10_000)).toBeLessThan(5_000);
    } finally {
      node.cleanup();
      other.cleanup();
    }
  }, 60_000);

  it('never prints the password of a store URL: a typo in the scheme, a refused connection', async () => {
    const port = await freePort(); // nothing listens there
    for (const store of [`postgress://kioku:hunter2secret@127.0.0.1:${port}/k`, `postgres://kioku:hunter2secret@127.0.0.1:${port}/k`]) {
      const res = await runCli(['verify', '--json', '--store', store, '--data', tempDir().path]);
      expect(res.code).not.toBe(0);
      expect(res.stderr + res.stdout).toMatch(/kioku/);
      expect(res.stderr + res.stdout).not.toContain('hunter2secret');
    }
  }, 30_000);
});
