// usage: per namespace and evidence key, how often an item was considered, judged,
// found relevant and returned — one observation per recall — and the demotion rule.
import type { EventData, LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

export interface UsageCounters {
  considered: number;
  judged: number;
  relevant: number;
  returned: number;
}

/** architecture.md §recall step 8: at least this many decisive judged observations, none positive → demoted. */
export const DEMOTION_MIN_JUDGED = 5;
/** A verdict at or above this counts as relevant (the delivery floor). */
export const RELEVANT_AT = 0.5;
/**
 * A negative verdict counts only where the item was a serious candidate of that recall:
 * among its first SERIOUS_RANKS fused candidates, with at least SERIOUS_SHARE of the best
 * fused score. A weak lexical neighbour judged irrelevant says nothing about the item
 * (CMRC through HTTP with state: every negative counted → recall@10 0.65).
 */
export const SERIOUS_RANKS = 3;
export const SERIOUS_SHARE = 0.5;
/** Recalls whose verdicts have not arrived yet, kept at most (older ones are dropped: their verdicts never came). */
const PENDING_RECALLS = 256;

/** The keys of a recall's candidate list (fused order) whose negative verdict may count. */
export function seriousCandidates(candidates: readonly { evidence_key: string; score: number }[]): string[] {
  const best = candidates[0]?.score ?? 0;
  const out: string[] = [];
  for (const c of candidates.slice(0, SERIOUS_RANKS)) if (best <= 0 || c.score >= SERIOUS_SHARE * best) out.push(c.evidence_key);
  return out;
}

/** Demotion: ≥ 5 decisive observations and no positive one. Changes rank, never deletes. */
export function isDemoted(c: UsageCounters | undefined): boolean {
  return c !== undefined && c.judged >= DEMOTION_MIN_JUDGED && c.relevant === 0;
}

interface UsageState {
  counters: Record<string, Record<string, UsageCounters>>;
  /** recall_id → its serious candidates, until its verdicts arrive (insertion order = age) */
  pending: Record<string, string[]>;
}

export class UsageProjection extends PlainStateProjection<UsageState> {
  readonly name = 'usage';
  readonly version = 2;
  /** how many recalls `state.pending` holds (derived, so not in the snapshot; -1 = count at next use) */
  private pendingCount = -1;

  constructor() {
    super(() => ({ counters: {}, pending: {} }));
  }

  private counters(ns: string, key: string): UsageCounters {
    const byKey = (this.state.counters[ns] ??= {});
    return (byKey[key] ??= { considered: 0, judged: 0, relevant: 0, returned: 0 });
  }

  apply(record: LogRecord): void {
    if (record.type === 'recall.performed') {
      const d = record.data as EventData<'recall.performed'>;
      // one observation per call: a key that reached fusion through several legs counts once
      const seen = new Set<string>();
      for (const c of d.candidates) {
        if (seen.has(c.evidence_key)) continue;
        seen.add(c.evidence_key);
        const u = this.counters(record.ns, c.evidence_key);
        u.considered += 1;
        if (c.flags?.includes('returned')) u.returned += 1;
      }
      if (d.retrieval_mode !== 'skipped') this.await(d.recall_id, seriousCandidates(d.candidates));
    } else if (record.type === 'verdict.recorded') {
      const d = record.data as EventData<'verdict.recorded'>;
      const best = new Map<string, number | null>();
      for (const v of d.verdicts) {
        const prev = best.get(v.evidence_key);
        // unknown never erases a decisive verdict; the best decisive verdict counts
        if (v.score === null) {
          if (!best.has(v.evidence_key)) best.set(v.evidence_key, null);
        } else best.set(v.evidence_key, prev == null ? v.score : Math.max(prev, v.score));
      }
      const serious = new Set(this.state.pending[d.recall_id] ?? []);
      this.settle(d.recall_id);
      for (const [key, score] of best) {
        if (score === null) continue; // unknown: no observation at all
        const relevant = score >= RELEVANT_AT;
        if (!relevant && !serious.has(key)) continue; // a weak neighbour's negative says nothing
        const u = this.counters(record.ns, key);
        u.judged += 1;
        if (relevant) u.relevant += 1;
      }
    }
  }

  /** A recall whose verdicts are to come; the oldest beyond PENDING_RECALLS are dropped (insertion order = age). */
  private await(recallId: string, serious: string[]): void {
    const pending = this.state.pending;
    let count = this.pendingCount < 0 ? Object.keys(pending).length : this.pendingCount;
    if (!Object.hasOwn(pending, recallId)) count += 1;
    pending[recallId] = serious;
    for (const old in pending) {
      if (count <= PENDING_RECALLS) break;
      delete pending[old];
      count -= 1;
    }
    this.pendingCount = count;
  }

  private settle(recallId: string): void {
    if (!Object.hasOwn(this.state.pending, recallId)) return;
    delete this.state.pending[recallId];
    if (this.pendingCount > 0) this.pendingCount -= 1;
  }

  override load(state: unknown): void {
    super.load(state);
    this.pendingCount = -1;
  }

  override reset(): void {
    super.reset();
    this.pendingCount = -1;
  }

  get(ns: string, key: string): UsageCounters | undefined {
    return this.state.counters[ns]?.[key];
  }

  demoted(ns: string, key: string): boolean {
    return isDemoted(this.get(ns, key));
  }

  /** Evidence considered at least `minConsidered` times and never found relevant. */
  cold(ns: string, minConsidered = 5): ({ key: string } & UsageCounters)[] {
    return Object.entries(this.state.counters[ns] ?? {})
      .filter(([, c]) => c.considered >= minConsidered && c.relevant === 0)
      .map(([key, c]) => ({ key, ...c }))
      .sort((a, b) => b.considered - a.considered || (a.key < b.key ? -1 : 1));
  }
}
