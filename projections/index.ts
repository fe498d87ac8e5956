export { ProjectionRunner, type RunnerOptions, type ProjectionStatus, type ProgressFn } from './runner.js';
export { canonicalDigest, type Projection } from './projection.js';
export { VIEW_NAMES, type Views } from './views.js';
export { StatsProjection, evolveStats, type StatsState } from './stats.js';
export { RecordsProjection, type RecordEntry, type ItemStatus } from './records/index.js';
export { KeywordProjection, searchableText, type KeywordHit, type KeywordLane, type KeywordSearchOptions } from './keyword/index.js';
export { DeliveredProjection } from './delivered.js';
export { JobsProjection, type JobState } from './jobs.js';
export { NoticesProjection } from './notices.js';
export { OrgProjection } from './org.js';
export { TurnsProjection, completionHash, type TurnState, type SessionState } from './turns.js';
export { UsageProjection, isDemoted, DEMOTION_MIN_JUDGED, type UsageCounters } from './usage.js';
export { AccessProjection, type AccessCounts } from './access.js';
export { LifecycleProjection, type LifecycleEntry } from './lifecycle.js';
export { GraphProjection } from './graph.js';
export { VectorProjection, VectorLane, laneId, type VectorHit, type VectorSearchOptions } from './vector/index.js';
export { VECTOR_INDEX, type VectorIndexInfo } from './vector/graph.js';
import type { Projection } from './projection.js';
import { KeywordProjection } from './keyword/index.js';
import { RecordsProjection } from './records/index.js';
import { StatsProjection } from './stats.js';
import { VectorProjection } from './vector/index.js';
import { DeliveredProjection } from './delivered.js';
import { UsageProjection } from './usage.js';
import { TurnsProjection } from './turns.js';
import { JobsProjection } from './jobs.js';
import { NoticesProjection } from './notices.js';
import { OrgProjection } from './org.js';
import { AccessProjection } from './access.js';
import { LifecycleProjection } from './lifecycle.js';
import { GraphProjection } from './graph.js';

/** Every projection a Kioku store runs. Later capabilities add theirs here. */
export function defaultProjections(): Projection[] {
  return [
    new StatsProjection(),
    new RecordsProjection(),
    new KeywordProjection(),
    new VectorProjection(),
    new UsageProjection(),
    new DeliveredProjection(),
    new TurnsProjection(),
    new JobsProjection(),
    new NoticesProjection(),
    new OrgProjection(),
    new AccessProjection(),
    new LifecycleProjection(),
    new GraphProjection(),
  ];
}
