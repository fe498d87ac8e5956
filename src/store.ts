// Opening a whole Kioku store: the log plus its projections, caught up. The one assembly
// below the facade: openKioku (src/kioku.ts) builds the facade over it, the service opens it
// in two steps (beginStore, then ready() while it listens), and tools that only need the log
// and projections (rebuild, log export, benches) use it directly. Recall takes the log and
// projections it builds (RecallStore) and never imports this file.
import { defaultProjections, ProjectionRunner, type ProgressFn, type Projection } from '../projections/index.js';
import type { FoldWorkerScript } from '../projections/worker-fold/index.js';
import { resolvePaths, type KiokuPaths, type PathOverrides } from './config.js';
import { fingerprint } from './knowledge/index.js';
import { GroupCommitStore, openEventStore, type EventStore } from './log/index.js';
import { FileKeyStore, keysDir, openVault, redactWithVault, sealer, sealOptionsFromEnv, secretRedactor, type Sealer, type SealOptions, type SecretVault } from './privacy/index.js';

/** Secrets (issue 33): the vault of this data dir and the redaction every append of this store passes through. */
export interface StorePrivacy {
  vault: SecretVault;
  /** a text as this store would keep it in `namespace` (placeholders for its secrets) */
  redact(namespace: string, text: string): string;
  /** the same, its values kept in the vault (a text that is stored outside the log: an upload's file name) */
  keep(namespace: string, text: string): string;
  /** sealing (crypto-shredding): the data keys, and the one step that opens sealed texts */
  seal: Sealer;
}

export interface KiokuStore {
  paths: KiokuPaths;
  log: EventStore;
  projections: ProjectionRunner;
  privacy: StorePrivacy;
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
  /** sealing of content fields (issue 33; default: on for the LevelDB log under the data dir, KIOKU_SEAL / KIOKU_PLAIN_NAMESPACES) */
  seal?: SealOptions;
}

/**
 * The log opened, its projections not caught up yet: a service listens (and answers health with
 * the progress) while `ready()` folds. `openStore` is `beginStore` then `ready`; either way the
 * same options build the same store, so there is one assembly path.
 */
export interface OpeningStore {
  paths: KiokuPaths;
  log: EventStore;
  projections: ProjectionRunner;
  privacy: StorePrivacy;
  /** catch the projections up to the head; the log is closed if that fails */
  ready(onProgress?: ProgressFn): Promise<KiokuStore>;
  /** close what is open (a start given up before ready) */
  close(): Promise<void>;
}

export async function beginStore(options: OpenStoreOptions = {}): Promise<OpeningStore> {
  const paths = resolvePaths(options);
  const log =
    options.log ??
    (await openEventStore(paths, {
      createIfMissing: options.createIfMissing ?? true,
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    }));
  const privacy = { ...guardSecrets(log, paths, options.onWarning), seal: guardSealing(log, paths, options) };
  const projections = new ProjectionRunner(log, options.projections ?? defaultProjections(), {
    openRecord: privacy.seal.open,
    sealKeys: () => privacy.seal.keys.all(),
    // a store that is not the one under the data dir must not share its snapshots
    ...(options.log ? {} : { snapshotDir: paths.projectionsDir }),
    ...(options.snapshotEvery !== undefined ? { snapshotEvery: options.snapshotEvery } : {}),
    ...(options.snapshotSpacing !== undefined ? { snapshotSpacing: options.snapshotSpacing } : {}),
    ...(options.restoreFilesInBackground ? { restoreFilesInBackground: true } : {}),
    ...(options.foldOnWorkerFrom !== undefined ? { foldOnWorkerFrom: options.foldOnWorkerFrom } : {}),
    ...(options.foldWorker ? { foldWorker: options.foldWorker } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const close = async (): Promise<void> => {
    await projections.close();
    await log.close();
  };
  return {
    paths,
    log,
    projections,
    privacy,
    close,
    async ready(onProgress) {
      try {
        await projections.open(onProgress);
      } catch (err) {
        await log.close();
        throw err;
      }
      return { paths, log, projections, privacy, close };
    },
  };
}

/**
 * The one redaction step (issue 33): every append of this store, from any door, command or job,
 * has its secrets replaced before it is encoded (src/privacy/redact-event.ts). Every store of this
 * repository shares GroupCommitStore; one written elsewhere cannot be guarded, and is told so.
 */
function guardSecrets(log: EventStore, paths: KiokuPaths, onWarning?: (message: string) => void): Omit<StorePrivacy, 'seal'> {
  const vault = openVault(paths.dataDir);
  const redactor = secretRedactor(vault, fingerprint);
  if (log instanceof GroupCommitStore) log.addWriteGuard(redactor.guard);
  else onWarning?.('this event store does not run write guards: secrets in appended text are not redacted');
  return { vault, redact: redactor.redact, keep: (namespace, text) => redactWithVault(vault, namespace, text) };
}

/**
 * Sealing (issue 33, src/privacy/seal.ts): after redaction, every append has its content fields
 * encrypted with their unit's data key, and every record a reader decodes is opened again. The
 * keys: the store's own when it keeps them (PostgreSQL: a table every node shares,
 * src/log/postgres-keys.ts), else the data dir's file (`<data>/keys/`). A LevelDB or in-memory log
 * handed in is not sealed unless `options.seal` says so (its other users could not open the texts
 * without this data dir's keys), nor a PostgreSQL table without its keys table (README, Privacy).
 */
function guardSealing(log: EventStore, paths: KiokuPaths, options: OpenStoreOptions): Sealer {
  const shared = log.dataKeys;
  const sealedHere = shared !== undefined || (!options.log && log.kind === 'leveldb');
  const seal = sealer(shared ?? new FileKeyStore(keysDir(paths.dataDir)), options.seal ?? { ...sealOptionsFromEnv(process.env), ...(sealedHere ? {} : { enabled: false }) });
  if (log instanceof GroupCommitStore) {
    log.addWriteGuard(seal.guard);
    // the keys a group's events were sealed with are on disk before the group is (one fsync per group)
    log.addBeforeCommit(() => seal.keys.flush());
    log.addReadGuard(seal.open);
  } else if (options.seal?.enabled !== false) options.onWarning?.('this event store does not run write guards: content fields are not sealed');
  return seal;
}

export async function openStore(options: OpenStoreOptions = {}): Promise<KiokuStore> {
  return (await beginStore(options)).ready(options.onProgress);
}
