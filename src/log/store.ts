// Opening the on-disk store: classic-level under <dataDir>/log, with Level's
// open errors mapped onto Kioku's codes so the CLI can say what went wrong.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { KiokuError } from '../errors.js';
import { EventLog } from './event-log.js';
import type { LevelStore } from './level.js';

export function logDir(dataDir: string): string {
  return join(dataDir, 'log');
}

export interface OpenStoreOptions {
  /** false: refuse to create a new store (verify, show) */
  createIfMissing?: boolean;
}

export async function openLevelStore(dataDir: string, options: OpenStoreOptions = {}): Promise<LevelStore> {
  const dir = logDir(dataDir);
  const create = options.createIfMissing ?? true;
  if (!create && !existsSync(dir)) {
    throw new KiokuError('KIOKU_STORE_MISSING', `no Kioku store at ${dataDir} (expected a LevelDB in ${dir}); set --data or KIOKU_DATA_DIR`, {
      details: { dataDir },
    });
  }
  const db = new ClassicLevel<string, string>(dir, { createIfMissing: create });
  try {
    await db.open();
  } catch (err) {
    throw mapOpenError(err, dir);
  }
  return db as unknown as LevelStore;
}

export async function openLog(dataDir: string, options: OpenStoreOptions = {}): Promise<EventLog> {
  const db = await openLevelStore(dataDir, options);
  try {
    return await EventLog.open(db, { ownsStore: true });
  } catch (err) {
    await db.close().catch(() => undefined);
    throw mapOpenError(err, logDir(dataDir));
  }
}

function levelCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'LEVEL_DATABASE_NOT_OPEN') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function mapOpenError(err: unknown, dir: string): KiokuError {
  if (err instanceof KiokuError) return err;
  const code = levelCode(err);
  const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  if (code === 'LEVEL_LOCKED') {
    return new KiokuError('KIOKU_STORE_LOCKED', `the store at ${dir} is in use by another process (is \`kioku serve\` running?)`, {
      cause: err,
      details: { dir },
    });
  }
  return new KiokuError('KIOKU_STORE_UNREADABLE', `the store at ${dir} cannot be read: ${reason}`, {
    cause: err,
    details: { dir, level_code: code ?? null },
  });
}
