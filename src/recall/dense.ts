// The dense side of a recall: which query texts go through the model (one batch,
// repeats cached), under a deadline.
import { isMainlyCjk } from '../text/index.js';
import type { RecallConfig } from './config.js';
import type { PlannedQuery } from './conversation.js';
import type { BackendDiagnostic } from './packet.js';
import type { RecallCore } from './core.js';
import type { ParsedRecallRequest } from './request.js';

const QUESTION_WORDS = /^(?:what|when|where|who|whom|whose|why|how|which|did|does|do|is|are|was|were|can|could|would|should|will|has|have|had)\b\s*/i;

/** The dense query: question words add nothing for a sentence encoder (LoCoMo dev: R@10 0.664 → 0.686). */
export function denseQueryText(text: string): string {
  let t = text.trim();
  for (let i = 0; i < 3 && QUESTION_WORDS.test(t); i++) t = t.replace(QUESTION_WORDS, '');
  return t.replace(/\?+\s*$/, '') || text;
}

export interface EmbeddedQueries {
  /** query kind → vector; absent when the dense side did not run, empty when no query was readable */
  vectors?: Map<string, Float32Array>;
  /** the vector the judge compares candidates with (the context query's, else the utterance's) */
  judgeVector?: Float32Array;
  ms: number;
  /** the vector lane's status when the model was not used (disabled, unavailable, timeout, error) */
  backend?: BackendDiagnostic;
  warnings: string[];
}

export async function embedQueries(core: RecallCore, config: RecallConfig, request: ParsedRecallRequest, queries: PlannedQuery[]): Promise<EmbeddedQueries> {
  const started = performance.now();
  const embedder = core.embedder;
  if (!request.options.semantic) return { ms: 0, backend: { attempted: false, used: false, status: 'disabled' }, warnings: [] };
  if (!embedder) return { ms: 0, backend: { attempted: false, used: false, status: 'unavailable' }, warnings: [] };
  const readable = (t: string): boolean => embedder.readsCjk || !isMainlyCjk(t);
  // The first `dense_texts` of the preferred kinds the turn has (the model's cost is linear in
  // text): the utterance with its dialogue when there is one, else the utterance. The judge
  // reuses that vector — no extra embedding.
  const wanted = config.dense_queries
    .map((kind) => queries.find((q) => q.kind === kind && readable(q.text)))
    .filter((q): q is PlannedQuery => q !== undefined)
    .slice(0, config.dense_texts)
    .map((q) => ({ kind: q.kind, text: denseQueryText(q.text) }));
  if (wanted.length === 0) return { vectors: new Map(), ms: 0, warnings: ['query_not_readable_by_embedder'] };
  const cache = core.cache;
  const missing = [...new Set(wanted.map((w) => w.text).filter((t) => !cache?.get(embedder.id, t)))];
  try {
    const fresh = new Map<string, Float32Array>();
    if (missing.length) {
      const out = await withTimeout(embedder.embed(missing), config.embed_timeout_ms);
      missing.forEach((t, i) => {
        fresh.set(t, out[i] as Float32Array);
        cache?.set(embedder.id, t, out[i] as Float32Array);
      });
    }
    const vectors = new Map(wanted.map((w) => [w.kind, (fresh.get(w.text) ?? cache?.get(embedder.id, w.text)) as Float32Array]));
    const judgeVector = vectors.get('context') ?? vectors.get('utterance');
    return { vectors, ...(judgeVector ? { judgeVector } : {}), ms: round(performance.now() - started), warnings: [] };
  } catch (err) {
    const timeout = err instanceof TimeoutError;
    return {
      ms: round(performance.now() - started),
      backend: { attempted: true, used: false, status: timeout ? 'timeout' : 'error' },
      warnings: [`vector_${timeout ? 'timeout' : 'error'}: ${(err as Error).message}`.slice(0, 300)],
    };
  }
}

export class TimeoutError extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** Items by or about an entity/speaker the query names. */

const round = (x: number): number => Math.round(x * 100) / 100;
