// After fusion, how age and use move a candidate (seed 004): the ACT-R activation of its use
// history adds a bounded boost (when enabled), and an archived item sinks by a bounded share —
// unless it was used after it was archived, which brings it back at once (the lifecycle job
// records the return as an event at its next run).
import type { Views } from '../../../projections/views.js';
import type { RecordEntry } from '../../knowledge/item.js';
import { activation, activationBoost, decayClass, strength, type AgingConfig } from '../aging.js';
import type { RecallConfig } from '../config.js';
import type { Scored } from '../judging.js';

export interface AgingAdjustment {
  /** what ACT-R activation adds (absent: re-rank off or the item does not age) */
  actr?: number;
  /** the item is archived and unused since: its score is multiplied by `archived_factor` */
  archived?: boolean;
}

/** The adjustment of each candidate that has one, by evidence key. */
export function agingAdjustments(
  views: Pick<Views, 'access' | 'lifecycle'>,
  config: AgingConfig,
  ns: string,
  now: Date,
  entries: Iterable<RecordEntry>,
): Map<string, AgingAdjustment> {
  const out = new Map<string, AgingAdjustment>();
  const t = now.getTime();
  for (const e of entries) {
    const cls = decayClass(config, e);
    if (cls === undefined) continue;
    const life = views.lifecycle.get(ns, e.key);
    const archived = life?.state === 'archived';
    // ACT-R off (the default) and not archived: nothing to adjust, so the use history is not read
    // (issue 35: reading it for every candidate cost a turn ~0.2 ms at 20k records for nothing)
    if (!archived && !config.actr.enabled) continue;
    const used = views.access.get(ns, e.key);
    const adjust: AgingAdjustment = {};
    // a use (delivered or fetched) since it was archived brings it back; a look-up does not (projections/access.ts)
    if (archived && !(used && used.last_used > life.at)) adjust.archived = true;
    if (config.actr.enabled) {
      // age since the last use, or since it was written when never used (seed: last_accessed_at, else created)
      const since = Math.max(used?.last ?? 0, views.access.writtenAt(e.seq) ?? 0);
      const age = since > 0 ? t - since : Date.parse(e.occurred_at) > 0 ? t - Date.parse(e.occurred_at) : 0;
      adjust.actr = activationBoost(config.actr, activation(config.actr, age, used?.count ?? 0, strength(config, cls, age)));
    }
    if (adjust.actr !== undefined || adjust.archived) out.set(e.key, adjust);
  }
  return out;
}

/**
 * Apply the adjustments to the scored candidates (rank's own list): ACT-R adds its boost; demoted
 * and archived evidence lose a bounded share of their score — they can fall below near-equals,
 * never below candidates that match much more weakly, and they never vanish.
 */
export function ageAndDemote(scored: Scored[], aging: ReadonlyMap<string, AgingAdjustment>, config: Pick<RecallConfig, 'demotion_factor' | 'aging'>): void {
  for (const s of scored) {
    const a = aging.get(s.entry.key);
    if (a?.actr !== undefined) s.score += s.parts['actr'] = a.actr;
    if (s.demoted && config.demotion_factor < 1) {
      s.parts['demotion'] = -(1 - config.demotion_factor) * s.score;
      s.score *= config.demotion_factor;
    }
    if (a?.archived && config.aging.archived_factor < 1) {
      s.parts['archived'] = -(1 - config.aging.archived_factor) * s.score;
      s.score *= config.aging.archived_factor;
    }
  }
}
