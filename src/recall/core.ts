// What recall runs on (the store's log and read models, a judge, an embedder, options) and
// who asks. Every stage of recall takes these; the pipeline wires the stages.
import type { ProjectionRunner } from '../../projections/runner.js';
import type { Embedder } from '../embed/index.js';
import type { EventStore } from '../log/index.js';
import type { RecallConfig } from './config.js';
import type { EmbeddingCache } from './embedding-cache.js';
import type { Judge } from './judge/index.js';

/**
 * What recall reads and appends to: a log and its projections. The store assembly
 * (src/store.ts, openStore) hands one over; recall never reaches up to build it.
 */
export interface RecallStore {
  log: EventStore;
  projections: ProjectionRunner;
}

export interface RecallCore extends RecallStore {
  judge: Judge;
  embedder?: Embedder | undefined;
  config?: RecallConfig;
  /** items of a namespace (all namespaces without one) still waiting for vectors: the vector lane is partly blind to them */
  waitingForVectors?: (ns?: string) => number;
  cache?: EmbeddingCache;
  now?: () => Date;
}

export interface RecallContext {
  /** namespaces the caller may read (from its token); the request's namespace must be one of them */
  namespaces?: readonly string[];
  actor?: string;
  /** may see the whole service, other namespaces' match counts included (src/access.ts seesService) */
  service?: boolean;
  turn_id?: string;
  /** read-only: no events appended, so nothing is counted or remembered (candidates/query) */
  readOnly?: boolean;
  /** the caller named the namespace itself (src/access.ts): one nothing was written in is likely a typo */
  namespaceChosen?: boolean;
  /** the token's name, for a caller with a token (src/access.ts): the org member it acts as */
  principal?: string;
  /** the token holds org:admin (src/access.ts): may forget and purge any member's items (issue 34) */
  orgAdmin?: boolean;
  /** the auth file's token names for the namespace (src/access.ts): an org member is given only these */
  knownTokens?: readonly string[];
  /** the request came from another machine or through a proxy (the HTTP door says so): never revealed a secret (issue 33) */
  remote?: boolean;
}
