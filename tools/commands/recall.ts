// kioku recall "QUERY" [--ns NS] [--limit N] [--json]   — the same core as HTTP and MCP
// kioku report cold [--ns NS] [--min-considered N] [--json]
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { openKioku } from '../../src/kioku.js';
import { DEFAULT_DELIVERY_RULES, createRecallCore, recall, replay, seqAtTime, type DeliveryRules } from '../../src/recall/index.js';
import type { UsageProjection } from '../../projections/index.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface RecallFlags extends OutputOptions, PathOverrides {
  ns?: string;
  limit?: string;
}

export async function recallCommand(query: string, flags: RecallFlags): Promise<number> {
  const limit = flags.limit === undefined ? 10 : Number(flags.limit);
  const store = await openKioku({ ...flags, createIfMissing: false });
  const core = createRecallCore(store);
  try {
    const packet = await recall(core, { query, limit, ...(flags.ns ? { namespace: flags.ns } : {}) }, { actor: 'cli' });
    emit(
      flags,
      () => {
        const lines = [
          `${packet.retrieval_mode} · judge ${packet.judge.status} · ${packet.records.length} record(s) · ${packet.timings['total_ms']} ms${packet.degraded ? ' · DEGRADED' : ''}`,
        ];
        for (const d of packet.delivery) lines.push(`→ delivered [${d.layer}] ${d.title} (verdict ${d.verdict})`);
        packet.records.forEach((r, i) =>
          lines.push(
            `${String(i + 1).padStart(2)}. ${r.evidence_key}  ${r.title.slice(0, 70)}  score ${r.score}${r.why.verdict != null ? ` verdict ${r.why.verdict}` : ''}${r.why.held_back ? ` (${r.why.held_back})` : ''}`,
          ),
        );
        for (const w of packet.warnings) lines.push(`warning: ${w}`);
        return lines.join('\n');
      },
      packet,
    );
    return EXIT.ok;
  } finally {
    await core.close();
    await store.close();
  }
}

export interface ColdFlags extends OutputOptions, PathOverrides {
  ns?: string;
  minConsidered?: string;
}

