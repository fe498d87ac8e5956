// Building the recall core from configuration: the embedder (KIOKU_EMBEDDER …) and
// the judge (KIOKU_JUDGE = local | llm | disabled). HTTP, MCP, the hook and the CLI
// all build their core here.
import { clockFromEnv } from './clock.js';
import { recallConfigFromEnv, type RecallConfig } from './config.js';
import { createEmbedder, embedderConfigFromEnv, type Embedder } from '../embed/index.js';
import { KiokuError } from '../errors.js';
import { EmbeddingIndexer, type IndexerOptions, type IndexerStore } from '../indexer/embedding-job.js';
import { EmbeddingCache } from './embedding-cache.js';
import { DisabledJudge, LlmJudge, LocalJudge, type Judge } from './judge/index.js';
import type { RecallCore, RecallStore } from './core.js';

export function judgeFromEnv(env: NodeJS.ProcessEnv = process.env): Judge {
  const kind = env['KIOKU_JUDGE'] ?? 'local';
  switch (kind) {
    case 'local':
      return new LocalJudge();
    case 'disabled':
      return new DisabledJudge();
    case 'llm': {
      const url = env['KIOKU_JUDGE_URL'];
      const model = env['KIOKU_JUDGE_MODEL'];
      if (!url || !model)
        throw new KiokuError('KIOKU_INPUT_INVALID', 'KIOKU_JUDGE=llm needs KIOKU_JUDGE_URL and KIOKU_JUDGE_MODEL', { details: { field: 'KIOKU_JUDGE_URL' } });
      return new LlmJudge({ url, model, apiKey: env['KIOKU_JUDGE_API_KEY'] });
    }
    default:
      throw new KiokuError('KIOKU_INPUT_INVALID', `KIOKU_JUDGE must be local, llm or disabled (got "${kind}")`, { details: { field: 'KIOKU_JUDGE' } });
  }
}

export { clockFromEnv } from './clock.js';

export interface CoreOptions {
  embedder?: Embedder;
  judge?: Judge;
  /** follow the log and embed new items in the background (servers); default false */
  backgroundIndexing?: boolean;
  /** a fixed clock for time phrases (default: KIOKU_CLOCK, else the system clock) */
  now?: () => Date;
  /** recall configuration (default: DEFAULT_RECALL_CONFIG with the environment's switches, recallConfigFromEnv) */
  config?: RecallConfig;
}

/**
 * The embedding indexer every door uses (the server, kioku import and reembed, the eval harness):
 * plain memories close in time get window vectors under the same rule recall lifts their
 * neighbours by (plain_session_gap_min, issue 35), so no door embeds under a rule of its own.
 */
export function embeddingIndexer(
  store: IndexerStore,
  embedder: Embedder,
  options: Omit<IndexerOptions, 'plainGapMin'> = {},
  config: RecallConfig = recallConfigFromEnv(),
): EmbeddingIndexer {
  return new EmbeddingIndexer(store, embedder, { ...options, plainGapMin: config.plain_session_gap_min });
}

/** The recall core over an open store's log and projections, plus its indexer; close() stops both. */
export function createRecallCore(store: RecallStore, options: CoreOptions = {}): RecallCore & { indexer: EmbeddingIndexer; close: () => Promise<void> } {
  const embedder = options.embedder ?? createEmbedder(embedderConfigFromEnv());
  const now = options.now ?? clockFromEnv();
  const config = options.config ?? recallConfigFromEnv();
  const indexer = embeddingIndexer(store, embedder, {}, config);
  if (options.backgroundIndexing) indexer.start();
  let waiting = { revision: '', at: 0, byNs: new Map<string, number>(), total: 0 };
  return {
    log: store.log,
    projections: store.projections,
    embedder,
    judge: options.judge ?? judgeFromEnv(),
    cache: new EmbeddingCache(),
    config,
    ...(now ? { now } : {}),
    // Planning what waits for vectors walks every item (~5 µs each): recompute only when
    // items or vectors changed, and while a job churns through a backlog at most once a second.
    waitingForVectors: (ns?: string) => {
      const revision = `${store.projections.views.records.revision}:${store.projections.views.vector.revision}`;
      if (waiting.revision !== revision && (!indexer.status().running || Date.now() - waiting.at >= 1_000)) {
        const byNs = indexer.waitingByNamespace();
        waiting = { revision, at: Date.now(), byNs, total: [...byNs.values()].reduce((a, b) => a + b, 0) };
      }
      return ns === undefined ? waiting.total : (waiting.byNs.get(ns) ?? 0);
    },
    indexer,
    close: async () => {
      await indexer.stop();
      await embedder.close();
    },
  };
}
