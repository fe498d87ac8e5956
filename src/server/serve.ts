// Starting and stopping the service. Start-up: open the log, listen (health answers, other routes
// 503), catch the projections up, then serve. Shutdown: stop accepting, finish in-flight requests
// and appends, snapshot, close the log. The library comes from the one assembly path
// (src/store.ts beginStore → ready, the facade over it), or is handed in opened (openKioku).
import { join } from 'node:path';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { resolvePaths, type KiokuPaths } from '../config.js';
import type { Embedder } from '../embed/index.js';
import { KiokuError } from '../errors.js';
import { defaultAssetPolicy, LocalKioku } from '../kioku.js';
import type { AssetRoots } from '../knowledge/asset-policy.js';
import { clearStopMarker, removeRunFile, writeRunFile, type StartedBy } from '../run-file.js';
import type { Judge } from '../recall/index.js';
import { beginStore } from '../store.js';
import { buildApp, type ServerState } from './app.js';
import { authFileOf, loadAuth, type AuthConfig } from './auth.js';
import { recallConfigFromEnv } from '../recall/config.js';
import { lifecycleEveryFromEnv, startLifecycleTimer, type LifecycleTimer } from './lifecycle-timer.js';
import { removePurgedUploads } from '../knowledge/asset-files.js';

export interface ServeOptions {
  /**
   * A library opened already (openKioku): served as it is, and closed with the server. Without it
   * the server opens the library of `data`/`store` itself, listening while its projections catch up.
   */
  kioku?: LocalKioku;
  data?: string | undefined;
  /** the event store (default $KIOKU_STORE or the LevelDB log under the data dir) */
  store?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  authFile?: string | undefined;
  allowNonLoopback?: boolean | undefined;
  embedder?: Embedder;
  judge?: Judge;
  logger?: boolean;
  rateLimitPerMinute?: number;
  /** embed new items in the background (default true) */
  backgroundIndexing?: boolean;
  /** namespace → folders whose files may be registered as assets by path (default: KIOKU_ASSET_ROOTS) */
  assetRoots?: AssetRoots;
  /** who started it, for the run file and `kioku status` (default user) */
  startedBy?: StartedBy;
  /** when the port is taken, listen on any free one instead of failing (auto-started services) */
  portFallback?: boolean;
  /** minutes without a request after which the service should stop, recorded in the run file */
  idleShutdownMin?: number;
  /** hours between runs of the lifecycle job (default KIOKU_LIFECYCLE_EVERY_H, else 24; 0 = off) */
  lifecycleEveryHours?: number;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  auth: AuthConfig;
  /** when the last request arrived (ms since the epoch), for the idle shutdown */
  lastRequestAt(): number;
  state: ServerState;
  /** resolves once the store is open and projections have caught up */
  ready: Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 18972;

/** KIOKU_PORT, or the default; anything but a port number is a usage error naming the variable. */
export function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(port) || port > 65_535)
    throw new KiokuError('KIOKU_USAGE', `KIOKU_PORT must be a port number 0–65535 (got "${raw}")`, { details: { field: 'KIOKU_PORT' } });
  return port;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

/** Where to listen: loopback, or another address only when allowed and tokens are required. */
function bindAddress(options: ServeOptions, auth: AuthConfig): { host: string; port: number } {
  const host = options.host ?? process.env['KIOKU_HOST'] ?? '127.0.0.1';
  const port = options.port ?? portFromEnv(process.env['KIOKU_PORT']);
  if (isLoopback(host)) return { host, port };
  const allowed = options.allowNonLoopback ?? process.env['KIOKU_ALLOW_NON_LOOPBACK'] === '1';
  if (!allowed || !auth.required)
    throw new KiokuError(
      'KIOKU_BIND_REFUSED',
      `refusing to listen on ${host}: a non-loopback address needs KIOKU_ALLOW_NON_LOOPBACK=1 and tokens in ${auth.file} (or use an SSH tunnel)`,
      { details: { host } },
    );
  return { host, port };
}

/** The library being served: its log and projections (closed last), and the facade once caught up. */
interface ServedLibrary {
  paths: KiokuPaths;
  log: LocalKioku['log'];
  projections: LocalKioku['projections'];
  kioku(onProgress: (done: number, total: number) => void): Promise<LocalKioku>;
  /** a start given up before listening: what was opened for it is closed */
  abandon(): Promise<void>;
}

/** The library of the options through the one assembly path: the log opened now, the projections caught up by `kioku()`. */
async function openLibrary(options: ServeOptions, paths: KiokuPaths, auth: AuthConfig): Promise<ServedLibrary> {
  if (options.kioku) {
    const kioku = options.kioku;
    return { paths, log: kioku.log, projections: kioku.projections, kioku: async () => kioku, abandon: () => kioku.close() };
  }
  // a bad asset root stops the start, as a broken auth file does; the auth file is never content
  const assets = defaultAssetPolicy(paths, [auth.file], options.assetRoots);
  const opening = await beginStore({
    data: options.data,
    store: options.store,
    // the HNSW graphs finish reading after the service is ready: a turn that needs them waits for them, as it waits for the model
    restoreFilesInBackground: true,
    // a snapshot discarded and rebuilt, a projection stopped: said on stderr, not only with --log-requests
    onWarning: (m) => process.stderr.write(`kioku: warning: ${m}\n`),
  });
  const kiokuOptions = {
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.judge ? { judge: options.judge } : {}),
    backgroundIndexing: options.backgroundIndexing ?? true,
    actor: 'http',
    assets,
  };
  return {
    paths,
    log: opening.log,
    projections: opening.projections,
    kioku: async (onProgress) => new LocalKioku(await opening.ready(onProgress), kiokuOptions),
    abandon: () => opening.log.close(),
  };
}

