// kioku recall "QUERY" [--ns NS] [--limit N] [--json]   — the same core as HTTP and MCP
// kioku report cold [--ns NS] [--min-considered N] [--json]
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import {
  DEFAULT_DELIVERY_RULES,
  createRecallCore,
  deliveryReport,
  replay,
  rulesWith,
  PARTIAL_OF,
  type PartialOf,
  type DeliveryRules,
  type RecallPacket,
} from '../../src/recall/index.js';
import { EXIT, emit, numberFlag, type OutputOptions } from '../cli-util.js';
import { openKioku, type Kioku, type KiokuStore } from '../../src/kioku.js';
import { connectKioku, storeOrService } from './connection.js';

export interface RecallFlags extends OutputOptions, PathOverrides {
  ns?: string;
  limit?: string;
  /** commander's --no-… switches: false when given */
  wiki?: boolean;
  cards?: boolean;
  memories?: boolean;
  conversations?: boolean;
  semantic?: boolean;
  maxWiki?: string;
  maxCards?: string;
  /** only items carrying every tag named (repeated or comma-separated) */
  tag?: string[];
}

/** The layer switches and caps of `kioku recall` as recall options (the core validates the values and names the field). */
function recallOptionsOf(flags: RecallFlags): Record<string, boolean | number | string[]> {
  const options: Record<string, boolean | number | string[]> = {};
  const tags = flags.tag
    ?.flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags?.length) options['tags'] = tags;
  for (const key of ['wiki', 'cards', 'memories', 'conversations', 'semantic'] as const) if (flags[key] === false) options[key] = false;
  const maxWiki = numberFlag('max-wiki', flags.maxWiki, { min: 0 });
  const maxCards = numberFlag('max-cards', flags.maxCards, { min: 0 });
  if (maxWiki !== undefined) options['max_wiki'] = maxWiki;
  if (maxCards !== undefined) options['max_cards'] = maxCards;
  return options;
}

export async function recallCommand(query: string, flags: RecallFlags): Promise<number> {
  const limit = numberFlag('limit', flags.limit, { min: 1, max: 50 }, 10);
  const options = recallOptionsOf(flags);
  const request = { query, limit, ...(flags.ns ? { namespace: flags.ns } : {}), ...(Object.keys(options).length ? { options } : {}) };
  const { kioku, via } = await connectKioku(flags);
  let packet: RecallPacket;
  try {
    packet = await kioku.recall(request, { actor: 'cli' });
  } finally {
    await kioku.close();
  }
  emit(flags, () => describeRecall(packet, via), packet);
  return EXIT.ok;
}

/** Characters of each delivered item's text shown (the whole text is in --json). */
const SHOWN_CHARS = 700;

/**
 * What the agent would be handed (each delivered item once, with its text), then the ranked
 * records --limit asked for, delivered ones marked rather than repeated.
 */
export function describeRecall(packet: RecallPacket, via: string): string {
  const lines = [
    `${packet.retrieval_mode} · judge ${packet.judge.status} · ${packet.records.length} record(s) · ${packet.timings['total_ms']} ms${packet.degraded ? ' · DEGRADED' : ''} · namespace ${packet.namespace} · from ${via}`,
  ];
  const delivered = new Set(packet.delivery.map((d) => d.evidence_key));
  const listed = new Set(packet.records.map((r) => r.evidence_key));
  const beyond = packet.delivery.filter((d) => !listed.has(d.evidence_key)).length;
  if (packet.delivery.length === 0) lines.push('', 'delivered: nothing (no candidate was judged useful enough)');
  else {
    lines.push(
      '',
      `delivered (${packet.delivery.length}, what the agent is handed)${beyond ? `; ${beyond} of them rank below the ${packet.records.length} record(s) --limit ${packet.limit} lists: delivery chooses from every judged candidate, not only the listed ones` : ''}:`,
    );
    for (const [i, d] of packet.delivery.entries()) {
      lines.push(`[${i + 1}] ${d.title}  (${d.layer}, verdict ${d.verdict}${d.excerpt ? ', excerpt' : ''})  ${d.evidence_key}`);
      const text = d.text.length > SHOWN_CHARS ? `${d.text.slice(0, SHOWN_CHARS)}… (${d.text.length} characters; --json for all)` : d.text;
      for (const l of text.split('\n')) lines.push(`    ${l}`);
    }
  }
  if (packet.records.length) lines.push('', `records (top ${packet.records.length} by score; * = delivered above):`);
  packet.records.forEach((r, i) =>
    lines.push(
      `${String(i + 1).padStart(2)}. ${delivered.has(r.evidence_key) ? '*' : ' '} ${r.evidence_key}  ${r.title.slice(0, 70)}  score ${r.score}${r.why.verdict != null ? ` verdict ${r.why.verdict}` : ''}${r.why.held_back ? ` (${r.why.held_back})` : ''}`,
    ),
  );
  for (const w of packet.warnings)
    lines.push(
      `warning: ${w === 'unknown_namespace' ? `unknown_namespace: nothing was ever written in namespace '${packet.namespace}' (mistyped?); this recall was not recorded` : w}`,
    );
  return lines.join('\n');
}

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
}

/** The flags' changes to today's delivery rules: what a rule change would have done. */
export function replayRuleChanges(
  flags: Pick<ReplayFlags, 'floor' | 'historyFloor' | 'maxItems' | 'maxHistory' | 'keepPartialMatches' | 'partialOf' | 'knowledgeFirst'>,
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
        return await replay(store, core, { from, to, rules, ...(flags.ns ? { ns: flags.ns } : {}), ...(flags.retrieve ? { retrieve: true } : {}) });
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
