// A PostgreSQL for a bench: the one at `adminUrl`, or a throwaway cluster (tools/pg/cluster.sh:
// initdb in a temp folder, loopback, a free port) stopped and removed by stop(). Each store a bench
// measures gets a fresh database.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

const SCRIPT = resolve(import.meta.dirname, '..', 'pg', 'cluster.sh');

export interface ScratchPostgres {
  /** a new empty database; its URL */
  freshDatabase(): Promise<string>;
  stop(): void;
}

export async function scratchPostgres(adminUrl?: string): Promise<ScratchPostgres> {
  let clusterDir: string | undefined;
  if (!adminUrl) {
    clusterDir = mkdtempSync(join(tmpdir(), 'kioku-bench-pg-'));
    const port = await new Promise<number>((done) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    adminUrl = execFileSync(SCRIPT, ['start', clusterDir, String(port)], { encoding: 'utf8' }).trim();
  }
  const admin = adminUrl;
  let dbCounter = 0;
  return {
    async freshDatabase() {
      const name = `kioku_bench_${process.pid}_${++dbCounter}`;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name}`);
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return admin.replace(/\/[^/?]*(\?.*)?$/, `/${name}`);
    },
    stop() {
      if (!clusterDir) return;
      execFileSync(SCRIPT, ['stop', clusterDir]);
      rmSync(clusterDir, { recursive: true, force: true });
    },
  };
}
