// One vector lane (a lane name + a model id): an hnswlib-node cosine index (or the exact scan
// when hnswlib-node is not built, graph.ts) with integer labels ↔ evidence keys. Replacing or retiring an item marks its label
// deleted; the index grows by doubling.
import { newGraph, readGraphFile, type GraphIndex } from './graph.js';
import { readKeysSome } from '../packed-strings.js';
import { SLICE_MS, inSlices } from '../slices.js';

export type HnswIndex = GraphIndex;

export interface LaneMeta {
  lane: string;
  model: string;
  dim: number;
  capacity: number;
  /** label → key (null: deleted) */
  keys: (string | null)[];
  /** format 2: per label, the embedded text's fingerprint (32 bytes each) and whether it has one */
  fp?: Uint8Array;
  hasFp?: Uint8Array;
  /** format 2: per label, the first 8 bytes of the vector bytes' sha256 (digest without reading the index) */
  vh?: Uint8Array;
  /** format 1 (older snapshots): key → fingerprint hex */
  fps?: Record<string, string>;
  /** format 1: key → vector hash hex */
  vhash?: Record<string, string>;
}

const FP_BYTES = 32;
const VH_BYTES = 8;

/** A copy of `bytes` in an array of `size` (the lanes only grow). */
function grownBytes(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(bytes.subarray(0, Math.min(bytes.length, size)));
  return out;
}

export interface VectorHit {
  key: string;
  /** cosine similarity */
  score: number;
}

export const HNSW_M = 16;
// efConstruction 100 inserts ~1.6× faster than 200 at equal recall@10 on clustered 512-d data (bench:index).
export const HNSW_EF_CONSTRUCTION = 100;
export const HNSW_EF_SEARCH = 64;

/**
 * The search breadth (efSearch) for a graph of `n` vectors: 64 up to 128k, then n / 2,000 (at most
 * 1,024). On bench:index's clustered 512-d vectors a fixed 64 gave recall@10 0.97 at 100k but 0.67
 * at 1M (128 → 0.81, 256 → 0.92, 512 → 0.97 at p50 3.4 ms, within the 5 ms budget).
 */
/** How much of a lane's recently read vectors vectorOf keeps (2,048 at 512-d). */
const POINTS_KEPT_BYTES = 4 << 20;

export function efSearchFor(n: number): number {
  return Math.min(1024, Math.max(HNSW_EF_SEARCH, Math.ceil(n / 2000)));
}

export class VectorLane {
  readonly lane: string;
  readonly model: string;
  readonly dim: number;
  private index: GraphIndex;
  private capacity: number;
  private keys: (string | null)[] = [];
  /** key → label (see labelOf) */
  private labelByKey = new Map<string, number>();
  /** a restored lane's first label not yet in labelByKey, or none left */
  private pendingLabels: number | undefined;
  /** a restored lane's live labels, counted before its map is filled (see liveCount) */
  private restoredLive = 0;

  /** live labels: labelOf's size, or the restored count while the map is still being filled (changes fill it first) */
  private get liveCount(): number {
    return this.pendingLabels === undefined ? this.labelByKey.size : this.restoredLive;
  }

  /**
   * key → label. A restored lane's million labels took ~1.2 s to put in the Map when the graph
   * arrived, holding the event loop, though searches only go label → key: warm() fills it in
   * slices, and anything that needs it first (a write, `has`, a fingerprint, a digest) finishes it.
   */
  private get labelOf(): Map<string, number> {
    if (this.pendingLabels !== undefined) this.warm();
    return this.labelByKey;
  }

