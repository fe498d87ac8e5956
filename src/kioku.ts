// Opening a whole Kioku store: the log plus its projections, caught up.
// Every interface (CLI now; HTTP, MCP and hook later) opens the store through here.
import { defaultProjections, ProjectionRunner, type ProgressFn, type Projection } from '../projections/index.js';
import { resolvePaths, type KiokuPaths, type PathOverrides } from './config.js';
import { openLog, type EventStore } from './log/index.js';

export interface KiokuStore {
  paths: KiokuPaths;
  log: EventStore;
  projections: ProjectionRunner;
  close(): Promise<void>;
}

export interface OpenKiokuOptions extends PathOverrides {
  projections?: Projection[];
  createIfMissing?: boolean;
  snapshotEvery?: number;
  onProgress?: ProgressFn;
  onWarning?: (message: string) => void;
}

export async function openKioku(options: OpenKiokuOptions = {}): Promise<KiokuStore> {
  const paths = resolvePaths(options);
  const log = await openLog(paths.dataDir, { createIfMissing: options.createIfMissing ?? true });
  const projections = new ProjectionRunner(log, options.projections ?? defaultProjections(), {
    snapshotDir: paths.projectionsDir,
    ...(options.snapshotEvery !== undefined ? { snapshotEvery: options.snapshotEvery } : {}),
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
