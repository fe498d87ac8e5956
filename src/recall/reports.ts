// Delivery outcomes over a time window: how much of each delivered item the answers used.
// One function for `kioku report delivery` and `GET /v1/reports/delivery`.
import type { EventStore } from '../log/index.js';
import type { LogRecord } from '../events/index.js';
import { seqAtTime } from './replay.js';

export const OVERLAP_BUCKETS = ['0', '0-0.25', '0.25-0.5', '0.5-0.75', '0.75-1'] as const;

export interface DeliveryReport {
  days: number;
  /** the namespace read; absent = every namespace (local CLI only) */
  namespace?: string;
  turns: number;
  overlap_distribution: Record<(typeof OVERLAP_BUCKETS)[number], number>;
  /** items delivered at least twice, least used first */
  least_used_repeated: { key: string; delivered: number; mean_overlap: number }[];
  basis: string;
}

/** `visible`: the caller's audience (issue 34): another member's turns are not counted. */
export async function deliveryReport(
  log: EventStore,
  options: { days: number; ns?: string; now?: number; visible?: ((r: LogRecord) => boolean) | undefined },
): Promise<DeliveryReport> {
  const since = (options.now ?? Date.now()) - options.days * 86_400_000;
  const buckets = Object.fromEntries(OVERLAP_BUCKETS.map((b) => [b, 0])) as DeliveryReport['overlap_distribution'];
  const perKey = new Map<string, { delivered: number; overlap: number }>();
  let turns = 0;
  for await (const r of log.read({ types: ['turn.completed'], from: await seqAtTime(log, since) })) {
    if ((options.ns !== undefined && r.ns !== options.ns) || (options.visible !== undefined && !options.visible(r))) continue;
    turns += 1;
    for (const o of (r.data as { delivery_outcomes?: { evidence_key: string; term_overlap: number }[] }).delivery_outcomes ?? []) {
      const v = o.term_overlap;
      buckets[v === 0 ? '0' : v < 0.25 ? '0-0.25' : v < 0.5 ? '0.25-0.5' : v < 0.75 ? '0.5-0.75' : '0.75-1'] += 1;
      const k = perKey.get(o.evidence_key) ?? { delivered: 0, overlap: 0 };
      k.delivered += 1;
      k.overlap += v;
      perKey.set(o.evidence_key, k);
    }
  }
  const leastUsed = [...perKey.entries()]
    .filter(([, k]) => k.delivered >= 2)
    .map(([key, k]) => ({ key, delivered: k.delivered, mean_overlap: Math.round((k.overlap / k.delivered) * 1000) / 1000 }))
    .sort((a, b) => a.mean_overlap - b.mean_overlap || b.delivered - a.delivered)
    .slice(0, 20);
  return {
    days: options.days,
    ...(options.ns !== undefined ? { namespace: options.ns } : {}),
    turns,
    overlap_distribution: buckets,
    least_used_repeated: leastUsed,
    basis: "delivery_outcomes of turn.completed events: share of each delivered excerpt's terms found in the answer (lexical proxy)",
  };
}
