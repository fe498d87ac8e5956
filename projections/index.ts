export { ProjectionRunner, type RunnerOptions, type ProjectionStatus, type ProgressFn } from './runner.js';
export { canonicalDigest, type Projection } from './projection.js';
export { StatsProjection, evolveStats, type StatsState } from './stats.js';
import type { Projection } from './projection.js';
import { StatsProjection } from './stats.js';

/** Every projection a Kioku store runs. Later capabilities add theirs here. */
export function defaultProjections(): Projection[] {
  return [new StatsProjection()];
}
