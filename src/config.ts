// Where Kioku keeps things. One data dir (default ~/.kioku, KIOKU_DATA_DIR, --data) and one
// event store: the LevelDB log inside it (the default), or a PostgreSQL table shared by several
// nodes (KIOKU_STORE=postgres://…, --store), each node keeping its projections in its data dir.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { KiokuError } from './errors.js';
import { join, resolve } from 'node:path';

/** Where the chain lives. */
export type StoreLocation =
  { kind: 'leveldb'; dir: string } | { kind: 'postgres'; url: string; /** the URL without its password, for messages */ display: string };

export interface KiokuPaths {
  dataDir: string;
  store: StoreLocation;
  /** LevelDB holding the log */
  logDir: string;
  /** projection snapshots, one folder per projection */
  projectionsDir: string;
  /** signed checkpoints, one JSON object per line */
  anchorsFile: string;
  /** Ed25519 private key that signs anchors; never written into the log */
  anchorKeyFile: string;
}

export interface PathOverrides {
  data?: string | undefined;
  key?: string | undefined;
  anchors?: string | undefined;
  /** `leveldb` (default) or a postgres:// URL */
  store?: string | undefined;
}

export function resolvePaths(overrides: PathOverrides = {}, env: NodeJS.ProcessEnv = process.env): KiokuPaths {
  const dataDir = resolve(overrides.data ?? env['KIOKU_DATA_DIR'] ?? join(homedir(), '.kioku'));
  const store = parseStore(overrides.store ?? env['KIOKU_STORE'], join(dataDir, 'log'));
  return {
    dataDir,
    store,
    logDir: join(dataDir, 'log'),
    // a node of a shared store keeps its snapshots apart from the local log's (one folder per store)
    projectionsDir: store.kind === 'postgres' ? join(dataDir, 'nodes', storeId(store.display), 'projections') : join(dataDir, 'projections'),
    anchorsFile: resolve(overrides.anchors ?? env['KIOKU_ANCHORS_FILE'] ?? join(dataDir, 'anchors.jsonl')),
    anchorKeyFile: resolve(overrides.key ?? env['KIOKU_ANCHOR_KEY'] ?? join(dataDir, 'keys', 'anchor-ed25519.pem')),
  };
}

/** `leveldb`, empty or absent → the log under the data dir; postgres:// or postgresql:// → that database. */
export function parseStore(value: string | undefined, levelDir: string): StoreLocation {
  const v = value?.trim();
  if (!v || v === 'leveldb') return { kind: 'leveldb', dir: levelDir };
  if (/^postgres(ql)?:\/\//i.test(v)) {
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      throw new KiokuError('KIOKU_USAGE', 'the store URL is not a valid URL (expected postgres://user:password@host:port/database)');
    }
    if (url.password) url.password = '***';
    return { kind: 'postgres', url: v, display: url.toString() };
  }
  throw new KiokuError('KIOKU_USAGE', `unknown store "${redactCredentials(v).slice(0, 60)}": use leveldb (the default) or a postgres:// URL`);
}

/**
 * `text` with the secrets of any URL in it masked: the password of `scheme://user:password@`
 * (whatever the scheme, a typo included) and `password=` parameters. For every message or log
 * line that may quote a connection string.
 */
export function redactCredentials(text: string): string {
  return text.replace(/(\/\/[^:@/\s]*):\S*@/g, '$1:***@').replace(/([?&;\s]password=)[^&\s]*/gi, '$1***');
}

function storeId(display: string): string {
  return createHash('sha256').update(display).digest('hex').slice(0, 12);
}
