// Three Kioku nodes (real `kioku serve` processes) on one PostgreSQL, 8 writers spread over
// them through HTTP. Mid-load one node is SIGKILLed and restarted, then PostgreSQL is stopped
// for 5 s and started again. Every acknowledged write must end up readable on every node,
// nothing written twice, the chain verifying; while the database is away, writes fail with a
// clean 503 and reads go on, marked stale.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { freePort, serveProcess, tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 60_000);
afterAll(() => cluster?.destroy());

interface Node {
  port: number;
  dir: string;
  child?: ChildProcess;
  url: string;
}

const serve = (node: Node, store: string): Promise<ChildProcess> => serveProcess(node.dir, node.port, ['--store', store]);

async function call(
  node: Node,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; stale: string | null }> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, stale: res.headers.get('kioku-stale') };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.runIf(PG_AVAILABLE)('three nodes on one PostgreSQL', () => {
  it('lose nothing acknowledged through a node SIGKILL and a 5 s database outage, and converge', async () => {
    const store = await cluster.createDatabase('kioku_nodes');
    const dirs = [tempDir(), tempDir(), tempDir()];
    const nodes: Node[] = [];
    for (const d of dirs) {
      const port = await freePort();
      nodes.push({ port, dir: d.path, url: `http://127.0.0.1:${port}` });
    }
    let running = true;
    try {
      for (const n of nodes) n.child = await serve(n, store);

      const acked = new Set<string>();
      const outcomes = { ok: 0, unavailable: 0, starting: 0, refused: 0, other: [] as string[] };
      let phase: 'load' | 'outage' | 'after' = 'load';
      const writers = Array.from({ length: 8 }, async (_, w) => {
        const node = nodes[w % 3] as Node;
        for (let i = 0; running; i++) {
          const id = `w${w}-${i}`;
          try {
            const res = await call(node, 'POST', '/v1/memories', { memories: [{ id, kind: 'fact', text: `writer ${w} note ${i} about the shared library` }] });
            if (res.status === 200) acked.add(id);
            else if (res.status === 503 && (res.body['error'] as { code: string }).code === 'KIOKU_STORE_UNAVAILABLE') outcomes.unavailable += 1;
            else if (res.status === 503 && (res.body['error'] as { code: string }).code === 'KIOKU_NOT_READY')
              outcomes.starting += 1; // the restarted node catching up
            else outcomes.other.push(`${phase} ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
            if (res.status === 200) outcomes.ok += 1;
            else await sleep(50);
          } catch {
            outcomes.refused += 1; // the node is down: a real client tries again shortly
            await sleep(100);
          }
        }
      });

      // under load, a write on one node is readable on the others within 1 s
      await sleep(1_000);
      const probe = await call(nodes[0] as Node, 'POST', '/v1/memories', { memories: [{ id: 'probe', kind: 'fact', text: 'the probe written on node 0' }] });
      expect(probe.status).toBe(200);
      const written = performance.now();
      for (const other of [nodes[1], nodes[2]] as Node[]) {
        while ((await call(other, 'GET', `/v1/evidence/${encodeURIComponent('ev1:private:memory:probe')}`)).status !== 200) {
          expect(performance.now() - written).toBeLessThan(1_000);
          await sleep(10);
        }
      }

      // a node dies without warning and comes back on its own data dir
      await sleep(500);
      const victim = nodes[1] as Node;
      victim.child?.kill('SIGKILL');
      await sleep(1_000);
      victim.child = await serve(victim, store);
      await sleep(1_000);

      // the database goes away for 5 s
      phase = 'outage';
      cluster.stop();
      await sleep(1_000);
      const health = await call(nodes[0] as Node, 'GET', '/v1/health');
      expect(health.body).toMatchObject({ stale: true, store: { kind: 'postgres', connected: false } });
      const read = await call(nodes[2] as Node, 'POST', '/v1/candidates/query', { query: 'shared library note' });
      expect(read.status).toBe(200);
      expect(read.stale).toMatch(/disconnected_ms=\d+/);
      expect((read.body['records'] as unknown[]).length).toBeGreaterThan(0);
      // the packet says so too: an MCP client sees no headers
      expect(read.body['warnings']).toEqual(expect.arrayContaining([expect.stringMatching(/^store_unreachable:stale_since_ms=\d+$/)]));
      await sleep(4_000);
      cluster.restart();
      phase = 'after';
      await sleep(2_500);
      running = false;
      await Promise.all(writers);

      expect(outcomes.other).toEqual([]);
      expect(outcomes.unavailable).toBeGreaterThan(0);
      expect(outcomes.refused).toBeGreaterThan(0);
      expect(acked.size).toBeGreaterThan(50);

      // the table: one linear chain; each memory written once; every acknowledged one there
      const log = await PostgresEventLog.open({ url: store, createSchema: false });
      const ids: string[] = [];
      try {
        const report = await log.verify();
        expect(report, JSON.stringify(report)).toMatchObject({ ok: true });
        for await (const r of log.read({ types: ['memory.written'] })) ids.push((r.data as { id: string }).id);
      } finally {
        await log.close();
      }
      expect(new Set(ids).size).toBe(ids.length);
      acked.add('probe');
      const missing = [...acked].filter((id) => !ids.includes(id));
      expect(missing).toEqual([]);

      // every node converges on the table and can read every acknowledged write
      const head = (await call(nodes[0] as Node, 'GET', '/v1/health')).body['store'] as { table_head: number };
      for (const n of nodes) {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const h = (await call(n, 'GET', '/v1/health')).body as { stale: boolean; projection_lag: number; head: { seq: number } };
          if (!h.stale && h.projection_lag === 0 && h.head.seq >= head.table_head) break;
          if (Date.now() > deadline) throw new Error(`node ${n.port} did not converge: ${JSON.stringify(h)}`);
          await sleep(100);
        }
        const stats = (await call(n, 'GET', '/v1/stats')).body as { items: { by_layer: Record<string, number> } };
        expect(stats.items.by_layer['memory']).toBe(ids.length);
        for (const id of [...acked].filter((_, i) => i % 25 === 0)) {
          const res = await call(n, 'GET', `/v1/evidence/${encodeURIComponent(`ev1:private:memory:${id}`)}`);
          expect(res.status, `${id} on node ${n.port}`).toBe(200);
        }
      }
    } finally {
      running = false;
      for (const n of nodes) n.child?.kill('SIGKILL');
      for (const d of dirs) d.cleanup();
    }
  }, 120_000);
});
