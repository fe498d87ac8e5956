// An embedder wrapper that remembers vectors on disk by (model, text): evaluation
// re-runs and reembed retries do not pay for the model twice.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Packr } from 'msgpackr';
import type { EmbedOptions, Embedder } from './types.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });

export class CachedEmbedder implements Embedder {
  private readonly cache = new Map<string, Uint8Array>();
  private dirty = false;
  private savedAt = Date.now();

  /** `saveEveryMs`: also write the file after an embed call when this long has passed since the last write (a service stopped by a signal may never close its embedder). */
  constructor(
    private readonly inner: Embedder,
    private readonly file: string,
    private readonly options: { saveEveryMs?: number } = {},
  ) {
    if (existsSync(file)) {
      try {
        for (const [k, v] of Object.entries(packr.unpack(readFileSync(file)) as Record<string, Uint8Array>)) this.cache.set(k, v);
      } catch {
        // a damaged cache is only a slower run
      }
    }
  }

  get id(): string {
    return this.inner.id;
  }
  get dim(): number {
    return this.inner.dim;
  }
  get readsCjk(): boolean {
    return this.inner.readsCjk;
  }
  get maxWordChars(): number | undefined {
    return this.inner.maxWordChars;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  private key(text: string): string {
    return createHash('sha256').update(`${this.inner.id}\u0000${text}`).digest('base64url');
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const missing = texts.filter((t) => !this.cache.has(this.key(t)));
    if (missing.length) {
      const out = await this.inner.embed([...new Set(missing)], options);
      [...new Set(missing)].forEach((t, i) => {
        const v = out[i] as Float32Array;
        this.cache.set(this.key(t), new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)));
      });
      this.dirty = true;
      if (this.options.saveEveryMs !== undefined && Date.now() - this.savedAt >= this.options.saveEveryMs) this.save();
    }
    return texts.map((t) => {
      const b = this.cache.get(this.key(t)) as Uint8Array;
      return new Float32Array(new Uint8Array(b).buffer);
    });
  }

  /** Write the cache file (atomically). */
  save(): void {
    if (!this.dirty) return;
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, packr.pack(Object.fromEntries(this.cache)));
    renameSync(`${this.file}.tmp`, this.file);
    this.dirty = false;
    this.savedAt = Date.now();
  }

  async close(): Promise<void> {
    this.save();
    await this.inner.close();
  }
}
