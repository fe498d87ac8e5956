// Which vector index this process runs: hnswlib-node's HNSW graph when its native addon loads,
// else the exact scan (exact-index.ts). hnswlib-node is loaded with require, not a static import:
// an unbuilt addon (npm ran no install scripts) then costs the dense lane's speed, not the start.
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ExactIndex, type GraphIndex } from './exact-index.js';

interface HnswModule {
  HierarchicalNSW: new (space: 'cosine', dim: number) => GraphIndex;
}

export interface VectorIndexInfo {
  kind: 'hnsw' | 'exact';
  /** why the exact scan runs (hnswlib-node's load error, or KIOKU_VECTOR_INDEX=exact) */
  reason?: string;
}

function loadHnsw(): { hnsw?: HnswModule; info: VectorIndexInfo } {
  if (process.env['KIOKU_VECTOR_INDEX'] === 'exact') return { info: { kind: 'exact', reason: 'KIOKU_VECTOR_INDEX=exact' } };
  try {
    return { hnsw: createRequire(import.meta.url)('hnswlib-node') as HnswModule, info: { kind: 'hnsw' } };
  } catch (err) {
    return { info: { kind: 'exact', reason: `hnswlib-node did not load: ${(err as Error).message.split('\n')[0]}` } };
  }
}

const loaded = loadHnsw();

/** The index kind in use, for doctor, health and the start-up line. */
export const VECTOR_INDEX: VectorIndexInfo = loaded.info;

export function newGraph(dim: number): GraphIndex {
  return loaded.hnsw ? new loaded.hnsw.HierarchicalNSW('cosine', dim) : new ExactIndex('cosine', dim);
}

/**
 * Read an index file without knowing its lane yet. An HNSW file's dimension comes from its header
 * (hnswlib writes offsetLevel0, maxElements, count, sizePerElement, labelOffset, offsetData as
 * 8-byte integers; a vector is labelOffset − offsetData bytes of float32); an exact index names it.
 */
export async function readGraphFile(file: string): Promise<GraphIndex> {
  const header = Buffer.alloc(4_100);
  const fd = openSync(file, 'r');
  let got: number;
  try {
    got = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  const dim = loaded.hnsw
    ? Number(header.readBigUInt64LE(32) - header.readBigUInt64LE(40)) / 4
    : ExactIndex.header(header.subarray(0, got))?.dim;
  if (dim === undefined || !Number.isSafeInteger(dim) || dim <= 0) throw new Error(`${file}: not a ${VECTOR_INDEX.kind} index file`);
  const index = newGraph(dim);
  await index.readIndex(file);
  return index;
}

export type { GraphIndex };
