// kioku report cold [--ns NS] [--min-considered N] [--json]
// kioku report delivery [--days N] [--ns NS] [--json]
// kioku replay [--from T] [--to T] [--ns NS] [--retrieve] [rule flags…] [--json]
// What the usage counters and the recorded turns say: evidence never judged useful, how the
// deliveries were used, and what changed delivery rules would have delivered.
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { recallConfigFromEnv } from '../../src/recall/config.js';
import { openKioku, type Kioku, type KiokuStore } from '../../src/kioku.js';
import {
  DEFAULT_DELIVERY_RULES,
  createRecallCore,
  deliveryReport,
  replay,
  rulesWith,
  PARTIAL_OF,
  type PartialOf,
  type DeliveryRules,
} from '../../src/recall/index.js';
import { EXIT, emit, numberFlag, type OutputOptions } from '../cli-util.js';
import { connectKioku, storeOrService } from './connection.js';

export interface ColdFlags extends OutputOptions, PathOverrides {
  ns?: string;
  minConsidered?: string;
}

interface ColdReport {
  namespace: string;
  min_considered: number;
  basis: string;
  items: { key: string; considered: number; judged: number; returned: number }[];
}

export async function coldReportCommand(flags: ColdFlags): Promise<number> {
  const min = numberFlag('min-considered', flags.minConsidered, { min: 1 }, 5);
  const { kioku, via } = await connectKioku(flags);
  let report: ColdReport;
  try {
    report = await kioku.cold({ min_considered: min, ...(flags.ns ? { namespace: flags.ns } : {}) });
  } finally {
    await kioku.close();
  }
  emit(
    flags,
    () =>
      [
        `evidence considered ≥ ${min} times and never judged relevant in ${report.namespace}: ${report.items.length} (from ${via})`,
        ...report.items.slice(0, 50).map((c) => `  ${c.key}  considered ${c.considered}, judged ${c.judged}, returned ${c.returned}`),
      ].join('\n'),
    report,
  );
  return EXIT.ok;
}

/**
 * `run` on the store itself, or the facade's answer from the library's service: on the store a
 * report without --ns covers every namespace, as it always has; the service answers for the
 * caller's namespace (its token's, else private).
 */
async function onStoreOrService<T>(
  flags: PathOverrides,
  run: (store: KiokuStore) => Promise<T>,
  ask: (kioku: Kioku) => Promise<T>,
): Promise<{ report: T; via: string }> {
  return storeOrService(
    flags,
    async () => {
      const store = await openKioku({ ...flags, createIfMissing: false });
      try {
        return { report: await run(store), via: 'the store' };
      } finally {
        await store.close();
      }
    },
    async ({ kioku, via }) => ({ report: await ask(kioku), via }),
  );
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
  partialOf?: string;
  knowledgeFirst?: boolean;
  turnWindow?: string;
  sectionWindow?: string;
  trustJudge?: boolean;
}

