// kioku store init --store postgres://… [--grant ROLE]: create the shared event table (with its
// index and append-only triggers) and the data keys table beside it, and, optionally, grant a node
// role SELECT and INSERT on the events, SELECT, INSERT and DELETE on the keys.
import pg from 'pg';
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { PostgresEventLog } from '../../src/log/postgres.js';
import { grantStatements } from '../../src/log/postgres-schema.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface StoreInitFlags extends OutputOptions, PathOverrides {
  grant?: string;
}

export async function storeInitCommand(flags: StoreInitFlags): Promise<number> {
  const { store } = resolvePaths(flags);
  if (store.kind !== 'postgres') throw new KiokuError('KIOKU_USAGE', 'store init is for a shared store: give --store postgres://… (or KIOKU_STORE)');
  if (flags.grant !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(flags.grant))
    throw new KiokuError('KIOKU_USAGE', '--grant takes a role name (letters, digits, _)');
  const log = await PostgresEventLog.open({ url: store.url, createSchema: true });
  const head = log.head();
  const names = log.tableNames;
  await log.close();
  if (flags.grant) {
    const client = new pg.Client({ connectionString: log.connectionUrl });
    await client.connect();
    try {
      for (const sql of grantStatements(names, flags.grant)) await client.query(sql);
    } catch (err) {
      if ((err as { code?: string }).code === '42704')
        throw new KiokuError('KIOKU_USAGE', `role "${flags.grant}" does not exist: create it first (CREATE ROLE ${flags.grant} LOGIN PASSWORD '…')`);
      throw err;
    } finally {
      await client.end();
    }
  }
  emit(flags, () => `store ready: ${names.table} at ${store.display} (head ${head.seq})${flags.grant ? `; ${flags.grant} may SELECT and INSERT events, and SELECT, INSERT and DELETE data keys` : ''}`, {
    ok: true,
    store: store.display,
    table: names.table,
    head,
    ...(flags.grant ? { granted: flags.grant } : {}),
  });
  return EXIT.ok;
}
