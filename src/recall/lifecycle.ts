// The lifecycle job (seed 004's nightly decay, event-sourced): for every item that ages, its
// strength now (per-kind decay since it was last written or used), the state that strength moves
// it to (candidate → active at ≥ 0.5, → archived below 0.2, archived → active after a use), and
// one `lifecycle.transitioned` event per move. It never changes an item: it appends what it
// decided, and the lifecycle projection folds it. Tombstoned items (forgotten, superseded,
// removed) are skipped. `kioku lifecycle run [--dry-run]`, POST /v1/lifecycle/run, and a timer
// inside `kioku serve` (src/server/lifecycle-timer.ts) run it.
import { z } from 'zod';
import type { Views } from '../../projections/views.js';
import { namespaceSchema } from '../events/index.js';
import type { RecordEntry } from '../knowledge/item.js';
import type { EventStore } from '../log/index.js';
import { AGING_LAYERS, decayClass, nextState, strength, type AgingConfig, type LifecycleState } from './aging.js';

export const lifecycleRunSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  /** decide and report, append nothing */
  dry_run: z.boolean().default(false),
});

export interface LifecycleTransition {
  evidence_key: string;
  from: LifecycleState;
  to: LifecycleState;
  reason: string;
  strength: number;
}

export interface LifecycleReport {
  /** the namespace looked at (all of them: null) */
  namespace: string | null;
  dry_run: boolean;
  /** when strengths were computed (ISO) */
  at: string;
  /** items that age, looked at */
  items: number;
  /** tombstoned items (forgotten, superseded, removed) of the ageing layers: skipped */
  skipped_tombstoned: number;
  /** items per strength bin, [0, 0.2) … [0.8, 1] */
  histogram: { bin: string; count: number }[];
  /** items per state before the run */
  states: Record<string, number>;
  /** moves per "from → to" */
  by_transition: Record<string, number>;
  /** the moves (at most 200 listed; by_transition counts them all) */
  transitions: LifecycleTransition[];
  /** events appended (0 on a dry run) */
  appended: number;
}

const BINS = ['[0.0, 0.2)', '[0.2, 0.4)', '[0.4, 0.6)', '[0.6, 0.8)', '[0.8, 1.0]'];
const LISTED = 200;

/** Decide the run over the projections, appending nothing (a pure read of `views` at `now`). */
export function planLifecycle(
  views: Pick<Views, 'records' | 'access' | 'lifecycle'>,
  config: AgingConfig,
  now: Date,
  ns?: string,
  /** the caller's audience (issue 34): an item it may not see is neither decided nor counted nor listed */
  visible?: (e: RecordEntry) => boolean,
): { report: LifecycleReport; moves: (LifecycleTransition & { ns: string })[] } {
  const histogram = BINS.map(() => 0);
  const states: Record<string, number> = {};
  const byTransition: Record<string, number> = {};
  const moves: (LifecycleTransition & { ns: string })[] = [];
  let items = 0;
  let tombstoned = 0;
  for (const e of views.records.all({ includeRetired: true, layers: [...AGING_LAYERS] })) {
    if ((ns !== undefined && e.ns !== ns) || (visible !== undefined && !visible(e))) continue;
    const cls = decayClass(config, e);
    if (cls === undefined) continue;
    if (e.status !== 'active') {
      tombstoned += 1;
      continue;
    }
    items += 1;
    const used = views.access.get(e.ns, e.key);
    const life = views.lifecycle.get(e.ns, e.key);
    const state: LifecycleState = life?.state ?? 'candidate';
    states[state] = (states[state] ?? 0) + 1;
    const since = Math.max(used?.last ?? 0, views.access.writtenAt(e.seq) ?? Date.parse(e.occurred_at));
    const s = strength(config, cls, now.getTime() - since);
    histogram[Math.min(BINS.length - 1, Math.floor(s / 0.2))]! += 1;
    const move = nextState(config, state, s, Boolean(life && used && used.last_used > life.at));
    if (!move) continue;
    const label = `${state} → ${move.to}`;
    byTransition[label] = (byTransition[label] ?? 0) + 1;
    moves.push({ ns: e.ns, evidence_key: e.key, from: state, to: move.to, reason: move.reason, strength: round3(s) });
  }
  moves.sort((a, b) => (a.evidence_key < b.evidence_key ? -1 : a.evidence_key > b.evidence_key ? 1 : 0));
  const report: LifecycleReport = {
    namespace: ns ?? null,
    dry_run: true,
    at: now.toISOString(),
    items,
    skipped_tombstoned: tombstoned,
    histogram: BINS.map((bin, i) => ({ bin, count: histogram[i] ?? 0 })),
    states,
    by_transition: byTransition,
    transitions: moves.slice(0, LISTED).map(({ ns: _ns, ...t }) => t),
    appended: 0,
  };
  return { report, moves };
}

/**
 * Plan, then (unless a dry run) append one `lifecycle.transitioned` per move, in batches. Runs take
 * turns: two at once (a `kioku lifecycle run` while the nightly job runs, or two nodes of a shared
 * store) both planned before either appended, and every transition was appended twice.
 */
export function runLifecycle(
  store: { log: EventStore; projections: { views: Pick<Views, 'records' | 'access' | 'lifecycle'>; waitFor(seq: number): Promise<void> } },
  config: AgingConfig,
  options: { now: Date; ns?: string | undefined; dryRun: boolean; actor?: string; visible?: ((e: RecordEntry) => boolean) | undefined },
): Promise<LifecycleReport> {
  return inTurn(store.log, async () => {
    // decide against projections caught up to the head: a use (or an earlier run's transitions) just appended must count
    await store.projections.waitFor(store.log.head().seq);
    const { report, moves } = planLifecycle(store.projections.views, config, options.now, options.ns, options.visible);
    if (options.dryRun || moves.length === 0) return { ...report, dry_run: options.dryRun };
    let appended = 0;
    for (let i = 0; i < moves.length; i += BATCH) {
      const batch = moves.slice(i, i + BATCH).map((m) => ({
        type: 'lifecycle.transitioned' as const,
        ns: m.ns,
        actor: options.actor ?? 'lifecycle',
        data: { evidence_key: m.evidence_key, from: m.from, to: m.to, reason: m.reason, confidence: Math.min(1, m.strength) },
      }));
      const done = await store.log.appendAll(batch);
      appended += done.length;
    }
    await store.projections.waitFor(store.log.head().seq);
    return { ...report, dry_run: false, appended };
  });
}

/** The run under way on each log (in this process); a shared store's lock (exclusive) orders runs across nodes too. */
const underWay = new WeakMap<EventStore, Promise<unknown>>();

function inTurn<T>(log: EventStore, task: () => Promise<T>): Promise<T> {
  const locked = (): Promise<T> => (log.exclusive ? log.exclusive('lifecycle', task) : task());
  const next = (underWay.get(log) ?? Promise.resolve()).then(locked, locked);
  underWay.set(
    log,
    next.catch(() => undefined),
  );
  return next;
}

const BATCH = 500;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;
