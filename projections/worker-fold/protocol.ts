// Messages between the runner and its fold worker (projections/worker-fold/thread.ts).

/**
 * main → worker, for each fold: `start` (the projections, by registered name, from genesis), then
 * batches of frames back to back in `bytes` (frame i ends at `ends[i]`), then `end`.
 */
export type ToFoldWorker =
  /** `keys`: the data keys (kid, key) sealed texts open with (issue 33); the frames are handed as stored */
  | { type: 'start'; names: string[]; keys?: [string, Uint8Array][] }
  | { type: 'frames'; bytes: Uint8Array; ends: Uint32Array }
  | { type: 'end' };

/**
 * One projection folded to the last frame handed over (the worker may be handed only the types
 * it acts on, so the runner, which read them all, knows where that is): its packed state.
 */
export interface FoldedProjection {
  name: string;
  state: Uint8Array;
  checksum: string;
  encoding: 'msgpack-records';
  /** apply() threw at this record: the state is the one before it, as a fold on the runner's thread leaves it */
  failed?: { seq: number; type: string; message: string };
}

/** worker → main: a batch applied (room for another), all done, or gone wrong (the runner folds on its own thread instead) */
export type FromFoldWorker = { type: 'applied' } | { type: 'done'; folded: FoldedProjection[] } | { type: 'lost'; message: string };
