// usage: per namespace and evidence key, how often an item was considered, judged,
// found relevant and returned — one observation per recall — and the demotion rule.
import { recallCandidates, recordedVerdicts, type EventData, type LogRecord } from '../src/events/index.js';
import { canonicalDigest, type Projection } from './projection.js';

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

/** The snapshot's form (plain objects; the projection keeps Maps: a rebuild files ~200k observations). */
interface UsageState {
  counters: Record<string, Record<string, UsageCounters>>;
  /** recall_id → its serious candidates, until its verdicts arrive (insertion order = age) */
  pending: Record<string, string[]>;
}

export class UsageProjection implements Projection {
  readonly name = 'usage';
  readonly version = 2;
  /** the only records it counts */
  readonly types: ReadonlySet<string> = new Set(['recall.performed', 'verdict.recorded']);
  /** namespace → evidence key → counters */
  private counters = new Map<string, Map<string, UsageCounters>>();
  /** recall_id → its serious candidates, until its verdicts arrive (insertion order = age) */
  private pending = new Map<string, string[]>();

  private countersOf(ns: string, key: string): UsageCounters {
    let byKey = this.counters.get(ns);
    if (byKey === undefined) this.counters.set(ns, (byKey = new Map()));
    let c = byKey.get(key);
    if (c === undefined) byKey.set(key, (c = { considered: 0, judged: 0, relevant: 0, returned: 0 }));
    return c;
  }

  apply(record: LogRecord): void {
    if (record.type === 'recall.performed') {
      const d = record.data as EventData<'recall.performed'>;
      const candidates = recallCandidates(d);
      // one observation per call: a key that reached fusion through several legs counts once
      const seen = new Set<string>();
      for (const c of candidates) {
        if (seen.has(c.evidence_key)) continue;
        seen.add(c.evidence_key);
        const u = this.countersOf(record.ns, c.evidence_key);
        u.considered += 1;
        if (c.flags.returned) u.returned += 1;
      }
      if (d.retrieval_mode !== 'skipped') this.await(d.recall_id, seriousCandidates(candidates));
    } else if (record.type === 'verdict.recorded') {
      const d = record.data as EventData<'verdict.recorded'>;
      const best = new Map<string, number | null>();
      for (const v of recordedVerdicts(d)) {
        const prev = best.get(v.evidence_key);
        // unknown never erases a decisive verdict; the best decisive verdict counts
        if (v.score === null) {
          if (!best.has(v.evidence_key)) best.set(v.evidence_key, null);
        } else best.set(v.evidence_key, prev == null ? v.score : Math.max(prev, v.score));
      }
      const serious = new Set(this.pending.get(d.recall_id) ?? []);
      this.pending.delete(d.recall_id);
      for (const [key, score] of best) {
        if (score === null) continue; // unknown: no observation at all
        const relevant = score >= RELEVANT_AT;
        if (!relevant && !serious.has(key)) continue; // a weak neighbour's negative says nothing
        const u = this.countersOf(record.ns, key);
        u.judged += 1;
        if (relevant) u.relevant += 1;
      }
    }
  }

  /** A recall whose verdicts are to come; the oldest beyond PENDING_RECALLS are dropped (insertion order = age). */
  private await(recallId: string, serious: string[]): void {
    this.pending.set(recallId, serious);
    for (const old of this.pending.keys()) {
      if (this.pending.size <= PENDING_RECALLS) break;
      this.pending.delete(old);
    }
  }

  snapshot(): UsageState {
    const counters: UsageState['counters'] = {};
    for (const [ns, byKey] of this.counters) counters[ns] = Object.fromEntries(byKey);
    return { counters, pending: Object.fromEntries(this.pending) };
  }

  load(state: unknown): void {
    const s = state as UsageState;
    this.counters = new Map(Object.entries(s.counters).map(([ns, byKey]) => [ns, new Map(Object.entries(byKey))]));
    this.pending = new Map(Object.entries(s.pending));
  }

  reset(): void {
    this.counters = new Map();
    this.pending = new Map();
  }

  digest(): string {
    return canonicalDigest(this.snapshot());
  }

  get(ns: string, key: string): UsageCounters | undefined {
    return this.counters.get(ns)?.get(key);
  }

  demoted(ns: string, key: string): boolean {
    return isDemoted(this.get(ns, key));
  }

  /** Evidence considered at least `minConsidered` times and never found relevant. */
  cold(ns: string, minConsidered = 5): ({ key: string } & UsageCounters)[] {
    return [...(this.counters.get(ns) ?? [])]
      .filter(([, c]) => c.considered >= minConsidered && c.relevant === 0)
      .map(([key, c]) => ({ key, ...c }))
      .sort((a, b) => b.considered - a.considered || (a.key < b.key ? -1 : 1));
  }
}
