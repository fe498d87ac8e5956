// What the judge sees: the top of the fused list, at most N sections per document, with
// the cosines the vector lane already measured.
import type { RecordEntry } from '../../projections/records/index.js';
import { searchableText } from '../knowledge/item.js';
import { documentKey } from '../knowledge/evidence.js';
import { queryTokens, tokenize } from '../text/index.js';
import type { RecallConfig } from './config.js';
import { inRange, type TimeRange } from './cues.js';
import type { boundConversation } from './conversation.js';
import { passageFor } from '../text/passage.js';
import type { JudgeResult } from './judge/index.js';
import type { RecallCore } from './core.js';
import type { ParsedRecallRequest } from './request.js';

export type Scored = { entry: RecordEntry; score: number; parts: Record<string, number>; demoted: boolean };

/** The top of the fused list, with at most N sections per document; after the first, those whose heading names query terms come first. */
export function judgePool(ranked: Scored[], config: RecallConfig, query: string): Scored[] {
  const terms = new Set(queryTokens(query));
  const byDoc = new Map<string, Scored[]>();
  for (const s of ranked) {
    const doc = documentKey(s.entry.key);
    const list = byDoc.get(doc) ?? [];
    list.push(s);
    byDoc.set(doc, list);
  }
  const allowed = new Set<string>();
  for (const list of byDoc.values()) {
    const [first, ...rest] = list;
    if (!first) continue;
    allowed.add(first.entry.key);
    if (config.sections_per_document < 2 || rest.length === 0) continue;
    // the others by how many query terms their heading names, then by rank (the sort is stable)
    const headingScore = (s: Scored): number => (s.entry.heading ? tokenize(s.entry.heading).filter((t) => terms.has(t)).length : 0);
    for (const s of [...rest].sort((a, b) => headingScore(b) - headingScore(a)).slice(0, config.sections_per_document - 1)) allowed.add(s.entry.key);
  }
  return ranked.filter((s) => allowed.has(s.entry.key)).slice(0, config.judge_pool);
}

export interface JudgeInput {
  request: ParsedRecallRequest;
  /** the namespace searched: term weights come from it */
  ns: string;
  dialogue: ReturnType<typeof boundConversation>;
  pool: Scored[];
  queryVector: Float32Array | undefined;
  /** cosines the vector lane already measured for the judge's query */
  measured: ReadonlyMap<string, number>;
  /** the time range the utterance names, if any */
  range: TimeRange | undefined;
}

export async function runJudge(core: RecallCore, config: RecallConfig, input: JudgeInput): Promise<JudgeResult> {
  const { request, ns, dialogue, pool, queryVector, measured, range } = input;
  if (pool.length === 0) return { judge: core.judge.id, status: 'complete', verdicts: new Map(), calls: 0, ms: 0 };
  const vectors = core.projections.views.vector;
  const keyword = core.projections.views.keyword;
  const lane = core.embedder ? vectors.lane('text', core.embedder.id) : undefined;
  try {
    return await core.judge.judge({
      utterance: request.query,
      dialogue,
      queryVector,
      termWeight: (term) => keyword.idf(term, ns),
      ...(range ? { timePhrase: range.phrase } : {}),
      deadline: Date.now() + config.judge_timeout_ms,
      candidates: pool.map((s, rank) => {
        const known = measured.get(s.entry.key);
        return {
          key: s.entry.key,
          title: s.entry.title,
          ...(s.entry.heading ? { heading: s.entry.heading } : {}),
          rank,
          // the passage delivery would hand over (the one matching what was asked), not the section's opening:
          // an answer deep in a long page is judged on the text that holds it
          text: passageFor(searchableText(s.entry), config.delivery.excerpt_chars, request.query).text,
          ...(known !== undefined ? { cosine: known } : { vector: lane?.vectorOf(s.entry.key) }),
          ...(range && inRange(s.entry.occurred_at, range) ? { inTimeRange: true } : {}),
        };
      }),
    });
  } catch (err) {
    return { judge: core.judge.id, status: 'failed', verdicts: new Map(pool.map((s) => [s.entry.key, null])), calls: 1, ms: 0, error: (err as Error).message };
  }
}
