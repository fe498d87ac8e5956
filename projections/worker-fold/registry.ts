// The projections a rebuild may fold on a worker thread: the costliest to apply (keyword
// tokenizes and indexes every text, records keeps every entry, graph extracts every item's
// entities — 27 % of a rebuild on the runner's thread, issue 35) and constructed without
// arguments, so the worker's copy is the same projection as the main thread's.
import { GraphProjection } from '../graph.js';
import { KeywordProjection } from '../keyword/index.js';
import { RecordsProjection } from '../records/index.js';
import type { Projection } from '../projection.js';

export const WORKER_FOLDABLE: Readonly<Record<string, new () => Projection>> = {
  keyword: KeywordProjection,
  records: RecordsProjection,
  graph: GraphProjection,
};

/** Whether `projection` is one the worker can build an identical copy of (its registered class, not a look-alike). */
export function foldableOnWorker(projection: Projection): boolean {
  const registered = Object.hasOwn(WORKER_FOLDABLE, projection.name) ? WORKER_FOLDABLE[projection.name] : undefined;
  return registered !== undefined && projection.constructor === registered;
}
