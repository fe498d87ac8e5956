// The same event-store contract on a real PostgreSQL (a throwaway cluster, a fresh database
// per store), then what only the shared table shows: two nodes appending at the same instant
// never fork it, the table refuses changes, and a restricted role can append and read only.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBody, splitFrame, verifySource } from '../src/log/index.js';
import { PostgresEventLog } from '../src/log/postgres.js';
import type { EventStore } from '../src/log/index.js';
import type { ContractStore } from '../src/log/contract.js';
import { describeLogContract } from './contracts/log.js';
import { jobEvent, memoryEvent } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 60_000);
// a fast shutdown checkpoints every database the cases made: slow on a busy machine
afterAll(() => cluster?.destroy(), 180_000);

describe.runIf(PG_AVAILABLE)('PostgreSQL event store', () => {
  describeLogContract({
    // a shared store: every optional method of the port, several nodes on one table
    supports: { health: true, holdsRole: true, exclusive: true, importChain: true, shared: true, writeRaw: true },
    factory: {
      name: 'PostgreSQL (one table, advisory lock, LISTEN/NOTIFY)',
      async create(): Promise<ContractStore> {
        const url = await cluster.createDatabase();
        let log: EventStore = await PostgresEventLog.open({ url });
        return {
          log,
          async reopen() {
            await log.close();
            return (log = await PostgresEventLog.open({ url }));
          },
          // another node on the same table
          openAnother: () => PostgresEventLog.open({ url }),
          async writeRaw(frames, _head) {
            await log.close();
            const client = new pg.Client({ connectionString: url });
            await client.connect();
            try {
              for (const f of frames) {
                const parts = splitFrame(f.frame);
                if (!parts) throw new Error('not a frame');
                const body = decodeBody(parts.body);
                await client.query('INSERT INTO kioku_events (seq, prev, hash, body, type, ns, ts) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
                  f.seq,
                  Buffer.from(parts.prev),
                  Buffer.from(parts.hash),
                  Buffer.from(parts.body),
                  f.type,
                  body.ns,
                  body.ts,
                ]);
              }
            } finally {
              await client.end();
            }
            return (log = await PostgresEventLog.open({ url }));
          },
          cleanup: () => log.close(),
        };
      },
    },
  });

  it('two nodes appending at the same instant, 1,000 times each, make one linear chain: no gap, no fork', async () => {
    const url = await cluster.createDatabase();
    const a = await PostgresEventLog.open({ url });
    const b = await PostgresEventLog.open({ url });
    try {
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => Promise.all([a.append(jobEvent(i)), b.append(jobEvent(10_000 + i))])));
      const seqs = results
        .flat()
        .map((r) => r.seq)
        .sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
      const report = await a.verify();
      expect(report).toMatchObject({ ok: true, checked: 2000, head: { seq: 2000 } });
      // each node hears of the other's commits
      await until(() => a.head().seq === 2000 && b.head().seq === 2000);
      expect(a.head()).toEqual(b.head());
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('verifies a table other nodes append to meanwhile: the walk stops at the head it read', async () => {
    const url = await cluster.createDatabase();
    const log = await PostgresEventLog.open({ url });
    try {
      for (let i = 0; i < 20; i++) await log.append(jobEvent(i));
      const source = log.chainSource();
      // another node commits between the head read and the walk
      const readHead = async (): Promise<string | undefined> => {
        const head = await source.readHead();
        await log.append(jobEvent(99));
        return head;
      };
      const report = await verifySource({ ...source, readHead });
      expect(report).toMatchObject({ ok: true, checked: 20, head: { seq: 20 } });
    } finally {
      await log.close();
    }
  });

  it('refuses UPDATE, DELETE and TRUNCATE even for the owner', async () => {
    const url = await cluster.createDatabase();
    const log = await PostgresEventLog.open({ url });
    await log.append(memoryEvent('m1', 'keep me'));
    await log.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await expect(client.query("UPDATE kioku_events SET type = 'x'")).rejects.toThrow(/append-only: UPDATE refused/);
      await expect(client.query('DELETE FROM kioku_events')).rejects.toThrow(/append-only: DELETE refused/);
      await expect(client.query('TRUNCATE kioku_events')).rejects.toThrow(/append-only: TRUNCATE refused/);
      expect((await client.query('SELECT count(*)::int AS n FROM kioku_events')).rows[0]).toEqual({ n: 1 });
    } finally {
      await client.end();
    }
  });

  it('runs as a role that may only SELECT and INSERT', async () => {
    const url = await cluster.createDatabase();
    const owner = await PostgresEventLog.open({ url });
    await owner.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const role = `kioku_node_${Math.random().toString(36).slice(2, 8)}`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      for (const sql of (await import('../src/log/postgres-schema.js')).grantStatements(
        { schema: 'public', table: '"public".kioku_events', channel: '' },
        role,
      ))
        await admin.query(sql);
    } finally {
      await admin.end();
    }
    const roleUrl = url.replace('postgres@', `${role}@`);
    const log = await PostgresEventLog.open({ url: roleUrl });
    try {
      await log.append(memoryEvent('m1', 'written by the restricted role'));
      expect((await log.verify()).ok).toBe(true);
      const client = new pg.Client({ connectionString: roleUrl });
      await client.connect();
      try {
        await expect(client.query("UPDATE kioku_events SET type = 'x'")).rejects.toThrow(/permission denied/);
        await expect(client.query('DELETE FROM kioku_events')).rejects.toThrow(/permission denied/);
      } finally {
        await client.end();
      }
    } finally {
      await log.close();
    }
  });
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
