// What knowledge commands read to decide: the current items, and a way to wait until the
// read models have seen a seq. The records projection and the projection runner provide
// them; knowledge depends on this interface, never on projections/.
import type { Layer } from './evidence.js';
import type { RecordEntry } from './item.js';

export interface KnowledgeRecords {
  get(key: string): RecordEntry | undefined;
  document(ns: string, layer: Layer, id: string): RecordEntry[];
  all(options?: { layers?: readonly Layer[]; includeRetired?: boolean }): Iterable<RecordEntry>;
  supersedeCandidates(ns: string, terms: readonly string[], excludeIds?: readonly string[], threshold?: number): { id: string; overlap: number }[];
}

export interface KnowledgeReadModel {
  waitFor(seq: number): Promise<void>;
  readonly views: { readonly records: KnowledgeRecords };
}
