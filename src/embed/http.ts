// Embedding providers over HTTP for users with better models: Ollama (/api/embed)
// and any OpenAI-compatible endpoint (/v1/embeddings). Timeouts and clear errors.
import { KiokuError } from '../errors.js';
import { normalise, type EmbedOptions, type Embedder } from './types.js';

export interface HttpEmbedderOptions {
  url: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs?: number | undefined;
  /** known dimension; otherwise probed by init() */
  dim?: number | undefined;
  /** whether the model reads CJK (most multilingual models do); default true */
  readsCjk?: boolean | undefined;
}

abstract class HttpEmbedder implements Embedder {
  abstract readonly id: string;
  readonly readsCjk: boolean;
  private dimension: number;

  constructor(protected readonly options: HttpEmbedderOptions) {
    if (!options.url) throw new KiokuError('KIOKU_EMBEDDER_UNAVAILABLE', 'embedder URL is not configured (KIOKU_EMBED_URL)');
    if (!options.model) throw new KiokuError('KIOKU_EMBEDDER_UNAVAILABLE', 'embedder model is not configured (KIOKU_EMBED_MODEL)');
    this.dimension = options.dim ?? 0;
    this.readsCjk = options.readsCjk ?? true;
  }

  get dim(): number {
    return this.dimension;
  }

  async init(): Promise<void> {
    if (this.dimension > 0) return;
    const [probe] = await this.embed(['dimension probe']);
    this.dimension = probe?.length ?? 0;
  }

  protected abstract request(texts: readonly string[]): { path: string; body: unknown };
  protected abstract vectors(json: unknown, count: number): number[][];

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { path, body } = this.request(texts);
    const url = new URL(path, this.options.url.endsWith('/') ? this.options.url : `${this.options.url}/`).toString();
    const timeout = this.options.timeoutMs ?? 30_000;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: options.signal ? AbortSignal.any([AbortSignal.timeout(timeout), options.signal]) : AbortSignal.timeout(timeout),
        redirect: 'error',
      });
    } catch (cause) {
      const reason = options.signal?.aborted
        ? 'cancelled'
        : (cause as Error).name === 'TimeoutError'
          ? `no answer within ${timeout} ms`
          : (cause as Error).message;
      throw new KiokuError('KIOKU_EMBEDDER_FAILED', `${this.id}: ${url}: ${reason}`, { cause });
    }
    if (!res.ok) {
      const text = (await res.text().catch(() => '')).slice(0, 300);
      throw new KiokuError('KIOKU_EMBEDDER_FAILED', `${this.id}: ${url} answered HTTP ${res.status}${text ? `: ${text}` : ''}`, {
        details: { status: res.status },
      });
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch (cause) {
      throw new KiokuError('KIOKU_EMBEDDER_FAILED', `${this.id}: response is not JSON`, { cause });
    }
    const vectors = this.vectors(json, texts.length);
    if (vectors.length !== texts.length || vectors.some((v) => !Array.isArray(v) || v.length === 0 || (this.dimension > 0 && v.length !== this.dimension))) {
      throw new KiokuError('KIOKU_EMBEDDER_FAILED', `${this.id}: expected ${texts.length} vectors${this.dimension ? ` of ${this.dimension} values` : ''}`);
    }
    return vectors.map((v) => normalise(Float32Array.from(v)));
  }

  async close(): Promise<void> {}
}

export class OllamaEmbedder extends HttpEmbedder {
  get id(): string {
    return `ollama:${this.options.model}`;
  }
  protected request(texts: readonly string[]): { path: string; body: unknown } {
    return { path: 'api/embed', body: { model: this.options.model, input: texts } };
  }
  protected vectors(json: unknown): number[][] {
    return ((json as { embeddings?: number[][] }).embeddings ?? []) as number[][];
  }
}

export class OpenAiEmbedder extends HttpEmbedder {
  get id(): string {
    return `openai:${this.options.model}`;
  }
  protected request(texts: readonly string[]): { path: string; body: unknown } {
    // the base URL may or may not already end in /v1
    const path = /\/v1\/?$/.test(this.options.url) ? 'embeddings' : 'v1/embeddings';
    return { path, body: { model: this.options.model, input: texts } };
  }
  protected vectors(json: unknown): number[][] {
    const data = (json as { data?: { embedding: number[]; index?: number }[] }).data ?? [];
    return [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
  }
}
