// Stage 4, judge: the judge sees the top of the ranked list (at most two sections per
// document), once per recall, with the cosines the vector lane already measured.
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import type { EmbeddedQueries } from '../dense.js';
import type { LaneHit } from '../fusion.js';
import type { JudgeResult } from '../judge/index.js';
import { judgePool, runJudge, type Scored } from '../judging.js';
import type { RecallPlan } from './plan.js';
import type { Ranked } from './rank.js';

export interface Judged {
  pool: Scored[];
  judged: JudgeResult;
  ms: number;
}

export async function judgeCandidates(
  core: RecallCore,
  config: RecallConfig,
  plan: RecallPlan,
  ranked: Ranked,
  lists: Map<string, LaneHit[]>,
  embedded: EmbeddedQueries,
): Promise<Judged> {
  const pool = judgePool(ranked.ranked, config, plan.asked);
  const started = performance.now();
  const judgeKind = embedded.vectors?.has('context') ? 'context' : 'utterance';
  const measured = new Map((lists.get(`vector:${judgeKind}`) ?? []).map((h) => [h.key, h.score]));
  const judged = await runJudge(core, config, {
    request: { ...plan.request, query: plan.asked },
    ns: plan.ns,
    dialogue: plan.dialogue,
    pool,
    queryVector: embedded.judgeVector,
    measured,
    range: ranked.range,
  });
  return { pool, judged, ms: Math.round((performance.now() - started) * 100) / 100 };
}