  /** Add the rest of a restored lane's labels to labelOf for about `budgetMs`; true once none is left. */
  warm(budgetMs = Infinity): boolean {
    if (this.pendingLabels === undefined) return true;
    const keys = this.keys;
    const until = performance.now() + budgetMs;
    let label = this.pendingLabels;
    for (; label < keys.length; label++) {
      const key = keys[label];
      if (key !== null && key !== undefined) this.labelByKey.set(key, label);
      if ((label & 4095) === 4095 && performance.now() >= until) {
        this.pendingLabels = label + 1;
        return false;
      }
    }
    this.pendingLabels = undefined;
    return true;
  }
  // Per label, in bytes rather than a Map of hex strings per key (≈ 40 bytes a vector instead of ≈ 250).
  private fp: Uint8Array;
  private hasFp: Uint8Array;
  private vh: Uint8Array;
  /** label → group (namespace × layer) for gated searches; -1 when deleted */
  private groups: number[] = [];

  constructor(lane: string, model: string, dim: number, capacity = 1024, index?: GraphIndex) {
    this.lane = lane;
    this.model = model;
    this.dim = dim;
    this.capacity = capacity;
    this.index = index ?? VectorLane.freshIndex(dim, capacity);
    this.fp = new Uint8Array(capacity * FP_BYTES);
    this.hasFp = new Uint8Array(capacity);
    this.vh = new Uint8Array(capacity * VH_BYTES);
  }

  private grow(capacity: number): void {
    this.fp = grownBytes(this.fp, capacity * FP_BYTES);
    this.hasFp = grownBytes(this.hasFp, capacity);
    this.vh = grownBytes(this.vh, capacity * VH_BYTES);
    this.capacity = capacity;
  }

  private static freshIndex(dim: number, capacity: number): GraphIndex {
    const index = newGraph(dim);
    index.initIndex({ maxElements: capacity, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: 100 });
    index.setEf(HNSW_EF_SEARCH);
    return index;
  }

  get id(): string {
    return laneId(this.lane, this.model);
  }

  get size(): number {
    return this.liveCount;
  }

  has(key: string): boolean {
    return this.labelOf.has(key);
  }

  fingerprintOf(key: string): string | undefined {
    const label = this.labelOf.get(key);
    return label === undefined || !this.hasFp[label] ? undefined : this.hex(this.fp, label, FP_BYTES);
  }

  private hex(bytes: Uint8Array, label: number, width: number): string {
    return Buffer.from(bytes.buffer, bytes.byteOffset + label * width, width).toString('hex');
  }

  /**
   * The stored vector of `key` (as hnswlib keeps it), or undefined. Shared with later callers: read it,
   * never write to it. hnswlib's getPoint builds a JS array one element at a time (≈ 40 µs at 512-d,
   * ≈ 50 µs with the copy): the judge asks for each pool candidate the vector lane did not find, up to
   * 20 a recall, ≈ 10 % of a turn's CPU in bench:recall. The same candidates come back turn after turn,
   * so the last few thousand are kept, by label: a label's vector never changes (a replaced vector gets
   * a new label, put), so nothing kept goes stale.
   */
  vectorOf(key: string): Float32Array | undefined {
    const label = this.labelOf.get(key);
    if (label === undefined) return undefined;
    const kept = this.points.get(label);
    if (kept !== undefined) {
      // most recently used last: the oldest goes first when full
      this.points.delete(label);
      this.points.set(label, kept);
      return kept;
    }
    const point = Float32Array.from(this.index.getPoint(label));
    if (this.points.size >= Math.max(1, Math.floor(POINTS_KEPT_BYTES / (this.dim * 4)))) this.points.delete(this.points.keys().next().value as number);
    this.points.set(label, point);
    return point;
  }

  /** vectorOf's recently read vectors by label (at most POINTS_KEPT_BYTES) */
  private readonly points = new Map<number, Float32Array>();

