// kioku recall "QUERY" [--ns NS] [--limit N] [--json]   — the same core as HTTP and MCP
import type { PathOverrides } from '../../src/config.js';
import type { RecallPacket } from '../../src/recall/index.js';
import { EXIT, emit, numberFlag, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

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
