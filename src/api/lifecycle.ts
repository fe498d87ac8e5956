// Aging and use as the facade answers them (issue 35): the lifecycle job over one namespace (the
// strengths now, and the lifecycle.transitioned events it appends) and the cold items (considered
// often by recall, never found relevant). The rules are src/recall/lifecycle.ts's and the usage
// projection's; this module settles the namespace and hides what the caller may not see.
import { namespaceOf, type Access } from '../access.js';
import { KiokuError } from '../errors.js';
import { parseInput } from '../knowledge/validate.js';
import type { UsageCounters } from '../../projections/index.js';
import { runLifecycle, type LifecycleReport } from '../recall/lifecycle.js';
import type { AgingConfig } from '../recall/aging.js';
import type { KiokuStore } from '../store.js';
import { wire, type ColdInput, type LifecycleRunInput } from '../wire.js';
import { visibleIn, visibleKey } from './audience.js';

export interface ColdAnswer {
  namespace: string;
  min_considered: number;
  basis: string;
  items: ({ key: string } & UsageCounters)[];
}

/** The lifecycle job over one namespace at `now` under `aging`; its events appended under `actor` unless a dry run. */
export function lifecycleIn(store: KiokuStore, aging: AgingConfig, input: LifecycleRunInput, access: Access, now: Date, actor: string): Promise<LifecycleReport> {
  const body = parseInput(wire.lifecycleRun, input ?? {}, 'lifecycle run');
  const ns = namespaceOf(body.namespace, access);
  // a member runs it over what they may see: the report named another member's private items by key
  // and counted them (issue 34: a hidden item is not found); the nightly job runs over every item
  return runLifecycle(store, aging, { now, ns, dryRun: body.dry_run, actor, visible: visibleIn(store, ns, access) });
}

/** Items recall considered at least `min_considered` times and never found relevant, as the caller may see them. */
export function coldItems(store: KiokuStore, input: ColdInput, access: Access): ColdAnswer {
  const min = input.min_considered ?? 5;
  if (!Number.isSafeInteger(min) || min < 1 || min > 1_000_000)
    throw new KiokuError('KIOKU_INPUT_INVALID', 'min_considered must be a positive integer', { details: { field: 'min_considered' } });
  const ns = namespaceOf(input.namespace, access);
  return {
    namespace: ns,
    min_considered: min,
    basis: 'usage counters: considered/judged/relevant/returned from recall.performed and verdict.recorded events',
    items: store.projections.views.usage.cold(ns, min).filter((c) => visibleKey(store, c.key, ns, access)),
  };
}