  /** Add or replace the vector of `key`. */
  put(key: string, vector: Float32Array, fp: string | undefined, vectorHash: string, group = 0): void {
    this.remove(key);
    const label = this.keys.length;
    if (label >= this.capacity) {
      this.grow(this.capacity * 2);
      this.index.resizeIndex(this.capacity);
    }
    this.index.addPoint(Array.from(vector), label);
    this.keys.push(key);
    this.groups[label] = group;
    this.labelOf.set(key, label);
    this.hasFp[label] = fp ? 1 : 0;
    if (fp) this.fp.set(Buffer.from(fp, 'hex').subarray(0, FP_BYTES), label * FP_BYTES);
    this.vh.set(Buffer.from(vectorHash, 'hex').subarray(0, VH_BYTES), label * VH_BYTES);
  }

  remove(key: string): void {
    const label = this.labelOf.get(key);
    if (label === undefined) return;
    this.index.markDelete(label);
    this.keys[label] = null;
    this.groups[label] = -1;
    this.labelOf.delete(key);
  }

  search(vector: Float32Array | number[], k: number, accept?: (key: string) => boolean): VectorHit[] {
    const live = this.liveCount;
    if (live === 0 || k <= 0) return [];
    const query = Array.isArray(vector) ? vector : Array.from(vector);
    const filter = accept
      ? (label: number) => {
          const key = this.keys[label];
          return key != null && accept(key);
        }
      : undefined;
    this.fitEf(live);
    const { neighbors, distances } = this.index.searchKnn(query, Math.min(k, live), filter);
    return neighbors.map((label, i) => ({ key: this.keys[label] as string, score: 1 - (distances[i] as number) }));
  }

  /**
   * Search admitting only labels whose group is set in `accept` (typed lookups, no string work per
   * candidate) and whose key is not in `exclude` (a key lookup only when there is one). Both are
   * hnswlib's filter callback: the graph walk goes on past refused labels, so they take none of the k.
   */
  searchGated(vector: Float32Array | number[], k: number, accept: Uint8Array, exclude?: ReadonlySet<string>): VectorHit[] {
    const live = this.liveCount;
    if (live === 0 || k <= 0) return [];
    const query = Array.isArray(vector) ? vector : Array.from(vector);
    const groups = this.groups;
    const keys = this.keys;
    // the excluded keys' labels when every label is in labelOf (usually none: a session's own turns
    // mostly have no vector yet), else the keys compared as before
    const skipLabels = exclude?.size && this.pendingLabels === undefined ? this.labelsIn(exclude) : undefined;
    const skip = exclude?.size && this.pendingLabels !== undefined ? exclude : undefined;
    this.fitEf(live);
    const { neighbors, distances } = this.index.searchKnn(query, Math.min(k, live), (label: number) => {
      const g = groups[label];
      return (
        g !== undefined &&
        g >= 0 &&
        accept[g] === 1 &&
        (skipLabels === undefined || !skipLabels.has(label)) &&
        (skip === undefined || !skip.has(keys[label] as string))
      );
    });
    return neighbors.map((label, i) => ({ key: this.keys[label] as string, score: 1 - (distances[i] as number) }));
  }

  /** The labels of those of `keys` this lane holds; undefined when it holds none. */
  private labelsIn(keys: ReadonlySet<string>): Set<number> | undefined {
    let labels: Set<number> | undefined;
    for (const key of keys) {
      const label = this.labelByKey.get(key);
      if (label !== undefined) (labels ??= new Set()).add(label);
    }
    return labels;
  }

  /** the efSearch the index was last given */
  private ef = HNSW_EF_SEARCH;

  /** The search breadth in use for this lane's size (see efSearchFor). */
  get efSearch(): number {
    return efSearchFor(this.liveCount);
  }

  private fitEf(live: number): void {
    const ef = efSearchFor(live);
    if (ef !== this.ef) this.index.setEf((this.ef = ef));
  }

