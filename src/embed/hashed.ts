// A deterministic hashed n-gram embedder, for tests only: words and character
// trigrams hashed into signed buckets. Fast, no model, stable across runs.
import { createHash } from 'node:crypto';
import { tokenize } from '../text/index.js';
import { normalise, type Embedder } from './types.js';

function bucket(feature: string, dim: number): { index: number; sign: number } {
  const h = createHash('md5').update(feature).digest();
  return { index: h.readUInt32LE(0) % dim, sign: (h[4] as number) & 1 ? 1 : -1 };
}

export class HashedEmbedder implements Embedder {
  readonly id: string;
  readonly readsCjk = true;
  calls = 0;

  constructor(readonly dim = 64) {
    this.id = `hash-ngram-${dim}`;
  }

  async init(): Promise<void> {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls += 1;
    return texts.map((text) => {
      const v = new Float32Array(this.dim);
      // identifier words off: the vectors stay those every stored fixture and test was made with
      for (const word of tokenize(text, { identifierParts: false })) {
        const w = bucket(`w:${word}`, this.dim);
        v[w.index] = (v[w.index] as number) + w.sign;
        const padded = `^${word}$`;
        for (let i = 0; i + 3 <= padded.length; i++) {
          const g = bucket(`g:${padded.slice(i, i + 3)}`, this.dim);
          v[g.index] = (v[g.index] as number) + 0.5 * g.sign;
        }
      }
      return normalise(v);
    });
  }

  async close(): Promise<void> {}
}
