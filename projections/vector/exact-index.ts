// The vector index when hnswlib-node is not built (a global install whose install scripts npm did
// not run, a machine without a C++ toolchain): an exact cosine scan with the subset of hnswlib's
// HierarchicalNSW that VectorLane uses. DESIGN §8: an exact scan is 0.9 ms for ~660 × 512-d and
// 142 ms for 100k × 384-d, so it serves a personal library well and a large one slowly; `kioku
// doctor` and the service's start-up line say which index runs. Its files are its own format (an
// hnswlib file is refused and the lane rebuilt from the log, as with any unreadable snapshot part).
import { readFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';

const MAGIC = 'KIOKU-EXACT-1';

export interface GraphIndex {
  initIndex(opts: { maxElements: number; m?: number; efConstruction?: number; randomSeed?: number }): void;
  setEf(ef: number): void;
  resizeIndex(newMaxElements: number): void;
  addPoint(point: number[], label: number): void;
  markDelete(label: number): void;
  getPoint(label: number): number[];
  searchKnn(query: number[], k: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] };
  getNumDimensions(): number;
  getMaxElements(): number;
  writeIndexSync(file: string): void;
  readIndex(file: string): Promise<boolean>;
}

/** Cosine as hnswlib computes it: vectors normalised on the way in, distance = 1 − dot product. */
export class ExactIndex implements GraphIndex {
  private vectors = new Float32Array(0);
  private live = new Uint8Array(0);
  private count = 0;
  private max = 0;

  constructor(
    _space: 'cosine',
    private dim: number,
  ) {}

  initIndex(opts: { maxElements: number }): void {
    this.resizeIndex(opts.maxElements);
  }

  setEf(): void {}

  resizeIndex(newMaxElements: number): void {
    if (newMaxElements <= this.max) return;
    const vectors = new Float32Array(newMaxElements * this.dim);
    vectors.set(this.vectors);
    const live = new Uint8Array(newMaxElements);
    live.set(this.live);
    this.vectors = vectors;
    this.live = live;
    this.max = newMaxElements;
  }

  addPoint(point: number[], label: number): void {
    if (point.length !== this.dim) throw new Error(`expected ${this.dim} dimensions, got ${point.length}`);
    if (label >= this.max) throw new Error(`label ${label} beyond the index's ${this.max} elements`);
    let norm = 0;
    for (const x of point) norm += x * x;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const at = label * this.dim;
    for (let i = 0; i < this.dim; i++) this.vectors[at + i] = (point[i] as number) * scale;
    this.live[label] = 1;
    this.count = Math.max(this.count, label + 1);
  }

  markDelete(label: number): void {
    this.live[label] = 0;
  }

  getPoint(label: number): number[] {
    return Array.from(this.vectors.subarray(label * this.dim, (label + 1) * this.dim));
  }

  searchKnn(query: number[], k: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] } {
    let norm = 0;
    for (const x of query) norm += x * x;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const q = Float32Array.from(query, (x) => x * scale);
    // the k best so far, worst first out: k is small (a lane's budget), so a sorted array is enough
    const best: { label: number; distance: number }[] = [];
    for (let label = 0; label < this.count; label++) {
      if (!this.live[label] || (filter && !filter(label))) continue;
      let dot = 0;
      const at = label * this.dim;
      for (let i = 0; i < this.dim; i++) dot += (q[i] as number) * (this.vectors[at + i] as number);
      const distance = 1 - dot;
      if (best.length === k && distance >= (best[k - 1] as { distance: number }).distance) continue;
      let i = best.length;
      while (i > 0 && (best[i - 1] as { distance: number }).distance > distance) i--;
      best.splice(i, 0, { label, distance });
      if (best.length > k) best.pop();
    }
    return { distances: best.map((b) => b.distance), neighbors: best.map((b) => b.label) };
  }

  getNumDimensions(): number {
    return this.dim;
  }

  getMaxElements(): number {
    return this.max;
  }

  writeIndexSync(file: string): void {
    const head = Buffer.from(JSON.stringify({ magic: MAGIC, dim: this.dim, count: this.count, max: this.max }));
    const size = Buffer.alloc(4);
    size.writeUInt32LE(head.length);
    const vectors = Buffer.from(this.vectors.buffer, this.vectors.byteOffset, this.count * this.dim * 4);
    writeFileSync(file, Buffer.concat([size, head, Buffer.from(this.live.subarray(0, this.count)), vectors]));
  }

  async readIndex(file: string): Promise<boolean> {
    const bytes = await readFile(file);
    const head = ExactIndex.header(bytes);
    if (!head || head.dim !== this.dim) throw new Error(`${file}: not an exact vector index of ${this.dim} dimensions`);
    this.vectors = new Float32Array(0);
    this.live = new Uint8Array(0);
    this.max = 0;
    this.resizeIndex(Math.max(head.max, head.count));
    let at = 4 + bytes.readUInt32LE(0);
    this.live.set(bytes.subarray(at, at + head.count));
    at += head.count;
    const floats = bytes.subarray(at, at + head.count * this.dim * 4);
    if (floats.length !== head.count * this.dim * 4) throw new Error(`${file}: cut short`);
    this.vectors.set(new Float32Array(Uint8Array.from(floats).buffer));
    this.count = head.count;
    return true;
  }

  /** The header of an exact index file, or undefined for any other file (an hnswlib graph). */
  static header(bytes: Buffer): { dim: number; count: number; max: number } | undefined {
    if (bytes.length < 4) return undefined;
    const n = bytes.readUInt32LE(0);
    if (n > 4096 || bytes.length < 4 + n) return undefined;
    try {
      const head = JSON.parse(bytes.subarray(4, 4 + n).toString('utf8')) as { magic?: string; dim: number; count: number; max: number };
      return head.magic === MAGIC ? head : undefined;
    } catch {
      return undefined;
    }
  }
}
