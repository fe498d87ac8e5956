// How a command reaches its library: src/connect.ts's one path, as the CLI takes it (KIOKU_URL:
// that service only; else the store itself unless a live service owns it — LevelDB lets one
// process own a store, architecture.md §measured — else that service, found through its run
// file). The CLI never starts a service. `via` names where the answers came from, for the output.
import type { PathOverrides } from '../../src/config.js';
import { connect, type Connection } from '../../src/connect.js';
import { isKiokuError, KiokuError } from '../../src/errors.js';
import { openKioku } from '../../src/kioku.js';
import { resolveLibrary, type Library } from '../../src/library.js';
import { serviceListening } from '../../src/run-file.js';

export interface CliConnectOptions {
  /** who the writes are recorded as (default cli) */
  actor?: string;
  /** create the library when the store does not exist yet (kioku import: an export goes into a fresh library) */
  createIfMissing?: boolean;
}

/** The facade for a command: a local Kioku over the store, or the library's service (RemoteKioku). */
export function connectKioku(flags: PathOverrides, options: CliConnectOptions = {}): Promise<Connection> {
  return connect({
    ...flags,
    client: 'cli',
    openLocal: () => openKioku({ ...flags, createIfMissing: options.createIfMissing ?? false, actor: options.actor ?? 'cli' }),
  });
}

/**
 * For commands whose local work is below the facade (verify a chain that may be damaged, read
 * stored frames, import with progress and embedding): `local()` on the store unless a live service
 * owns the library (or KIOKU_URL names one); else, or when the store turns out held, `remote()`
 * with that service's connection.
 */
export async function storeOrService<T>(flags: PathOverrides, local: () => Promise<T>, remote: (connection: Connection) => Promise<T>): Promise<T> {
  const library = resolveLibrary(flags);
  const owned = library.remote || (library.url !== undefined && (await serviceListening(library.url)));
  if (!owned) {
    try {
      return await local();
    } catch (err) {
      if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
    }
  }
  const connection = await connectKioku(flags);
  try {
    return await remote(connection);
  } catch (err) {
    throw unanswered(connection.library, err);
  } finally {
    await connection.kioku.close();
  }
}

/** A service that did not answer, named the way the library was named: KIOKU_URL, or the data dir whose run file names it. */
function unanswered(library: Library, err: unknown): unknown {
  // only a transport failure (RemoteKioku keeps it as the cause), never an answer the service gave
  if (!isKiokuError(err, 'KIOKU_SERVICE_UNAVAILABLE') || !(err.cause instanceof Error) || isKiokuError(err.cause) || !library.url) return err;
  const url = library.url;
  return new KiokuError(
    'KIOKU_SERVICE_UNAVAILABLE',
    library.source === 'KIOKU_URL'
      ? `no Kioku service answers at ${url} (KIOKU_URL): ${err.cause.message}`
      : `the service of ${library.dataDir} (pid ${library.running?.pid ?? '?'}, ${url}) does not answer: ${err.cause.message}`,
    { cause: err.cause, details: { url } },
  );
}