/** Build the app and listen; an auto-started service takes another port when the configured one is taken. */
async function listen(options: ServeOptions, auth: AuthConfig, state: ServerState, at: { host: string; port: number }): Promise<FastifyInstance> {
  const app = await buildApp({
    auth,
    state,
    logger: options.logger ?? false,
    ...(options.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
  });
  try {
    await app.listen(at);
  } catch (err) {
    if (!options.portFallback || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || at.port === 0) throw err;
    await app.listen({ host: at.host, port: 0 });
  }
  return app;
}

/** Clients (CLI, MCP, hook) find the service that owns this library through the run file. */
function announce(paths: KiokuPaths, url: string, state: ServerState, options: ServeOptions): void {
  writeRunFile(paths.dataDir, {
    url,
    pid: process.pid,
    started_at: new Date(state.startedAt).toISOString(),
    data_dir: paths.dataDir,
    store: paths.store.kind === 'leveldb' ? 'leveldb' : paths.store.display,
    started_by: options.startedBy ?? 'user',
    ...(options.idleShutdownMin ? { idle_shutdown_min: options.idleShutdownMin } : {}),
  });
  // a service running again: whatever stop the user asked for earlier is over
  clearStopMarker(paths.dataDir);
}

export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const paths = options.kioku?.paths ?? resolvePaths({ data: options.data, store: options.store });
  const auth = loadAuth(options.authFile ?? authFileOf(paths.dataDir));
  const at = bindAddress(options, auth);
  const library = await openLibrary(options, paths, auth);
  const state: ServerState = { ready: false, startedAt: Date.now(), ...(auth.tokenNames ? { tokenNames: (ns: string) => auth.tokenNames?.(ns) ?? [] } : {}) };
  const everyHours = options.lifecycleEveryHours ?? lifecycleEveryFromEnv(process.env['KIOKU_LIFECYCLE_EVERY_H']);
  // a recall switch it cannot read (KIOKU_ACTR=yes) stops the start, as a bad KIOKU_LIFECYCLE_EVERY_H does, not every recall later
  recallConfigFromEnv();
  let lifecycle: LifecycleTimer | undefined;
  let app: FastifyInstance;
  try {
    app = await listen(options, auth, state, at);
  } catch (err) {
    await library.abandon();
    throw err;
  }
  let lastRequest = Date.now();
  app.server.on('request', () => (lastRequest = Date.now()));
  const address = app.server.address();
  const url = `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${typeof address === 'object' && address ? address.port : at.port}`;
  announce(paths, url, state, options);
  const ready = library.kioku((done, total) => (state.progress = { done, total })).then((kioku) => {
    state.store = kioku.store;
    state.core = kioku.core;
    state.knowledge = kioku.knowledge;
    state.kioku = kioku;
    state.ready = true;
    lifecycle = startLifecycleTimer(kioku.store, {
      everyHours,
      lastRunFile: join(paths.dataDir, 'lifecycle-last-run'),
      onError: (err) => process.stderr.write(`kioku: lifecycle job failed: ${String(err)}\n`),
    });
    // uploads a namespace purge renamed aside and did not finish deleting (the service died meanwhile): purged, so gone now
    const uploads = kioku.knowledge.assets.uploadsDir;
    if (uploads) removePurgedUploads(uploads).catch((err: unknown) => process.stderr.write(`kioku: deleting purged uploads failed: ${String(err)}\n`));
  });
  ready.catch((err: unknown) => app.log.error({ err }, 'store failed to open'));
  return { app, url, auth, state, lastRequestAt: () => lastRequest, ready, close: closer(app, state, ready, library, () => lifecycle?.stop()) };
}

/** Stop once (a second call waits for the first): each step runs even when one before it failed (a full disk); the log is always closed. */
function closer(
  app: FastifyInstance,
  state: ServerState,
  ready: Promise<void>,
  library: ServedLibrary,
  stopTimers: () => Promise<void> | undefined,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      state.closing = true;
      // the embedding job stops first (its model call abandoned): a write waiting for its vectors answers now
      void state.core?.indexer.stop().catch(() => undefined);
      // Stop accepting; in-flight requests (and their appends) finish. Keep-alive sockets that turn
      // idle while we wait are closed as they do (otherwise close() would wait for their keep-alive timeout).
      const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(sweeper);
      }
      await ready.catch(() => undefined);
      let failure: unknown;
      const step = (task: () => Promise<void> | undefined) =>
        Promise.resolve()
          .then(task)
          .catch((err: unknown) => void (failure ??= err));
      await step(stopTimers); // a lifecycle run under way finishes its appends first
      await step(() => state.core?.close());
      await step(() => library.projections.close()); // snapshots
      await step(() => library.log.close()); // waits for queued appends, closes the store
      removeRunFile(library.paths.dataDir);
      if (failure !== undefined) throw failure;
    })());
}
