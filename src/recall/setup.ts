// Building the recall core from configuration: the embedder (KIOKU_EMBEDDER …) and
// the judge (KIOKU_JUDGE = local | llm | disabled). HTTP, MCP, the hook and the CLI
// all build their core here.
import { createEmbedder, embedderConfigFromEnv, type Embedder } from '../embed/index.js';
import { KiokuError } from '../errors.js';
import { EmbeddingIndexer } from '../indexer/embedding-job.js';
import type { KiokuStore } from '../kioku.js';
import { EmbeddingCache } from './embedding-cache.js';
import { DisabledJudge, LlmJudge, LocalJudge, type Judge } from './judge/index.js';
import type { RecallCore } from './pipeline.js';

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

export interface CoreOptions {
  embedder?: Embedder;
  judge?: Judge;
  /** follow the log and embed new items in the background (servers); default false */
  backgroundIndexing?: boolean;
}

/** The recall core over an open store, plus its indexer; close() stops both. */
export function createRecallCore(store: KiokuStore, options: CoreOptions = {}): RecallCore & { indexer: EmbeddingIndexer; close: () => Promise<void> } {
  const embedder = options.embedder ?? createEmbedder(embedderConfigFromEnv());
  const indexer = new EmbeddingIndexer(store, embedder);
  if (options.backgroundIndexing) indexer.start();
  let waiting = { head: -1, at: 0, n: 0 };
  return {
    log: store.log,
    projections: store.projections,
    embedder,
    judge: options.judge ?? judgeFromEnv(),
    cache: new EmbeddingCache(),
    // Planning what waits for vectors walks every item (~5 µs each): recompute at most
    // every 2 s, and only when the log moved — never once per turn.
    waitingForVectors: () => {
      const head = store.log.head().seq;
      if (waiting.head !== head && Date.now() - waiting.at >= 2_000) waiting = { head, at: Date.now(), n: indexer.waiting() };
      return waiting.n;
    },
    indexer,
    close: async () => {
      await indexer.stop();
      await embedder.close();
    },
  };
}
