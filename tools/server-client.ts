// LevelDB lets one process own a store: while `kioku serve` runs, commands ask that
// server over HTTP instead (architecture.md §measured). The server is found at KIOKU_URL, else through the
// run file it keeps in the data dir, else at http://$KIOKU_HOST:$KIOKU_PORT
// (127.0.0.1:18972); KIOKU_TOKEN is sent as its bearer token, to that endpoint only.
import { resolvePaths, type PathOverrides } from '../src/config.js';
import { requestKioku } from '../src/client.js';
import { KiokuError, isKiokuError } from '../src/errors.js';
import { openKioku, type Kioku, type KiokuStore } from '../src/kioku.js';
import { RemoteKioku } from '../src/remote.js';
import { readRunFile } from '../src/run-file.js';

export function serverUrl(env: NodeJS.ProcessEnv = process.env, flags: PathOverrides = {}): string {
  if (env['KIOKU_URL']) return env['KIOKU_URL'].replace(/\/+$/, '');
  const running = readRunFile(resolvePaths(flags).dataDir);
  if (running) return running.url;
  const host = env['KIOKU_HOST'] ?? '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${env['KIOKU_PORT'] ?? '18972'}`;
}

/** One request to the running server; its error body becomes the same typed error the core would throw. */
export async function askServer<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const base = serverUrl();
  try {
    return await requestKioku<T>(base, path, { method, body, token: process.env['KIOKU_TOKEN'], timeoutMs: 120_000 });
  } catch (err) {
    if (isKiokuError(err)) throw err;
    throw new KiokuError('KIOKU_STORE_LOCKED', `the store is in use by another process, and no Kioku server answers at ${base} (set KIOKU_URL)`, {
      cause: err,
    });
  }
}

/**
 * Run a read-only command on the store itself, or — when a server holds it — through that
 * server. `via` says which, so the output can say where its figures came from.
 */
export async function withStoreOrServer<T>(
  flags: PathOverrides,
  local: (store: KiokuStore) => Promise<T>,
  remote: () => Promise<T>,
): Promise<{ result: T; via: string }> {
  let store: KiokuStore;
  try {
    store = await openKioku({ ...flags, createIfMissing: false });
  } catch (err) {
    if (isKiokuError(err, 'KIOKU_STORE_LOCKED')) return { result: await remote(), via: `the server at ${serverUrl()}` };
    throw err;
  }
  try {
    return { result: await local(store), via: 'the store' };
  } finally {
    await store.close();
  }
}

/**
 * The facade for a command: a local Kioku when this process can own the store, the running
 * server's (RemoteKioku) when one holds it. `via` says which, for the output.
 */
export async function connectKioku(flags: PathOverrides): Promise<{ kioku: Kioku; via: string }> {
  try {
    return { kioku: await openKioku({ ...flags, createIfMissing: false, actor: 'cli' }), via: 'the store' };
  } catch (err) {
    if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
    const url = serverUrl(process.env, flags);
    return { kioku: new RemoteKioku(url, { token: process.env['KIOKU_TOKEN'] }), via: `the server at ${url}` };
  }
}
