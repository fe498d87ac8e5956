// jobs: pipeline job events (queued, running, succeeded, failed, cancelled), stored
// and summarised — never executed.
import type { EventData, LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

export interface JobState {
  job_id: string;
  ns: string;
  stage: string;
  status: EventData<'job.event'>['status'];
  detail?: string;
  progress?: { done: number; total: number };
  first_ts: number;
  last_ts: number;
  events: number;
}

export class JobsProjection extends PlainStateProjection<Record<string, JobState>> {
  readonly name = 'jobs';
  readonly version = 1;
  constructor() {
    super(() => ({}));
  }

  apply(record: LogRecord): void {
    if (record.type !== 'job.event') return;
    const d = record.data as EventData<'job.event'>;
    const prev = this.state[d.job_id];
    this.state[d.job_id] = {
      job_id: d.job_id,
      ns: record.ns,
      stage: d.stage,
      status: d.status,
      ...(d.detail !== undefined ? { detail: d.detail } : prev?.detail !== undefined ? { detail: prev.detail } : {}),
      ...(d.progress ? { progress: d.progress } : prev?.progress ? { progress: prev.progress } : {}),
      first_ts: prev?.first_ts ?? record.ts,
      last_ts: record.ts,
      events: (prev?.events ?? 0) + 1,
    };
  }

  list(filter: { ns?: string; stage?: string; status?: string; limit?: number }): JobState[] {
    return Object.values(this.state)
      .filter(
        (j) =>
          (filter.ns === undefined || j.ns === filter.ns) &&
          (filter.stage === undefined || j.stage === filter.stage) &&
          (filter.status === undefined || j.status === filter.status),
      )
      .sort((a, b) => b.last_ts - a.last_ts || (a.job_id < b.job_id ? -1 : 1))
      .slice(0, filter.limit ?? 50);
  }

  /** Jobs active in the last `days`, counted by stage and status. */
  summary(ns: string | undefined, days: number, now = Date.now()): { since: string; by_stage: Record<string, Record<string, number>>; total: number } {
    const since = now - days * 86_400_000;
    const by_stage: Record<string, Record<string, number>> = {};
    let total = 0;
    for (const j of Object.values(this.state)) {
      if (j.last_ts < since || (ns !== undefined && j.ns !== ns)) continue;
      const s = (by_stage[j.stage] ??= {});
      s[j.status] = (s[j.status] ?? 0) + 1;
      total += 1;
    }
    return { since: new Date(since).toISOString(), by_stage, total };
  }
}
