// LevelDB lets one process own a store: while `kioku serve` runs, commands ask that service over
// HTTP instead (architecture.md §measured). Which library and which service: src/library.ts,
// decided once — a command always reaches the service that owns the library its flags and
// environment name (its run file), or KIOKU_URL; never another. KIOKU_TOKEN is sent as the
// bearer token, to that endpoint only.
import type { PathOverrides } from '../src/config.js';
import { requestKioku } from '../src/client.js';
import { KiokuError, isKiokuError } from '../src/errors.js';
import { openKioku, type Kioku, type KiokuStore } from '../src/kioku.js';
import { describeService, resolveLibrary, type Library } from '../src/library.js';
import { RemoteKioku } from '../src/remote.js';
import { serviceListening } from '../src/run-file.js';

export { describeService, resolveLibrary, type Library } from '../src/library.js';

/** One request to the library's service; its error body becomes the same typed error the core would throw. */
export async function askLibrary<T>(library: Library, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const base = library.url;
  if (!base) throw new KiokuError('KIOKU_SERVICE_UNAVAILABLE', `no Kioku service runs for ${library.dataDir}`, { details: { dataDir: library.dataDir } });
  try {
    return await requestKioku<T>(base, path, { method, body, token: process.env['KIOKU_TOKEN'], timeoutMs: 120_000 });
  } catch (err) {
    if (isKiokuError(err)) throw err;
    const cause = err instanceof Error ? err.message : String(err);
    throw new KiokuError(
      'KIOKU_SERVICE_UNAVAILABLE',
      library.source === 'KIOKU_URL'
        ? `no Kioku service answers at ${base} (KIOKU_URL): ${cause}`
        : `the service of ${library.dataDir} (pid ${library.running?.pid ?? '?'}, ${base}) does not answer: ${cause}`,
      { cause: err, details: { url: base } },
    );
  }
}

/**
 * The library, and its service if that one listens: a run file whose pid lives on but whose port
 * is dead (a killed service, its pid reused) names no service, and the command opens the store.
 */
export async function liveLibrary(flags: PathOverrides): Promise<Library> {
  const library = resolveLibrary(flags);
  if (library.source !== 'run file' || !library.url || (await serviceListening(library.url))) return library;
  const { url: _url, source: _source, running: _running, ...rest } = library;
  return rest;
}

/** The store is locked and no run file names its owner: wait a moment for a starting service's run file. */
export async function serviceOfLockedStore(flags: PathOverrides, err: unknown): Promise<Library> {
  for (let i = 0; i < 15; i++) {
    const library = resolveLibrary(flags);
    if (library.url) return library;
    await new Promise((r) => setTimeout(r, 100));
  }
  const { dataDir } = resolveLibrary(flags);
  throw new KiokuError(
    'KIOKU_STORE_LOCKED',
    `the store in ${dataDir} is in use by another process, and no Kioku service runs for it (no run file); wait for that command to finish`,
    { cause: err, details: { dataDir } },
  );
}

/**
 * Run a read-only command through the library's service when one runs (or KIOKU_URL names one),
 * else on the store itself. `via` says which, so the output can say where its figures came from.
 */
export async function withStoreOrServer<T>(
  flags: PathOverrides,
  local: (store: KiokuStore) => Promise<T>,
  remote: (library: Library) => Promise<T>,
): Promise<{ result: T; via: string }> {
  let library = await liveLibrary(flags);
  if (!library.url) {
    let store: KiokuStore | undefined;
    try {
      store = await openKioku({ ...flags, createIfMissing: false });
    } catch (err) {
      if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
      library = await serviceOfLockedStore(flags, err);
    }
    if (store) {
      try {
        return { result: await local(store), via: 'the store' };
      } finally {
        await store.close();
      }
    }
  }
  return { result: await remote(library), via: describeService(library) };
}

/**
 * The facade for a command: the library's service (RemoteKioku) when one runs or KIOKU_URL names
 * one, else a local Kioku over the store. `via` says which, for the output.
 */
export async function connectKioku(flags: PathOverrides): Promise<{ kioku: Kioku; via: string; library: Library }> {
  let library = await liveLibrary(flags);
  if (!library.url) {
    try {
      return { kioku: await openKioku({ ...flags, createIfMissing: false, actor: 'cli' }), via: 'the store', library };
    } catch (err) {
      if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
      library = await serviceOfLockedStore(flags, err);
    }
  }
  return { kioku: new RemoteKioku(library.url as string, { token: process.env['KIOKU_TOKEN'] }), via: describeService(library), library };
}
