// local-onnx: a user-supplied model directory loaded through @huggingface/transformers
// with remote models disabled. Optional: the package is not installed by default
// (install it with ONNXRUNTIME_NODE_INSTALL=skip so onnxruntime-node does not try
// to download CUDA files: `ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers`).
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { KiokuError } from '../errors.js';
import { normalise, type Embedder } from './types.js';

type FeatureExtractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export class OnnxEmbedder implements Embedder {
  readonly id: string;
  readonly readsCjk: boolean;
  private dimension = 0;
  private extractor: Promise<FeatureExtractor> | undefined;

  constructor(
    private readonly modelDir: string,
    options: { readsCjk?: boolean } = {},
  ) {
    if (!modelDir) throw new KiokuError('KIOKU_EMBEDDER_UNAVAILABLE', 'local-onnx needs a model directory (KIOKU_ONNX_DIR)');
    this.id = `onnx:${basename(resolve(modelDir))}`;
    this.readsCjk = options.readsCjk ?? true;
  }

  get dim(): number {
    return this.dimension;
  }

  private load(): Promise<FeatureExtractor> {
    this.extractor ??= (async () => {
      const dir = resolve(this.modelDir);
      if (!existsSync(dir)) throw new KiokuError('KIOKU_EMBEDDER_UNAVAILABLE', `local-onnx: model directory ${dir} does not exist`);
      let transformers: { env: Record<string, unknown>; pipeline: (task: string, model: string, options?: Record<string, unknown>) => Promise<unknown> };
      try {
        const name = '@huggingface/transformers';
        transformers = (await import(name)) as typeof transformers;
      } catch (cause) {
        throw new KiokuError(
          'KIOKU_EMBEDDER_UNAVAILABLE',
          'local-onnx needs the optional package @huggingface/transformers: ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers',
          { cause },
        );
      }
      transformers.env['allowRemoteModels'] = false;
      transformers.env['allowLocalModels'] = true;
      transformers.env['localModelPath'] = `${dirname(dir)}/`;
      return (await transformers.pipeline('feature-extraction', basename(dir), { local_files_only: true })) as FeatureExtractor;
    })();
    return this.extractor;
  }

  async init(): Promise<void> {
    if (this.dimension > 0) return;
    const [v] = await this.embed(['dimension probe']);
    this.dimension = v?.length ?? 0;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const extract = await this.load();
    let out: { data: Float32Array; dims: number[] };
    try {
      out = await extract([...texts], { pooling: 'mean', normalize: true });
    } catch (cause) {
      throw new KiokuError('KIOKU_EMBEDDER_FAILED', `local-onnx: ${(cause as Error).message}`, { cause });
    }
    const dim = out.dims.at(-1) ?? 0;
    return texts.map((_, i) => normalise(Float32Array.from(out.data.subarray(i * dim, (i + 1) * dim))));
  }

  async close(): Promise<void> {}
}
