// kioku serve [--host H] [--port P] [--data DIR]  (npm start)
// One service per library: a second `kioku serve` for a library that is already served says where
// it runs and how to stop it, and exits 0 (issue 31: it failed with KIOKU_STORE_LOCKED instead).
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { KiokuError, isKiokuError } from '../../src/errors.js';
import { stopHint } from '../../src/library.js';
import { readRunFile, serviceListening, writeStopMarker, type RunInfo, type StartedBy } from '../../src/run-file.js';
import { describeAuth, startServer } from '../../src/server/index.js';
import { describeFailure, guardBackgroundFailures } from '../../src/server/errors.js';

export interface ServeFlags extends PathOverrides {
  host?: string;
  port?: string;
  quiet?: boolean;
  logRequests?: boolean;
  /** set by the hook or `kioku mcp` when they start the service (hidden flag) */
  startedBy?: string;
}

type Server = Awaited<ReturnType<typeof startServer>>;

export async function serveCommand(flags: ServeFlags): Promise<number> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!/^\d+$/.test(flags.port ?? '') || port > 65_535))
    throw new KiokuError('KIOKU_USAGE', `--port must be a port number 0–65535, got '${flags.port}'`);
  const startedBy: StartedBy = flags.startedBy === 'hook' || flags.startedBy === 'mcp' ? flags.startedBy : 'user';
  const idleMin = startedBy === 'user' ? undefined : idleShutdownFromEnv(process.env['KIOKU_IDLE_SHUTDOWN']);
  const dataDir = resolvePaths(flags).dataDir;
  const running = readRunFile(dataDir);
  // a run file whose pid lives but whose port is dead was left by a killed service (its pid reused): not a service
  if (running && (await serviceListening(running.url))) return alreadyRunning(dataDir, running);
  // quiet by default: one start-up line, then warnings and errors; request logs (query strings redacted) on request
  const logRequests = Boolean(flags.logRequests) || process.env['KIOKU_LOG_REQUESTS'] === '1';
  guardBackgroundFailures();
  let server: Server;
  try {
    server = await startServer({
      data: flags.data,
      store: flags.store,
      host: flags.host,
      port,
      logger: logRequests && !flags.quiet,
      startedBy,
      // a service a client started takes the configured port when free, another one when not
      portFallback: startedBy !== 'user' && port === undefined,
      ...(idleMin ? { idleShutdownMin: idleMin } : {}),
    });
  } catch (err) {
    if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
    // another serve took the store a moment ago: it writes its run file as soon as it listens
    for (let i = 0; i < 30; i++) {
      const other = readRunFile(dataDir);
      if (other && other.pid !== running?.pid) return alreadyRunning(dataDir, other);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new KiokuError(
      'KIOKU_STORE_LOCKED',
      `the store in ${dataDir} is in use by another process that is not a Kioku service (no run file); wait for that command to finish`,
      { cause: err, details: { dataDir } },
    );
  }
  // the signals are ours from here on (a Ctrl-C while the library opens stops it just as cleanly)
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let stopped: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const stop = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      clearInterval(idleTimer);
      process.stderr.write(`kioku: ${why}: finishing in-flight requests, snapshotting, closing the store\n`);
      // a failure while stopping (a snapshot on a full disk) is reported, not a crash: the log holds everything
      await server.close().catch((err: unknown) => process.stderr.write(`kioku: warning: while stopping: ${describeFailure(err)}\n`));
      stopped();
    })());
  process.once('SIGINT', () => {
    // Ctrl-C on a service the user started: hook and MCP leave it stopped until `kioku serve` runs again
    if (startedBy === 'user') writeStopMarker(dataDir, { at: new Date().toISOString(), by: 'Ctrl-C on kioku serve', url: server.url });
    void stop('SIGINT');
  });
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // one start-up line, when the service is ready; a slow start (large library) says what it is doing meanwhile
  const slow = setTimeout(() => process.stderr.write(`kioku: opening the library in ${dataDir} (loading snapshots, catching up)…\n`), 1_500);
  try {
    await server.ready;
  } catch (err) {
    clearTimeout(slow);
    await server.close(); // a store that cannot open is an exit, never a service answering 503 for ever
    throw err;
  }
  clearTimeout(slow);
  if (stopping) return done.then(() => 0); // stopped while opening
  process.stderr.write(`${startupLine(server, dataDir)}\n`);
  if (idleMin) {
    const idleMs = idleMin * 60_000;
    idleTimer = setInterval(
      () => {
        if (Date.now() - server.lastRequestAt() >= idleMs) void stop(`no request for ${idleMin} min (KIOKU_IDLE_SHUTDOWN)`);
      },
      Math.min(60_000, Math.max(250, idleMs / 4)),
    );
    idleTimer.unref();
  }
  await done;
  return 0;
}

/** `kioku: ready on URL (data …, store …; auth …; head N, embedder E; pid P)` — the line the README shows. */
function startupLine(server: Server, dataDir: string): string {
  const store = server.state.store?.paths.store;
  const storeText = !store || store.kind === 'leveldb' ? 'leveldb' : store.display;
  return (
    `kioku: ready, listening on ${server.url} (data ${dataDir}, store ${storeText}; ${describeAuth(server.auth)}; ` +
    `head ${server.state.store?.log.head().seq ?? 0}, embedder ${server.state.core?.embedder?.id ?? 'none'}${rebuilt(server)}; pid ${process.pid})`
  );
}

/** A service already serves this library: say where and how to stop it; not an error. */
function alreadyRunning(dataDir: string, info: RunInfo): number {
  process.stderr.write(
    `kioku: already running for ${dataDir} at ${info.url} (pid ${info.pid}, started ${info.started_by ? `by ${info.started_by} ` : ''}at ${info.started_at}); ` +
      `stop it with \`${stopHint({ dataDir })}\`\n`,
  );
  return 0;
}

/** KIOKU_IDLE_SHUTDOWN: minutes (a positive number) after which an auto-started service with no requests stops. */
export function idleShutdownFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '' || raw.trim() === '0') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new KiokuError('KIOKU_USAGE', `KIOKU_IDLE_SHUTDOWN must be a number of minutes, got '${raw}'`);
  return n;
}

/** The projections whose snapshots were found unusable at start-up (each warned above, with its reason), folded from the log instead. */
function rebuilt(server: Server): string {
  const discarded = server.state.store?.projections.status().filter((p) => p.discarded) ?? [];
  return discarded.length ? `; rebuilt from the log: ${discarded.map((p) => p.name).join(', ')}` : '';
}
