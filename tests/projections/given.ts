// given(events) → then(state): a projection fed real, validated, hash-chained events through
// the same runner the service uses (an in-memory chain), so a projection test reads as the
// event story it checks.
import { ProjectionRunner, type Projection } from '../../projections/index.js';
import type { AppendInput } from '../../src/events/index.js';
import { MemoryEventLog } from '../../src/log/index.js';

export interface Given {
  /** the projection after every event, as the runner applied them */
  then<P extends Projection>(projection: P): Promise<P>;
}

export function given(...events: AppendInput[]): Given {
  return {
    async then(projection) {
      const log = new MemoryEventLog();
      for (const e of events) await log.append({ actor: 'given', ...e });
      const runner = new ProjectionRunner(log, [projection]);
      await runner.open();
      await runner.close();
      await log.close();
      return projection;
    },
  };
}
