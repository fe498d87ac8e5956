// vector: one HNSW index per (lane, model), fed only by embedding.computed events —
// rebuild never calls a model. Items that are superseded, forgotten or removed are
// marked deleted in every lane. The HNSW files are saved with the projection's
// snapshot and reloaded on start, so only the log tail is replayed (inserts are slow).
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BYTES_PER_DIM, decodeVector, type EventData, type LogRecord } from '../../src/events/index.js';
import { LAYERS, LAYER_INDEX, LAYER_SLOTS, type Layer } from '../../src/knowledge/evidence.js';
import { KnowledgeFold, type KnowledgeFoldState } from '../../src/knowledge/fold.js';
import { keysOnFirstRead, packStringChunks, readKeysSome } from '../packed-strings.js';
import { inSlices } from '../slices.js';
import { canonicalDigest, type Projection } from '../projection.js';
import { VectorLane, laneId, type HnswIndex, type LaneMeta, type VectorHit } from './lane.js';

export { VectorLane, laneId, type VectorHit } from './lane.js';

interface LiveItem {
  ns: string;
  layer: Layer;
}

/** Live items as columns: key i lives in namespace `namespaces[group[i] / 8]`, layer `LAYERS[group[i] % 8]`. */
interface LiveColumns {
  namespaces: string[];
  keys: string[];
  groups: Int32Array;
}

/** Keys as a snapshot stores them: packed in chunks (see packed-strings.ts); stop 17's: one bin; older: `keys` as a list. */
type KeysPacked<T extends { keys: unknown }> = Omit<T, 'keys'> & { keysPacked?: Uint8Array[] | Uint8Array; keys?: T['keys'] };

interface VectorSnapshot {
  fold: KnowledgeFoldState;
  /** columns; older snapshots: key → item */
  live: KeysPacked<LiveColumns> | Record<string, LiveItem>;
  lanes: KeysPacked<LaneMeta>[];
  /** embeddings rejected (dimension mismatch with their lane) */
  rejected: number;
}

const LAYERS_ALL: readonly Layer[] = LAYERS;

export interface VectorSearchOptions {
  lane: string;
  model: string;
  k: number;
  namespaces: readonly string[];
  layers?: readonly Layer[];
  /** evidence keys left out inside the graph search (a session's own traces), so they take none of the k results */
  exclude?: ReadonlySet<string>;
}

export class VectorProjection implements Projection {
  readonly name = 'vector';
  readonly version = 2;
  private readonly fold = new KnowledgeFold();
  /** key → live item; filled from a snapshot's columns in slices (see live) */
  private liveByKey = new Map<string, LiveItem>();
  /** a loaded snapshot's live columns not yet in liveByKey, and the next row to add */
  private pendingLive: { columns: LiveColumns; next: number; byGroup: LiveItem[] } | undefined;

  /**
   * Every live item. A snapshot's million keys took 1.7 s to put in a Map at start-up, before any
   * read could be answered, though nothing needs them until a write, an embedding or the graphs
   * arrive: warm() fills the Map in slices meanwhile, and anything that needs it first finishes it.
   * Rows are added in column order either way, so the Map's order is the snapshot's.
   */
  private get live(): Map<string, LiveItem> {
    if (this.pendingLive) this.warmLive(Infinity);
    return this.liveByKey;
  }

  /** The live map's rest, then each lane's key → label map (see VectorLane.warm), for about `budgetMs`; true once done. */
  warm(budgetMs = Infinity): boolean {
    const until = performance.now() + budgetMs;
    if (!this.warmLive(until)) return false;
    // the keys of lanes whose graphs are still being read, ready before they arrive
    for (const meta of this.pendingLanes) if (!readKeysSome(meta, until)) return false;
    for (const lane of this.lanes.values()) if (!lane.warm(until - performance.now())) return false;
    return true;
  }

  /** Add the rest of a loaded snapshot's live columns until `until` (performance.now()); true once none is left. */
  private warmLive(until: number): boolean {
    const pending = this.pendingLive;
    if (!pending) return true;
    if (!readKeysSome(pending.columns, until)) return false;
    const { columns: c, byGroup } = pending;
    let i = pending.next;
    for (; i < c.keys.length; i++) {
      const g = c.groups[i] as number;
      // the shared item of each group, looked up once per group, not per key
      const item = (byGroup[g] ??= this.liveItem(c.namespaces[Math.floor(g / LAYER_SLOTS)] as string, LAYERS_ALL[g % LAYER_SLOTS] as Layer));
      this.liveByKey.set(c.keys[i] as string, item);
      if ((i & 4095) === 4095 && performance.now() >= until) {
        pending.next = i + 1;
        return false;
      }
    }
    this.pendingLive = undefined;
    return true;
  }
  private lanes = new Map<string, VectorLane>();
  private rejected = 0;
  /** bumps on every change to what is live or embedded (derived, never snapshotted): tells planners when to look again */
  revision = 0;
  /** namespace → small integer, for the group ids searches are gated by (not persisted: re-derived) */
  private nsIds = new Map<string, number>();

