// The read models by name, typed: `runner.views.records` instead of a string lookup and a cast.
import type { AccessProjection } from './access.js';
import type { DeliveredProjection } from './delivered.js';
import type { JobsProjection } from './jobs.js';
import type { NoticesProjection } from './notices.js';
import type { OrgProjection } from './org.js';
import type { KeywordProjection } from './keyword/index.js';
import type { LifecycleProjection } from './lifecycle.js';
import type { GraphProjection } from './graph.js';
import type { RecordsProjection } from './records/index.js';
import type { StatsProjection } from './stats.js';
import type { TurnsProjection } from './turns.js';
import type { UsageProjection } from './usage.js';
import type { VectorProjection } from './vector/index.js';

export interface Views {
  stats: StatsProjection;
  records: RecordsProjection;
  keyword: KeywordProjection;
  vector: VectorProjection;
  usage: UsageProjection;
  delivered: DeliveredProjection;
  turns: TurnsProjection;
  jobs: JobsProjection;
  notices: NoticesProjection;
  org: OrgProjection;
  access: AccessProjection;
  lifecycle: LifecycleProjection;
  graph: GraphProjection;
}

export const VIEW_NAMES: readonly (keyof Views)[] = ['stats', 'records', 'keyword', 'vector', 'usage', 'delivered', 'turns', 'jobs', 'notices', 'org', 'access', 'lifecycle', 'graph'];
