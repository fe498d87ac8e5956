// Opening the on-disk store: classic-level under <dataDir>/log, with Level's
// open errors mapped onto Kioku's codes so the CLI can say what went wrong.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { isKiokuError, KiokuError } from '../errors.js';
import { readRunFile } from '../run-file.js';
import { AckedHeadFile } from './acked-head.js';
import { EventLog } from './event-log.js';
import type { LevelStore } from './level.js';

export function logDir(dataDir: string): string {
  return join(dataDir, 'log');
}

/** The head Kioku acknowledged, beside the LevelDB folder (acked-head.ts says why). */
export function ackedHeadFile(dataDir: string): string {
  return join(dataDir, 'log.acked');
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

/**
 * Open the store to read it only (verify, export). Opening LevelDB writes (its journal becomes a
 * table), so on a full disk it fails: when the disk lacks room for the journal (or the open says
 * ENOSPC) a copy of the folder in the system's temp dir is opened instead, and the data dir is
 * left as it was. `warning` says so.
 */
export async function openLevelStoreToRead(dataDir: string): Promise<{ db: LevelStore; warning?: string; close(): Promise<void> }> {
  try {
    if (roomToOpen(logDir(dataDir))) {
      const db = await openLevelStore(dataDir, { createIfMissing: false });
      return { db, close: () => db.close() };
    }
  } catch (err) {
    if (!isKiokuError(err, 'KIOKU_STORE_UNREADABLE') || !NO_SPACE.test(err.message)) throw err;
  }
  return openCopyToRead(dataDir);
}

async function openCopyToRead(dataDir: string): Promise<{ db: LevelStore; warning: string; close(): Promise<void> }> {
  const dir = logDir(dataDir);
  // a copy would dodge LevelDB's lock: a running service owns the store, as an open would say
  const service = readRunFile(dataDir);
  if (service) throw mapOpenError(Object.assign(new Error(`held by pid ${service.pid}`), { code: 'LEVEL_LOCKED' }), dir);
  const copy = mkdtempSync(join(tmpdir(), 'kioku-read-'));
  const remove = (): void => rmSync(copy, { recursive: true, force: true });
  try {
    cpSync(dir, logDir(copy), { recursive: true, filter: (src) => !src.endsWith('LOCK') });
    const db = await openLevelStore(copy, { createIfMissing: false });
    return { db, warning: `the disk holding ${dir} is full: read a copy in ${copy} (the data dir was not changed)`, close: () => db.close().finally(remove) };
  } catch (err) {
    remove();
    throw mapOpenError(err, dir);
  }
}

/** Whether the disk holding `dir` can take what an open writes: the journal as a table, and a margin (1 MiB). */
function roomToOpen(dir: string): boolean {
  if (!existsSync(dir)) return true; // the open says the store is missing
  try {
    const journal = readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize > journal + (1 << 20);
  } catch {
    return true;
  }
}

export async function openLog(dataDir: string, options: OpenStoreOptions = {}): Promise<EventLog> {
  const db = await openLevelStore(dataDir, options);
  let acked: AckedHeadFile | undefined;
  try {
    acked = await AckedHeadFile.open(ackedHeadFile(dataDir));
    return await EventLog.open(db, { ownsStore: true, acked });
  } catch (err) {
    await acked?.close().catch(() => undefined);
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

const NO_SPACE = /No space left on device|ENOSPC/i;
