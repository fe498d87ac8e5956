// Opening a whole Kioku store: the log plus its projections, caught up. The facade
// (src/kioku.ts) is built over it; tools that only need the log and projections
// (rebuild, log export, benches) use it directly.
import { defaultProjections, ProjectionRunner, type ProgressFn, type Projection } from '../projections/index.js';
import type { FoldWorkerScript } from '../projections/worker-fold/index.js';
import { resolvePaths, type KiokuPaths, type PathOverrides } from './config.js';
import { openEventStore, type EventStore } from './log/index.js';

export interface KiokuStore {
  paths: KiokuPaths;
  log: EventStore;
  projections: ProjectionRunner;
  close(): Promise<void>;
}

export interface OpenStoreOptions extends PathOverrides {
  /** an event store to use instead of the LevelDB log under the data dir (a shared one, in tests) */
  log?: EventStore;
  projections?: Projection[];
  createIfMissing?: boolean;
  snapshotEvery?: number;
  snapshotSpacing?: number;
  /** see RunnerOptions.restoreFilesInBackground (the service sets it) */
  restoreFilesInBackground?: boolean;
  /** see RunnerOptions.foldOnWorkerFrom and foldWorker */
  foldOnWorkerFrom?: number;
  foldWorker?: FoldWorkerScript;
  onProgress?: ProgressFn;
  onWarning?: (message: string) => void;
}

export async function openStore(options: OpenStoreOptions = {}): Promise<KiokuStore> {
  const paths = resolvePaths(options);
  const log =
    options.log ??
    (await openEventStore(paths, {
      createIfMissing: options.createIfMissing ?? true,
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    }));
  const projections = new ProjectionRunner(log, options.projections ?? defaultProjections(), {
    // a store that is not the one under the data dir must not share its snapshots
    ...(options.log ? {} : { snapshotDir: paths.projectionsDir }),
    ...(options.snapshotEvery !== undefined ? { snapshotEvery: options.snapshotEvery } : {}),
    ...(options.snapshotSpacing !== undefined ? { snapshotSpacing: options.snapshotSpacing } : {}),
    ...(options.restoreFilesInBackground ? { restoreFilesInBackground: true } : {}),
    ...(options.foldOnWorkerFrom !== undefined ? { foldOnWorkerFrom: options.foldOnWorkerFrom } : {}),
    ...(options.foldWorker ? { foldWorker: options.foldWorker } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  try {
    await projections.open(options.onProgress);
  } catch (err) {
    await log.close();
    throw err;
  }
  return {
    paths,
    log,
    projections,
    async close() {
      await projections.close();
      await log.close();
    },
  };
}
