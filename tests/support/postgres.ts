// A real PostgreSQL for the tests: a throwaway cluster per test file (tools/pg/cluster.sh:
// initdb in a temp folder, loopback, its own port), and a fresh database per store. Nothing
// is mocked. Where PostgreSQL is not installed the suites skip, unless KIOKU_TEST_PG=require
// (set by .ci/run), where a missing server fails them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../helpers.js';

const SCRIPT = join(import.meta.dirname, '..', '..', 'tools', 'pg', 'cluster.sh');

export function postgresInstalled(): boolean {
  if (process.env['KIOKU_PG_BIN']) return existsSync(join(process.env['KIOKU_PG_BIN'], 'pg_ctl'));
  try {
    return readdirSync('/usr/lib/postgresql').some((v) => existsSync(join('/usr/lib/postgresql', v, 'bin', 'pg_ctl')));
  } catch {
    return false;
  }
}

/** Whether PostgreSQL suites run here (they must where KIOKU_TEST_PG=require). */
export const PG_AVAILABLE = postgresInstalled() || process.env['KIOKU_TEST_PG'] === 'require';

export interface PgCluster {
  /** superuser URL of the `postgres` database */
  adminUrl: string;
  port: number;
  /** a new empty database; its URL */
  createDatabase(prefix?: string): Promise<string>;
  /** stop the server (fast shutdown: connections are cut) */
  stop(): void;
  /** start it again on the same port and folder */
  restart(): void;
  destroy(): void;
}

let counter = 0;

export async function startPgCluster(): Promise<PgCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kioku-pg-'));
  const port = await freePort();
  const adminUrl = execFileSync(SCRIPT, ['start', dir, String(port)], { encoding: 'utf8' }).trim();
  let running = true;
  return {
    adminUrl,
    port,
    async createDatabase(prefix = 'kioku_test') {
      const name = `${prefix}_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return adminUrl.replace(/\/postgres$/, `/${name}`);
    },
    stop() {
      execFileSync(SCRIPT, ['stop', dir]);
      running = false;
    },
    restart() {
      execFileSync(SCRIPT, ['restart', dir]);
      running = true;
    },
    destroy() {
      if (running) {
        try {
          execFileSync(SCRIPT, ['stop', dir]);
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
