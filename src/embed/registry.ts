// Choosing the embedder: KIOKU_EMBEDDER = use-lite (default) | ollama | openai | local-onnx | hash.
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { CachedEmbedder } from './cached.js';
import { HashedEmbedder } from './hashed.js';
import { OllamaEmbedder, OpenAiEmbedder } from './http.js';
import { OnnxEmbedder } from './onnx.js';
import type { Embedder } from './types.js';
import { UseLiteEmbedder } from './use-lite.js';

export const EMBEDDER_KINDS = ['use-lite', 'ollama', 'openai', 'local-onnx', 'hash'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

export const embedderConfigSchema = z.object({
  kind: z.enum(EMBEDDER_KINDS).default('use-lite'),
  url: z.string().optional(),
  model: z.string().optional(),
  apiKey: z.string().optional(),
  timeoutMs: z.coerce.number().int().positive().optional(),
  dim: z.coerce.number().int().positive().optional(),
  onnxDir: z.string().optional(),
  /** model copies a large batch is spread over (use-lite; bulk commands use one per core) */
  workers: z.coerce.number().int().positive().max(16).optional(),
  /**
   * KIOKU_EMBED_CACHE: a file remembering vectors by (model, text) across processes, for evaluation
   * runs that write the same texts into fresh stores (eval:locomo --plain after the session shape);
   * the bundled model takes most of an hour over LoCoMo's 5,520 texts on a loaded machine.
   */
  cacheFile: z.string().optional(),
});
export type EmbedderConfig = z.input<typeof embedderConfigSchema>;

export function embedderConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedderConfig {
  return {
    ...(env['KIOKU_EMBEDDER'] ? { kind: env['KIOKU_EMBEDDER'] as EmbedderKind } : {}),
    ...(env['KIOKU_EMBED_URL'] ? { url: env['KIOKU_EMBED_URL'] } : {}),
    ...(env['KIOKU_EMBED_MODEL'] ? { model: env['KIOKU_EMBED_MODEL'] } : {}),
    ...(env['KIOKU_EMBED_API_KEY'] ? { apiKey: env['KIOKU_EMBED_API_KEY'] } : {}),
    ...(env['KIOKU_EMBED_TIMEOUT_MS'] ? { timeoutMs: Number(env['KIOKU_EMBED_TIMEOUT_MS']) } : {}),
    ...(env['KIOKU_EMBED_DIM'] ? { dim: Number(env['KIOKU_EMBED_DIM']) } : {}),
    ...(env['KIOKU_ONNX_DIR'] ? { onnxDir: env['KIOKU_ONNX_DIR'] } : {}),
    ...(env['KIOKU_EMBED_WORKERS'] ? { workers: Number(env['KIOKU_EMBED_WORKERS']) } : {}),
    ...(env['KIOKU_EMBED_CACHE'] ? { cacheFile: env['KIOKU_EMBED_CACHE'] } : {}),
  };
}

export function createEmbedder(config: EmbedderConfig = {}): Embedder {
  const embedder = createModel(config);
  return config.cacheFile ? new CachedEmbedder(embedder, config.cacheFile, { saveEveryMs: 20_000 }) : embedder;
}

function createModel(config: EmbedderConfig): Embedder {
  const parsed = embedderConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new KiokuError(
      'KIOKU_EMBEDDER_UNAVAILABLE',
      `embedder configuration: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message} (kinds: ${EMBEDDER_KINDS.join(', ')})`,
    );
  }
  const c = parsed.data;
  switch (c.kind) {
    case 'use-lite':
      return new UseLiteEmbedder({ ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}), ...(c.workers ? { workers: c.workers } : {}) });
    case 'hash':
      return new HashedEmbedder(c.dim ?? 64);
    case 'ollama':
      return new OllamaEmbedder({ url: c.url ?? 'http://127.0.0.1:11434', model: c.model ?? '', timeoutMs: c.timeoutMs, dim: c.dim });
    case 'openai':
      return new OpenAiEmbedder({ url: c.url ?? '', model: c.model ?? '', apiKey: c.apiKey, timeoutMs: c.timeoutMs, dim: c.dim });
    case 'local-onnx':
      return new OnnxEmbedder(c.onnxDir ?? '');
  }
}