/** The flags' changes to today's delivery rules: what a rule change would have done. */
export function replayRuleChanges(
  flags: Pick<ReplayFlags, 'floor' | 'historyFloor' | 'maxItems' | 'maxHistory' | 'keepPartialMatches' | 'partialOf' | 'knowledgeFirst' | 'turnWindow' | 'sectionWindow' | 'trustJudge'>,
): Partial<DeliveryRules> {
  if (flags.partialOf !== undefined && !(PARTIAL_OF as readonly string[]).includes(flags.partialOf))
    throw new KiokuError('KIOKU_USAGE', `--partial-of must be one of ${PARTIAL_OF.join(', ')}, got "${flags.partialOf}"`);
  const maxItems = numberFlag('max-items', flags.maxItems, { min: 0, max: 3 });
  const changes: Partial<DeliveryRules> = {
    floor: numberFlag('floor', flags.floor, { min: 0, max: 1, whole: false }),
    history_floor: numberFlag('history-floor', flags.historyFloor, { min: 0, max: 1, whole: false }),
    max_items: maxItems,
    max_history: numberFlag('max-history', flags.maxHistory, { min: 0, max: maxItems ?? DEFAULT_DELIVERY_RULES.max_items }),
    hold_partial_matches: flags.keepPartialMatches ? false : undefined,
    partial_of: flags.partialOf as PartialOf | undefined,
    history_may_lead: flags.knowledgeFirst ? false : undefined,
    turn_window: numberFlag('turn-window', flags.turnWindow, { min: 0, max: 5 }),
    section_window: numberFlag('section-window', flags.sectionWindow, { min: 0, max: 5 }),
    unsure_best: flags.trustJudge ? { below: 0, floor: 1, ranks: 0 } : undefined,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
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
  const changes = replayRuleChanges(flags);
  const rules = rulesWith(changes);
  const { report, via } = await onStoreOrService(
    flags,
    async (store) => {
      const core = flags.retrieve ? createRecallCore(store) : undefined;
      try {
        const plainGapMin = recallConfigFromEnv().plain_session_gap_min;
        return await replay(store, core, { from, to, rules, plainGapMin, ...(flags.ns ? { ns: flags.ns } : {}), ...(flags.retrieve ? { retrieve: true } : {}) });
      } finally {
        await core?.close();
      }
    },
    (kioku) =>
      kioku.replay({
        from: from.toISOString(),
        to: to.toISOString(),
        rules: changes,
        ...(flags.ns ? { namespace: flags.ns } : {}),
        ...(flags.retrieve ? { retrieve: true } : {}),
      }),
  );
  emit(
    flags,
    () => {
      const lines = [
        `replay ${report.from} … ${report.to}: ${report.totals.turns} turn(s) from ${via}; ${report.retrieval}; nothing appended`,
        `rules: floor ${report.rules.floor}, history floor ${report.rules.history_floor}, at most ${report.rules.max_items} item(s), ${report.rules.max_history} from history, partial matches ${report.rules.hold_partial_matches ? 'held' : 'kept'}`,
      ];
      for (const t of report.turns) {
        if (t.before.join() === t.after.join()) continue;
        lines.push(`  ${t.at} ${t.turn_id} "${t.query.slice(0, 60)}"`, `    before: ${t.before.join(', ') || '—'}`, `    after:  ${t.after.join(', ') || '—'}`);
      }
      const b = report.totals.before;
      const a = report.totals.after;
      lines.push(`before: ${b.items} item(s) (${b.knowledge} knowledge, ${b.history} history), ${b.per_turn} per turn`);
      lines.push(
        `after:  ${a.items} item(s) (${a.knowledge} knowledge, ${a.history} history), ${a.per_turn} per turn; ${report.totals.changed_turns} turn(s) changed`,
      );
      const acc = report.totals.accounting;
      lines.push(
        `usage accounting: ${acc.demoted_candidates} demoted candidate(s) recorded (${acc.demoted_in_top10} in a top 10); ${acc.negatives_counted} negative verdict(s) counted toward demotion, ${acc.negatives_ignored} ignored (weak neighbours)`,
      );
      // the span's notices between members (issue 34): those the caller sent or received
      if (report.notices.length) lines.push(`notices: ${report.notices.length} event(s)`);
      for (const n of report.notices) {
        const who = n.event === 'sent' ? `${n.from} → ${n.to.join(', ')}` : `${n.member ?? '?'} (from ${n.from})`;
        lines.push(`  ${n.at} ${n.notice_id} ${n.event}: ${who}${n.evidence_key ? ` about ${n.evidence_key}` : ''}${n.note ? ` "${n.note}"` : ''}`);
      }
      return lines.join('\n');
    },
    report,
  );
  return EXIT.ok;
}

export interface DeliveryReportFlags extends OutputOptions, PathOverrides {
  days?: string;
  ns?: string;
}

/** Delivery outcomes over the last N days: how much of each delivered item the answers used (a lexical proxy). */
export async function deliveryReportCommand(flags: DeliveryReportFlags): Promise<number> {
  const days = numberFlag('days', flags.days, { positive: true, whole: false }, 7);
  const { report, via } = await onStoreOrService(
    flags,
    (store) => deliveryReport(store.log, { days, ...(flags.ns ? { ns: flags.ns } : {}) }),
    (kioku) => kioku.deliveryReport({ days, ...(flags.ns ? { namespace: flags.ns } : {}) }),
  );
  emit(
    flags,
    () =>
      [
        `delivery outcomes over ${days} day(s) in ${report.namespace ?? 'every namespace'} (from ${via}): ${report.turns} completed turn(s); term overlap is a lexical proxy, not proof of use`,
        `  ${Object.entries(report.overlap_distribution)
          .map(([b, n]) => `${b}: ${n}`)
          .join('  ')}`,
        report.least_used_repeated.length ? 'least-used repeated items:' : 'least-used repeated items: none (no item was delivered twice)',
        ...report.least_used_repeated.map((l) => `  ${l.key}  delivered ${l.delivered}×, mean overlap ${l.mean_overlap}`),
      ].join('\n'),
    report,
  );
  return EXIT.ok;
}
