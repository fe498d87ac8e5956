// What the routes see of a running server: set up by serve.ts, read by every route.
import type { AuthConfig } from './auth.js';
import type { EmbeddingIndexer } from '../indexer/embedding-job.js';
import type { LocalKioku } from '../kioku.js';
import type { Knowledge } from '../knowledge/index.js';
import type { RecallCore } from '../recall/index.js';
import type { KiokuStore } from '../store.js';
import type { UiSessions } from '../ui/sessions.js';

export interface ServerState {
  /** set once the store is open and projections caught up */
  store?: KiokuStore;
  core?: RecallCore & { indexer: EmbeddingIndexer; close: () => Promise<void> };
  /** one Knowledge per store: its commands run one at a time */
  knowledge?: Knowledge;
  /** the facade every route calls (set with store, core and knowledge) */
  kioku?: LocalKioku;
  ready: boolean;
  /** set when a stop begins: new requests get 503 KIOKU_SHUTTING_DOWN while in-flight ones finish */
  closing?: boolean;
  startedAt: number;
  progress?: { done: number; total: number };
  /** the auth file's token names per namespace (absent without tokens): an org member is given only these */
  tokenNames?: (namespace: string) => readonly string[];
}

export interface AppOptions {
  auth: AuthConfig;
  state: ServerState;
  bodyLimit?: number;
  rateLimitPerMinute?: number;
  logger?: boolean;
  /** the web page's sign-in sessions (src/ui/sessions.ts); buildApp makes them when not given */
  uiSessions?: UiSessions;
}