  /**
   * Re-derive every label's group (after a restore, when group ids are assigned afresh), giving
   * the event loop a turn every `sliceMs`: a million labels took 0.6 s in one piece, holding every
   * request when the graphs arrived. The lane is not searched before this resolves.
   */
  async regroup(groupOf: (key: string) => number, sliceMs = SLICE_MS): Promise<void> {
    const keys = this.keys;
    const groups: number[] = new Array<number>(keys.length);
    let label = 0;
    await inSlices((until) => {
      for (; label < keys.length; label++) {
        const key = keys[label];
        groups[label] = key === null || key === undefined ? -1 : groupOf(key);
        if ((label & 4095) === 4095 && performance.now() >= until) {
          label += 1;
          return false;
        }
      }
      return true;
    }, sliceMs);
    this.groups = groups;
  }

  meta(): LaneMeta {
    const n = this.keys.length;
    return {
      lane: this.lane,
      model: this.model,
      dim: this.dim,
      capacity: this.capacity,
      keys: this.keys,
      fp: this.fp.subarray(0, n * FP_BYTES),
      hasFp: this.hasFp.subarray(0, n),
      vh: this.vh.subarray(0, n * VH_BYTES),
    };
  }

  /** Logical content for digests: which key holds which vector, whatever the graph layout. */
  contents(): [string, string, string][] {
    return [...this.labelOf]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, label]) => [k, this.hex(this.vh, label, VH_BYTES), this.hasFp[label] ? this.hex(this.fp, label, FP_BYTES) : '']);
  }

  /** The same contents from snapshot metadata, before its index file is read. */
  static metaContents(meta: LaneMeta): [string, string, string][] {
    const lane = VectorLane.withMeta(meta, undefined);
    return lane.contents();
  }

  writeTo(file: string): void {
    this.index.writeIndexSync(file);
  }

  /** Read an index file without knowing its lane yet (graph.ts). */
  static async readGraph(file: string): Promise<HnswIndex> {
    return readGraphFile(file);
  }

  /** A lane from its metadata and its HNSW file (or the graph already read from it, when that read worked and fits). */
  static async restore(meta: LaneMeta, file: string, early?: Promise<HnswIndex | undefined>): Promise<VectorLane> {
    let index = await early;
    // a snapshot's keys not read by the warm-up yet: read in slices, not in one piece at the graph's arrival
    await inSlices((until) => readKeysSome(meta, until));
    if (!index || index.getNumDimensions() !== meta.dim) {
      index = newGraph(meta.dim);
      await index.readIndex(file);
    }
    if (index.getMaxElements() < meta.capacity) index.resizeIndex(meta.capacity);
    index.setEf(HNSW_EF_SEARCH);
    return VectorLane.withMeta(meta, index);
  }

  /** A lane over `index` (read from its file; none for digests only) with the labels of `meta`, either snapshot format. */
  private static withMeta(meta: LaneMeta, index: GraphIndex | undefined): VectorLane {
    // without an index only the metadata is used: a 1-element placeholder, never searched
    const lane = new VectorLane(meta.lane, meta.model, meta.dim, Math.max(meta.capacity, meta.keys.length), index ?? VectorLane.freshIndex(meta.dim, 1));
    lane.keys = meta.keys;
    for (const k of meta.keys) if (k !== null) lane.restoredLive += 1;
    if (meta.keys.length > 0) lane.pendingLabels = 0; // into labelOf by warm(), or when first needed
    if (meta.fp && meta.hasFp && meta.vh) {
      lane.fp.set(meta.fp);
      lane.hasFp.set(meta.hasFp);
      lane.vh.set(meta.vh);
    } else {
      for (const [k, label] of lane.labelOf) {
        const fp = meta.fps?.[k];
        lane.hasFp[label] = fp ? 1 : 0;
        if (fp) lane.fp.set(Buffer.from(fp, 'hex').subarray(0, FP_BYTES), label * FP_BYTES);
        lane.vh.set(Buffer.from(meta.vhash?.[k] ?? '', 'hex').subarray(0, VH_BYTES), label * VH_BYTES);
      }
    }
    return lane;
  }
}

export function laneId(lane: string, model: string): string {
  return `${lane}@${model}`;
}
