// The lifecycle job inside `kioku serve` (seed 004 ran its decay nightly from cron): every
// `everyHours` (KIOKU_LIFECYCLE_EVERY_H, default 24; 0 turns it off), the first run one interval
// after start: a service started for a job (an eval, a backup) never appends transitions meant
// for a library that lives for days. On a shared store (PostgreSQL) only the node holding the `lifecycle` role
// runs it, as one node runs the embedding job, so two nodes never append the same transitions.
// A service that ran the job before resumes its rhythm: the next run is due one interval after the
// last one (`<data>/lifecycle-last-run`), else a service restarted more often than every 24 hours
// (a laptop, KIOKU_IDLE_SHUTDOWN, a service the hook starts) never ran it at all.
import { readFileSync, writeFileSync } from 'node:fs';
import { KiokuError } from '../errors.js';
import { recallConfigFromEnv, type RecallConfig } from '../recall/config.js';
import { runLifecycle, type LifecycleReport } from '../recall/lifecycle.js';
import type { KiokuStore } from '../store.js';

export const DEFAULT_LIFECYCLE_EVERY_H = 24;
/** setTimeout's longest delay */
const MAX_TIMER_MS = 2_147_483_647;

/** The shortest interval KIOKU_LIFECYCLE_EVERY_H takes: one minute (a smaller one ran the job back to back). */
export const MIN_LIFECYCLE_EVERY_H = 1 / 60;

/** KIOKU_LIFECYCLE_EVERY_H: hours between runs (fractions allowed, at least a minute), 0 = off. */
export function lifecycleEveryFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIFECYCLE_EVERY_H;
  const h = Number(raw);
  if (!Number.isFinite(h) || h < 0 || (h > 0 && h < MIN_LIFECYCLE_EVERY_H))
    throw new KiokuError('KIOKU_USAGE', `KIOKU_LIFECYCLE_EVERY_H must be a number of hours, at least 0.0167 (a minute), 0 for off (got "${raw}")`, {
      details: { field: 'KIOKU_LIFECYCLE_EVERY_H' },
    });
  return h;
}

export interface LifecycleTimer {
  /** no further run starts; a run under way is awaited */
  stop(): Promise<void>;
  /** reports of the runs so far (the last few), for tests and health */
  readonly runs: LifecycleReport[];
}

export function startLifecycleTimer(
  store: KiokuStore,
  options: {
    everyHours: number;
    config?: RecallConfig;
    now?: () => Date;
    onError?: (err: unknown) => void;
    /** where the time of the last run is kept (absent: nothing kept, the first run one interval after start) */
    lastRunFile?: string;
  },
): LifecycleTimer {
  const runs: LifecycleReport[] = [];
  const everyMs = options.everyHours * 3_600_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = options.everyHours <= 0;
  const tick = async (): Promise<void> => {
    try {
      if (store.log.holdsRole && !(await store.log.holdsRole('lifecycle'))) return;
      const aging = (options.config ?? recallConfigFromEnv()).aging;
      const report = await runLifecycle(store, aging, { now: options.now?.() ?? new Date(), dryRun: false, actor: 'lifecycle' });
      runs.push(report);
      if (runs.length > 10) runs.shift();
      if (options.lastRunFile) writeFileSync(options.lastRunFile, `${report.at}\n`);
    } catch (err) {
      if (!stopped) options.onError?.(err);
    }
  };
  const schedule = (ms: number): void => {
    if (stopped) return;
    // setTimeout runs a delay past 2^31-1 ms (24.8 days) after 1 ms: a longer interval waits in steps
    const step = Math.min(ms, MAX_TIMER_MS);
    timer = setTimeout(() => {
      if (ms > step) schedule(ms - step);
      else running = tick().finally(() => schedule(everyMs));
    }, step);
    timer.unref();
  };
  schedule(firstDelay(everyMs, options.lastRunFile, (options.now?.() ?? new Date()).getTime()));
  return {
    runs,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** The first run: one interval after the last run kept in `file` (at once when that is past), else one interval from now. */
function firstDelay(everyMs: number, file: string | undefined, now: number): number {
  let last = NaN;
  try {
    if (file) last = Date.parse(readFileSync(file, 'utf8').trim());
  } catch {
    // never ran here: one interval from now
  }
  return Number.isFinite(last) && last <= now ? Math.max(0, last + everyMs - now) : everyMs;
}