export async function coldReportCommand(flags: ColdFlags): Promise<number> {
  const min = flags.minConsidered === undefined ? 5 : Number(flags.minConsidered);
  if (!Number.isSafeInteger(min) || min < 1) throw new KiokuError('KIOKU_USAGE', '--min-considered must be a positive integer');
  const store = await openKioku({ ...flags, createIfMissing: false });
  try {
    const ns = flags.ns ?? 'private';
    const cold = store.projections.get<UsageProjection>('usage').cold(ns, min);
    emit(
      flags,
      () =>
        [
          `evidence considered ≥ ${min} times and never judged relevant in ${ns}: ${cold.length}`,
          ...cold.slice(0, 50).map((c) => `  ${c.key}  considered ${c.considered}, judged ${c.judged}, returned ${c.returned}`),
        ].join('\n'),
      { namespace: ns, min_considered: min, basis: 'usage counters from recall.performed and verdict.recorded events', items: cold },
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

export interface ReplayFlags extends OutputOptions, PathOverrides {
  from?: string;
  to?: string;
  ns?: string;
  retrieve?: boolean;
  floor?: string;
  historyFloor?: string;
  maxItems?: string;
  maxHistory?: string;
  keepPartialMatches?: boolean;
}

/** Today's delivery rules with the flags' changes: what a rule change would have done. */
export function replayRules(flags: Pick<ReplayFlags, 'floor' | 'historyFloor' | 'maxItems' | 'maxHistory' | 'keepPartialMatches'>): DeliveryRules {
  const number = (v: string | undefined, flag: string, min: number, max: number, integer: boolean): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      throw new KiokuError('KIOKU_USAGE', `--${flag} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${v}"`);
    return n;
  };
  const d = DEFAULT_DELIVERY_RULES;
  const maxItems = number(flags.maxItems, 'max-items', 0, 3, true) ?? d.max_items;
  return {
    ...d,
    floor: number(flags.floor, 'floor', 0, 1, false) ?? d.floor,
    history_floor: number(flags.historyFloor, 'history-floor', 0, 1, false) ?? d.history_floor,
    max_items: maxItems,
    max_history: number(flags.maxHistory, 'max-history', 0, maxItems, true) ?? Math.min(d.max_history, maxItems),
    hold_partial_matches: flags.keepPartialMatches ? false : d.hold_partial_matches,
  };
}

export async function replayCommand(flags: ReplayFlags): Promise<number> {
  const parse = (v: string | undefined, name: string, fallback: Date): Date => {
    if (v === undefined) return fallback;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new KiokuError('KIOKU_USAGE', `--${name} must be a date or time (ISO 8601), got "${v}"`);
    return d;
  };
  const from = parse(flags.from, 'from', new Date(0));
  const to = parse(flags.to, 'to', new Date(Date.now() + 60_000));
  if (from.getTime() > to.getTime()) throw new KiokuError('KIOKU_USAGE', `--from (${from.toISOString()}) is after --to (${to.toISOString()})`);
  const rules = replayRules(flags);
  const store = await openKioku({ ...flags, createIfMissing: false });
  const core = flags.retrieve ? createRecallCore(store) : undefined;
  try {
    const report = await replay(store, core, { from, to, rules, ...(flags.ns ? { ns: flags.ns } : {}), ...(flags.retrieve ? { retrieve: true } : {}) });
    emit(
      flags,
      () => {
        const lines = [
          `replay ${report.from} … ${report.to}: ${report.totals.turns} turn(s); ${report.retrieval}; nothing appended`,
          `rules: floor ${rules.floor}, history floor ${rules.history_floor}, at most ${rules.max_items} item(s), ${rules.max_history} from history, partial matches ${rules.hold_partial_matches ? 'held' : 'kept'}`,
        ];
        for (const t of report.turns) {
          if (t.before.join() === t.after.join()) continue;
          lines.push(
            `  ${t.at} ${t.turn_id} "${t.query.slice(0, 60)}"`,
            `    before: ${t.before.join(', ') || '—'}`,
            `    after:  ${t.after.join(', ') || '—'}`,
          );
        }
        const b = report.totals.before;
        const a = report.totals.after;
        lines.push(`before: ${b.items} item(s) (${b.knowledge} knowledge, ${b.history} history), ${b.per_turn} per turn`);
        lines.push(
          `after:  ${a.items} item(s) (${a.knowledge} knowledge, ${a.history} history), ${a.per_turn} per turn; ${report.totals.changed_turns} turn(s) changed`,
        );
        return lines.join('\n');
      },
      report,
    );
    return EXIT.ok;
  } finally {
    await core?.close();
    await store.close();
  }
}

export interface DeliveryReportFlags extends OutputOptions, PathOverrides {
  days?: string;
  ns?: string;
}

/** Delivery outcomes over the last N days: how much of each delivered item the answers used (a lexical proxy). */
export async function deliveryReportCommand(flags: DeliveryReportFlags): Promise<number> {
  const days = flags.days === undefined ? 7 : Number(flags.days);
  if (!Number.isFinite(days) || days <= 0) throw new KiokuError('KIOKU_USAGE', '--days must be a positive number');
  const store = await openKioku({ ...flags, createIfMissing: false });
  try {
    const since = Date.now() - days * 86_400_000;
    const buckets = { '0': 0, '0-0.25': 0, '0.25-0.5': 0, '0.5-0.75': 0, '0.75-1': 0 };
    const perKey = new Map<string, { delivered: number; overlap: number }>();
    let turns = 0;
    for await (const r of store.log.read({ types: ['turn.completed'], from: await seqAtTime(store.log, since) })) {
      if (flags.ns && r.ns !== flags.ns) continue;
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
    emit(
      flags,
      () =>
        [
          `delivery outcomes over ${days} day(s): ${turns} completed turn(s); term overlap is a lexical proxy, not proof of use`,
          `  ${Object.entries(buckets)
            .map(([b, n]) => `${b}: ${n}`)
            .join('  ')}`,
          'least-used repeated items:',
          ...leastUsed.map((l) => `  ${l.key}  delivered ${l.delivered}×, mean overlap ${l.mean_overlap}`),
        ].join('\n'),
      {
        days,
        turns,
        overlap_distribution: buckets,
        least_used_repeated: leastUsed,
        basis: "delivery_outcomes of turn.completed events: share of each delivered excerpt's terms found in the answer (lexical proxy)",
      },
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
