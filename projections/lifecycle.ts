// lifecycle: the state each item is in (candidate → active → archived), as the lifecycle job
// decided it in `lifecycle.transitioned` events (src/recall/lifecycle.ts). An item no event
// named is a candidate. The job decides; this only folds what it appended.
import type { EventData, LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

export type LifecycleState = EventData<'lifecycle.transitioned'>['to'];

export interface LifecycleEntry {
  state: LifecycleState;
  /** log time (ms) of the transition */
  at: number;
}

/** namespace → evidence key → [state, at] */
type LifecycleProjectionState = Record<string, Record<string, [LifecycleState, number]>>;

export class LifecycleProjection extends PlainStateProjection<LifecycleProjectionState> {
  readonly name = 'lifecycle';
  readonly version = 1;
  readonly types: ReadonlySet<string> = new Set(['lifecycle.transitioned']);
  constructor() {
    super(() => ({}));
  }

  apply(record: LogRecord): void {
    if (record.type !== 'lifecycle.transitioned') return;
    const d = record.data as EventData<'lifecycle.transitioned'>;
    (this.state[record.ns] ??= {})[d.evidence_key] = [d.to, record.ts];
  }

  /** The item's state (undefined: no transition yet, a candidate). */
  get(ns: string, key: string): LifecycleEntry | undefined {
    const row = this.state[ns]?.[key];
    return row && { state: row[0], at: row[1] };
  }

  /** How many items of a namespace (of all without one) each state holds, among those a transition named. */
  counts(ns?: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [n, byKey] of Object.entries(this.state)) {
      if (ns !== undefined && n !== ns) continue;
      for (const [state] of Object.values(byKey)) out[state] = (out[state] ?? 0) + 1;
    }
    return out;
  }
}
