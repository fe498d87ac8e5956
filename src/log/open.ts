// Opening the configured event store: the LevelDB log under the data dir (the embedded
// default) or the PostgreSQL table a team shares (KIOKU_STORE / --store). Every entry point
// (serve, CLI, benches) opens its store here, so the choice is made in one place.
import type { StoreLocation } from '../config.js';
import { FileKeyStore, keysDir, type DataKey } from '../privacy/index.js';
import type { EventStore } from './port.js';
import { PostgresEventLog } from './postgres.js';
import { openLevelStoreToRead, openLog } from './store.js';
import { levelChainSource, type ChainSource } from './verify.js';

export interface OpenEventStoreOptions {
  /** false: refuse to create a store that is not there (verify, show) */
  createIfMissing?: boolean;
  onWarning?: (message: string) => void;
}

export async function openEventStore(where: { dataDir: string; store: StoreLocation }, options: OpenEventStoreOptions = {}): Promise<EventStore> {
  if (where.store.kind === 'postgres') {
    return PostgresEventLog.open({
      url: where.store.url,
      createSchema: options.createIfMissing ?? true,
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
  }
  return openLog(where.dataDir, { createIfMissing: options.createIfMissing ?? true });
}

/**
 * Every data key of a library (what an export or a backup carries beside the chain): the shared
 * keys table on PostgreSQL, else the data dir's key file.
 */
export async function storeDataKeys(where: { dataDir: string; store: StoreLocation }): Promise<DataKey[]> {
  if (where.store.kind !== 'postgres') return new FileKeyStore(keysDir(where.dataDir)).all();
  const log = await PostgresEventLog.open({ url: where.store.url, createSchema: false });
  try {
    return log.dataKeys?.all() ?? [];
  } finally {
    await log.close();
  }
}

/** What `kioku verify` walks: the raw LevelDB (so a damaged one can be inspected) or the table. */
export async function openChainSource(where: {
  dataDir: string;
  store: StoreLocation;
}): Promise<{ source(): ChainSource; close(): Promise<void>; warning?: string }> {
  if (where.store.kind === 'postgres') {
    const log = await PostgresEventLog.open({ url: where.store.url, createSchema: false });
    return { source: () => log.chainSource(), close: () => log.close() };
  }
  const read = await openLevelStoreToRead(where.dataDir);
  return { source: () => levelChainSource(read.db), close: read.close, ...(read.warning ? { warning: read.warning } : {}) };
}
