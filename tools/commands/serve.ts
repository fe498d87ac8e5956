// kioku serve [--host H] [--port P] [--data DIR]  (npm start)
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { describeAuth, startServer } from '../../src/server/index.js';
import { describeFailure, guardBackgroundFailures } from '../../src/server/errors.js';

export interface ServeFlags extends PathOverrides {
  host?: string;
  port?: string;
  quiet?: boolean;
  logRequests?: boolean;
}

export async function serveCommand(flags: ServeFlags): Promise<number> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isSafeInteger(port) || port < 0 || port > 65_535)) throw new KiokuError('KIOKU_USAGE', '--port must be 0–65535');
  // quiet by default: one start-up line, then warnings and errors; request logs (query strings redacted) on request
  const logRequests = Boolean(flags.logRequests) || process.env['KIOKU_LOG_REQUESTS'] === '1';
  guardBackgroundFailures();
  const server = await startServer({ data: flags.data, store: flags.store, host: flags.host, port, logger: logRequests && !flags.quiet });
  process.stderr.write(
    `kioku: listening on ${server.url} (data ${server.state.store?.paths.dataDir ?? flags.data ?? process.env['KIOKU_DATA_DIR'] ?? '~/.kioku'}; ${describeAuth(server.auth)})\n`,
  );
  await server.ready.then(
    () => process.stderr.write(`kioku: ready (head ${server.state.store?.log.head().seq ?? 0}, embedder ${server.state.core?.embedder?.id ?? 'none'}${rebuilt(server)})\n`),
    async (err: unknown) => {
      await server.close(); // a store that cannot open is an exit, never a service answering 503 for ever
      throw err;
    },
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      process.stderr.write(`kioku: ${signal}: finishing in-flight requests, snapshotting, closing the store\n`);
      // a failure while stopping (a snapshot on a full disk) is reported, not a crash: the log holds everything
      void server.close().then(resolve, (err: unknown) => {
        process.stderr.write(`kioku: warning: while stopping: ${describeFailure(err)}\n`);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

/** The projections whose snapshots were found unusable at start-up (each warned above, with its reason), folded from the log instead. */
function rebuilt(server: Awaited<ReturnType<typeof startServer>>): string {
  const discarded = server.state.store?.projections.status().filter((p) => p.discarded) ?? [];
  return discarded.length ? `; rebuilt from the log: ${discarded.map((p) => p.name).join(', ')}` : '';
}
