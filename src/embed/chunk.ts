// Long texts are embedded in chunks and mean-pooled: sentence encoders read the
// first few hundred words well and the rest poorly.
import { normalise, type Embedder } from './types.js';

const CHUNK_WORDS = 200;
const MAX_CHUNKS = 8;

/** Split at whitespace into chunks of ≤ CHUNK_WORDS words (at most MAX_CHUNKS). */
export function chunkText(text: string, words = CHUNK_WORDS): string[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length <= words) return [text];
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length && chunks.length < MAX_CHUNKS; i += words) chunks.push(tokens.slice(i, i + words).join(' '));
  return chunks;
}

/** Embed documents with chunking and mean pooling, in batches of `batch` chunks. */
export async function embedDocuments(embedder: Embedder, texts: readonly string[], batch = 32): Promise<Float32Array[]> {
  const chunks: string[] = [];
  const owner: number[] = [];
  texts.forEach((t, i) => {
    for (const c of chunkText(t)) {
      chunks.push(c);
      owner.push(i);
    }
  });
  const vectors: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += batch) vectors.push(...(await embedder.embed(chunks.slice(i, i + batch))));
  const out: (Float32Array | undefined)[] = new Array(texts.length);
  vectors.forEach((v, i) => {
    const o = owner[i] as number;
    const acc = out[o];
    if (!acc) out[o] = Float32Array.from(v);
    else for (let j = 0; j < v.length; j++) acc[j] = (acc[j] as number) + (v[j] as number);
  });
  return out.map((v) => normalise(v as Float32Array));
}