  /** one shared (frozen) object per namespace × layer, not one per item */
  private liveItems = new Map<string, LiveItem>();
  private liveItem(ns: string, layer: Layer): LiveItem {
    const k = `${ns}\u0000${layer}`;
    let item = this.liveItems.get(k);
    if (!item) this.liveItems.set(k, (item = Object.freeze({ ns, layer })));
    return item;
  }

  private groupOf(ns: string, layer: Layer): number {
    let id = this.nsIds.get(ns);
    if (id === undefined) this.nsIds.set(ns, (id = this.nsIds.size));
    return id * LAYER_SLOTS + LAYER_INDEX[layer];
  }

  apply(record: LogRecord): void {
    if (record.type === 'embedding.computed') {
      this.revision += 1;
      return this.embed(record.data as EventData<'embedding.computed'>);
    }
    // keys, namespaces and layers are all it reads of an item
    for (const change of this.fold.changes(record, true)) {
      this.revision += 1;
      if (change.op === 'upsert') {
        this.live.set(change.item.key, this.liveItem(change.item.ns, change.item.layer));
      } else if (change.op === 'retire') {
        this.live.delete(change.key);
        for (const lane of this.lanes.values()) lane.remove(change.key);
      }
    }
  }

  private embed(d: EventData<'embedding.computed'>): void {
    // An embedding for an item that is gone (forgotten while the job ran) is ignored.
    if (!this.live.has(d.evidence_key)) return;
    const id = laneId(d.lane, d.model);
    let lane = this.lanes.get(id);
    if (!lane) this.lanes.set(id, (lane = new VectorLane(d.lane, d.model, d.dim)));
    if (lane.dim !== d.dim || d.vector.byteLength !== d.dim * BYTES_PER_DIM[d.encoding]) {
      this.rejected += 1;
      return;
    }
    const vector = decodeVector(d.vector, d.dim, d.encoding);
    const item = this.live.get(d.evidence_key) as LiveItem;
    lane.put(
      d.evidence_key,
      vector,
      d.fingerprint, // 16 hex digits of the vector's sha256 identify it in digests; full hashes per vector cost memory at scale
      createHash('sha256').update(d.vector).digest('hex').slice(0, 16),
      this.groupOf(item.ns, item.layer),
    );
  }

  // ---- queries ----

  search(vector: Float32Array | number[], options: VectorSearchOptions): VectorHit[] {
    const lane = this.lanes.get(laneId(options.lane, options.model));
    if (!lane) return [];
    const accept = new Uint8Array(Math.max(1, this.nsIds.size) * LAYER_SLOTS);
    for (const ns of options.namespaces) {
      const id = this.nsIds.get(ns);
      if (id === undefined) continue;
      for (const layer of options.layers ?? LAYERS_ALL) accept[id * LAYER_SLOTS + LAYER_INDEX[layer]] = 1;
    }
    return lane.searchGated(vector, options.k, accept, options.exclude);
  }

  lane(lane: string, model: string): VectorLane | undefined {
    return this.lanes.get(laneId(lane, model));
  }

  laneIds(): string[] {
    return [...this.lanes.keys()];
  }

  /** Live items of these layers that have no vector (for this text version) in the lane yet. */
  waiting(lane: string, model: string, accept: (key: string, item: LiveItem) => boolean = () => true): string[] {
    const l = this.lanes.get(laneId(lane, model));
    const out: string[] = [];
    for (const [key, item] of this.live) if (accept(key, item) && !l?.has(key)) out.push(key);
    return out;
  }

  get rejectedEmbeddings(): number {
    return this.rejected;
  }

  // ---- snapshot ----

  snapshot(): VectorSnapshot {
    const namespaces: string[] = [];
    const nsIndex = new Map<string, number>();
    const keys: string[] = [];
    const groups = new Int32Array(this.live.size);
    for (const [key, item] of this.live) {
      let n = nsIndex.get(item.ns);
      if (n === undefined) {
        nsIndex.set(item.ns, (n = namespaces.length));
        namespaces.push(item.ns);
      }
      groups[keys.length] = n * LAYER_SLOTS + LAYER_INDEX[item.layer];
      keys.push(key);
    }
    const lanes = [...this.lanes.values()].map((l) => {
      const { keys: laneKeys, ...meta } = l.meta();
      return { ...meta, keysPacked: packStringChunks(laneKeys, KEYS_PER_CHUNK) };
    });
    return { fold: this.fold.state, live: { namespaces, keysPacked: packStringChunks(keys, KEYS_PER_CHUNK), groups }, lanes, rejected: this.rejected };
  }

