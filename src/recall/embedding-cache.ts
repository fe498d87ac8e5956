// Repeated query embeddings come from memory: a small LRU keyed by model and text.
export class EmbeddingCache {
  private readonly map = new Map<string, Float32Array>();

  constructor(private readonly capacity = 512) {}

  get(model: string, text: string): Float32Array | undefined {
    const k = `${model}\u0000${text}`;
    const v = this.map.get(k);
    if (v) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }

  set(model: string, text: string, vector: Float32Array): void {
    const k = `${model}\u0000${text}`;
    this.map.delete(k);
    this.map.set(k, vector);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
}
