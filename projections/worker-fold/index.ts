// Folding on the second core. A rebuild (or a first open with no snapshots) applies every
// event to every projection, one thread on a two-core machine: the costliest projections are
// folded by a worker thread from the raw frames the runner reads, while the runner folds the
// rest, and come back as packed snapshot states that the runner loads.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../../src/package-root.js';
import type { FoldedProjection, FromFoldWorker, ToFoldWorker } from './protocol.js';

export { foldableOnWorker } from './registry.js';
export type { FoldedProjection } from './protocol.js';

/**
 * Bytes of frames handed over and not yet applied. The runner reads ahead this far and waits
 * there, so memory stays bounded whatever the log's size; it is large enough that the runner
 * does not wait for the worker's start (a quarter of a second installed, twice that from source).
 */
const MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;

/** How to start the worker: its script, and (running from source) tsx's API to register first. */
export interface FoldWorkerScript {
  script: URL;
  /** tsx's ESM API: the worker registers it before importing a .ts script (a worker's `--import` flags do not carry loaders on Node 20) */
  tsx?: URL;
}

/**
 * The worker's script in this installation: from source (tsx, tests) the .ts file, installed the
 * compiled one in dist/. Undefined when it cannot be found (the runner then folds everything
 * itself).
 */
export function foldWorkerScript(): FoldWorkerScript | undefined {
  try {
    const root = packageRoot();
    if (import.meta.url.endsWith('.ts')) {
      const script = join(root, 'projections', 'worker-fold', 'thread.ts');
      return existsSync(script) ? { script: pathToFileURL(script), tsx: tsxApi() } : undefined;
    }
    const script = join(root, 'dist', 'projections', 'worker-fold', 'thread.js');
    return existsSync(script) ? { script: pathToFileURL(script) } : undefined;
  } catch {
    return undefined;
  }
}

/** tsx's ESM API module, found through its package's exports (the import condition, which require.resolve would not take). */
function tsxApi(): URL {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']?.import.default ?? 'missing'));
}

function startWorker(where: FoldWorkerScript): Worker {
  if (!where.tsx) return new Worker(where.script);
  const boot = `import(${JSON.stringify(where.tsx.href)}).then(({ register }) => { register(); return import(${JSON.stringify(where.script.href)}); })`;
  return new Worker(boot, { eval: true });
}

/** The worker stopped before handing back its states (it crashed, ran out of memory, or met a frame it could not decode). */
export class FoldWorkerLost extends Error {}

/** How long an idle fold worker is kept for the next fold (its start-up and cold code cost a fold of 65k events a third of its time). */
const IDLE_MS = 30_000;

/**
 * One worker thread, folding for one runner, one fold at a time (the runner's catch-ups run in
 * turn). It is kept between folds while they come, and stopped after IDLE_MS without one.
 */
export class FoldWorker {
  private readonly worker: Worker;
  private fold: WorkerFold | undefined;
  private idle: NodeJS.Timeout | undefined;
  private lostWhy: string | undefined;

  constructor(where: FoldWorkerScript) {
    this.worker = startWorker(where);
    this.worker.unref();
    const lose = (why: string): void => {
      this.lostWhy ??= why;
      this.fold?.lose(why);
    };
    this.worker.on('message', (message: FromFoldWorker) => (message.type === 'lost' ? lose(message.message) : this.fold?.receive(message)));
    this.worker.on('error', (err) => lose(err.message));
    this.worker.on('exit', (code) => lose(`it exited with code ${code}`));
  }

  /** Gone (crashed, or stopped): a new one is needed. */
  get lost(): boolean {
    return this.lostWhy !== undefined;
  }

  /** Start folding the named projections from genesis; hand it every frame, then finish(). */
  start(names: readonly string[], keys?: [string, Uint8Array][]): WorkerFold {
    if (this.fold) throw new Error('the fold worker is already folding');
    clearTimeout(this.idle);
    this.worker.ref(); // a process waiting only for the worker must not exit under it
    const fold = new WorkerFold(this.worker, () => this.settled(fold));
    this.fold = fold;
    if (this.lostWhy) fold.lose(this.lostWhy);
    else this.worker.postMessage({ type: 'start', names: [...names], ...(keys?.length ? { keys } : {}) } satisfies ToFoldWorker);
    return fold;
  }

  private settled(fold: WorkerFold): void {
    if (this.fold !== fold) return;
    this.fold = undefined;
    this.worker.unref();
    if (!this.lostWhy) this.idle = setTimeout(() => this.close(), IDLE_MS).unref();
  }

  close(): void {
    clearTimeout(this.idle);
    this.lostWhy ??= 'stopped';
    this.fold?.lose('stopped');
    void this.worker.terminate();
  }
}

/** One fold on the worker: frames handed over in order, then the folded states. */
export class WorkerFold {
  /** bytes of each batch handed over and not yet applied, oldest first */
  private inFlight: number[] = [];
  private inFlightBytes = 0;
  private room: (() => void) | undefined;
  private lost: FoldWorkerLost | undefined;
  private resolve!: (folded: FoldedProjection[]) => void;
  private reject!: (err: FoldWorkerLost) => void;
  private readonly folded = new Promise<FoldedProjection[]>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });

  constructor(
    private readonly worker: Worker,
    private readonly onSettled: () => void,
  ) {
    this.folded.then(onSettled, onSettled);
  }

  /** @internal the worker's replies */
  receive(message: FromFoldWorker): void {
    if (message.type === 'applied') {
      this.inFlightBytes -= this.inFlight.shift() ?? 0;
      this.makeRoom();
    } else if (message.type === 'done') this.resolve(message.folded);
  }

  /** @internal the worker is gone (or abandoned this fold) */
  lose(why: string): void {
    this.lost ??= new FoldWorkerLost(`the fold worker stopped: ${why}`);
    this.makeRoom();
    this.reject(this.lost); // a no-op once the states arrived
  }

  /**
   * Hand over the next frames (copied into one transferable buffer). Resolves at once while less
   * than MAX_IN_FLIGHT_BYTES wait to be applied, else when enough are; a lost worker takes nothing
   * more (finish() reports it).
   */
  push(frames: readonly Uint8Array[]): Promise<void> {
    if (this.lost || frames.length === 0) return Promise.resolve();
    let total = 0;
    for (const frame of frames) total += frame.length;
    const bytes = new Uint8Array(total);
    const ends = new Uint32Array(frames.length);
    let at = 0;
    frames.forEach((frame, i) => {
      bytes.set(frame, at);
      at += frame.length;
      ends[i] = at;
    });
    this.worker.postMessage({ type: 'frames', bytes, ends } satisfies ToFoldWorker, [bytes.buffer, ends.buffer]);
    this.inFlight.push(total);
    this.inFlightBytes += total;
    if (this.inFlightBytes < MAX_IN_FLIGHT_BYTES) return Promise.resolve();
    return new Promise((resolve) => (this.room = resolve));
  }

  /** Every frame is handed over: the folded states, or FoldWorkerLost. */
  finish(): Promise<FoldedProjection[]> {
    if (!this.lost) this.worker.postMessage({ type: 'end' } satisfies ToFoldWorker);
    return this.folded;
  }

  private makeRoom(): void {
    if (this.inFlightBytes >= MAX_IN_FLIGHT_BYTES && !this.lost) return;
    const room = this.room;
    this.room = undefined;
    room?.();
  }
}