  load(state: unknown): void {
    const snap = state as VectorSnapshot;
    const prefetched = this.prefetched; // graphs of this snapshot already being read
    this.reset();
    this.prefetched = prefetched;
    this.fold.load(snap.fold);
    const live = snap.live;
    const packed = 'keysPacked' in live && snap.lanes.every((l) => 'keysPacked' in l);
    // one bin per list until stop 18, chunks since (read a slice at a time: see warm, restoreFiles)
    const chunked = packed && [live, ...snap.lanes].every((holder) => Array.isArray((holder as { keysPacked?: unknown }).keysPacked));
    if (packed) for (const holder of [live, ...snap.lanes]) keysOnFirstRead(holder as { keysPacked?: Uint8Array | Uint8Array[] });
    if ('keys' in live && live.groups instanceof Int32Array && Array.isArray(live.namespaces)) {
      this.pendingLive = { columns: live as LiveColumns, next: 0, byGroup: [] }; // into the Map by warm(), or when first needed
    } else for (const [key, item] of Object.entries(live as Record<string, LiveItem>)) this.liveByKey.set(key, this.liveItem(item.ns, item.layer));
    this.rejected = snap.rejected;
    this.pendingLanes = snap.lanes as LaneMeta[];
    this.loadedOlderFormat = !chunked || snap.lanes.some((l) => !l.fp);
  }

  loadedOlderFormat = false;

  // Lane metadata from load(), waiting for restoreFiles() to attach the HNSW files.
  private pendingLanes: LaneMeta[] = [];

  persistFiles(dir: string): void {
    for (const lane of this.lanes.values()) lane.writeTo(join(dir, laneFile(lane.id)));
  }

  /** Graphs whose reading prefetchFiles() started, by file path. */
  private prefetched = new Map<string, Promise<HnswIndex>>();

  /** Start reading every HNSW file of a snapshot (off the main thread) before load() has unpacked the lanes. */
  prefetchFiles(dir: string): void {
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.hnsw')) continue;
      const path = join(dir, file);
      const read = VectorLane.readGraph(path);
      read.catch(() => undefined); // restoreFiles reads it again, or reports, if it is used at all
      this.prefetched.set(path, read);
    }
  }

  /** Reads the lanes' HNSW files off the main thread (hnswlib's own worker), all at once; takes what prefetchFiles() read. */
  async restoreFiles(dir: string): Promise<void> {
    const prefetched = this.prefetched;
    this.prefetched = new Map();
    const lanes = await Promise.all(
      this.pendingLanes.map((meta) => {
        const path = join(dir, laneFile(laneId(meta.lane, meta.model)));
        const early = prefetched.get(path);
        return VectorLane.restore(
          meta,
          path,
          early?.catch(() => undefined),
        );
      }),
    );
    const groupOfKey = (key: string): number => {
      const item = this.live.get(key);
      return item ? this.groupOf(item.ns, item.layer) : -1;
    };
    // the live map the groups come from, finished in slices too if the warm-up has not (the first
    // lookup would finish it in one piece: 1.7 s at a million items)
    await inSlices((until) => this.warmLive(until));
    for (const lane of lanes) await lane.regroup(groupOfKey);
    for (const lane of lanes) this.lanes.set(lane.id, lane); // all at once: no reader sees some lanes and not others
    this.pendingLanes = [];
    this.revision += 1; // what waits for vectors, if planned while the graphs were read, is planned again
  }

  reset(): void {
    this.fold.reset();
    this.liveByKey = new Map();
    this.pendingLive = undefined;
    this.liveItems = new Map();
    this.lanes = new Map();
    this.pendingLanes = [];
    this.prefetched = new Map();
    this.rejected = 0;
    this.nsIds = new Map();
  }

  digest(): string {
    const lanes = [...this.lanes.values()].map((l) => [l.id, l.dim, l.contents()]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    const pending = this.pendingLanes.map((m) => [laneId(m.lane, m.model), m.dim, VectorLane.metaContents(m)]);
    const live = [...this.live.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return canonicalDigest({ fold: this.fold.state, live, lanes: lanes.length ? lanes : pending, rejected: this.rejected });
  }
}

/** Keys per packed chunk of a snapshot's key lists (a chunk reads in ~3 ms). */
const KEYS_PER_CHUNK = 8192;

function laneFile(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._@-]/g, '_')}.hnsw`;
}
