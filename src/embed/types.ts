// One interface for every embedding model. Vectors come back L2-normalised.

export interface EmbedOptions {
  /**
   * 'query' (default): a recall waits on it, so it goes before queued 'bulk' work (the
   * indexer's documents), which a model running in-process splits into short calls.
   */
  priority?: 'query' | 'bulk';
  /** abandon the call: queued work is dropped and in-flight model work stopped (a shutdown) */
  signal?: AbortSignal;
}

export interface Embedder {
  /** model id recorded in every embedding.computed event, e.g. "use-lite-512" */
  readonly id: string;
  /** vector dimension (known after init() for remote providers) */
  readonly dim: number;
  /** whether this model can read CJK text; false routes mainly-CJK text past the dense lane */
  readonly readsCjk: boolean;
  /** a run of non-space characters longer than this is cut to this length before the model sees it (a model whose cost grows with a word's length) */
  readonly maxWordChars?: number;
  /** load or probe the model; idempotent */
  init(): Promise<void>;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}
