// Long texts are embedded in chunks and mean-pooled: sentence encoders read the
// first few hundred words well and the rest poorly.
import { normalise, type Embedder } from './types.js';

const CHUNK_WORDS = 200;
/**
 * Characters per chunk, and so at most 16,000 per item (MAX_CHUNKS): what any model is given of one
 * item is bounded (issue 29 item 8: one 95,000-character word took the bundled model 35–62 s). Text
 * without spaces (a long token, or CJK for a model that reads it) is cut into chunks of this size.
 */
export const CHUNK_CHARS = 2_000;
const MAX_CHUNKS = 8;

/**
 * Split at whitespace into chunks of ≤ `words` words and ≤ CHUNK_CHARS characters (at most
 * MAX_CHUNKS). With `maxWordChars` (the model's bound) a longer word is cut to that length first.
 */
export function chunkText(text: string, options: { words?: number; maxWordChars?: number | undefined } = {}): string[] {
  const words = options.words ?? CHUNK_WORDS;
  const max = options.maxWordChars;
  const tokens = text.split(/\s+/).filter(Boolean);
  const cut = max !== undefined && tokens.some((t) => t.length > max);
  if (tokens.length <= words && text.length <= CHUNK_CHARS && !cut) return [text];
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (current.length) chunks.push(current.join(' '));
    current = [];
    size = 0;
  };
  for (const word of tokens) {
    if (chunks.length >= MAX_CHUNKS) break;
    const token = max !== undefined && word.length > max ? word.slice(0, max) : word;
    // a token longer than a chunk is cut into chunk-sized pieces
    for (let at = 0; at < token.length && chunks.length < MAX_CHUNKS; at += CHUNK_CHARS) {
      const piece = token.slice(at, at + CHUNK_CHARS);
      if (current.length >= words || size + piece.length + current.length > CHUNK_CHARS) flush();
      current.push(piece);
      size += piece.length;
    }
  }
  if (chunks.length < MAX_CHUNKS) flush();
  return chunks;
}

/** Embed documents with chunking and mean pooling, in batches of `batch` chunks, as bulk work (queries go first). */
export async function embedDocuments(
  embedder: Embedder,
  texts: readonly string[],
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<Float32Array[]> {
  const batch = options.batch ?? 32;
  const chunks: string[] = [];
  const owner: number[] = [];
  texts.forEach((t, i) => {
    for (const c of chunkText(t, { maxWordChars: embedder.maxWordChars })) {
      chunks.push(c);
      owner.push(i);
    }
  });
  const vectors: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += batch) {
    const call = { priority: 'bulk' as const, ...(options.signal ? { signal: options.signal } : {}) };
    vectors.push(...(await embedder.embed(chunks.slice(i, i + batch), call)));
  }
  const out: (Float32Array | undefined)[] = new Array(texts.length);
  vectors.forEach((v, i) => {
    const o = owner[i] as number;
    const acc = out[o];
    if (!acc) out[o] = Float32Array.from(v);
    else for (let j = 0; j < v.length; j++) acc[j] = (acc[j] as number) + (v[j] as number);
  });
  return out.map((v) => normalise(v as Float32Array));
}
