// kioku list [--layer L…] [--kind K…] [--tag T…] [--entity E] [--session S] [--since T] [--until T]
//            [--text S] [--retired] [--limit N] [--cursor C] [--ns NS] [--json]
// One page of a namespace's items in evidence-key order, through the library's service when one
// holds it (GET /v1/items), else from the store; the next page with --cursor.
import type { PathOverrides } from '../../src/config.js';
import type { ListInput } from '../../src/wire.js';
import { EXIT, emit, numberFlag, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface ListFlags extends OutputOptions, PathOverrides {
  ns?: string;
  layer?: string[];
  kind?: string[];
  tag?: string[];
  entity?: string;
  session?: string;
  since?: string;
  until?: string;
  text?: string;
  retired?: boolean;
  limit?: string;
  cursor?: string;
}

/** Repeated or comma-separated values, one list. */
const listOf = (values: string[] | undefined): string[] | undefined => values?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

export function listInputOfFlags(flags: ListFlags): ListInput {
  const limit = numberFlag('limit', flags.limit, { min: 1, max: 500 });
  return {
    ...(flags.ns ? { namespace: flags.ns } : {}),
    ...(flags.layer ? { layers: listOf(flags.layer) as ListInput['layers'] } : {}),
    ...(flags.kind ? { kinds: listOf(flags.kind) } : {}),
    ...(flags.tag ? { tags: listOf(flags.tag) } : {}),
    ...(flags.entity ? { entity: flags.entity } : {}),
    ...(flags.session ? { session_id: flags.session } : {}),
    ...(flags.since ? { since: flags.since } : {}),
    ...(flags.until ? { until: flags.until } : {}),
    ...(flags.text ? { text: flags.text } : {}),
    ...(flags.retired ? { include_retired: true } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(flags.cursor ? { cursor: flags.cursor } : {}),
  };
}

export async function listCommand(flags: ListFlags): Promise<number> {
  const input = listInputOfFlags(flags);
  const { kioku, via } = await connectKioku(flags);
  try {
    const page = await kioku.list(input, { actor: 'cli' });
    emit(
      flags,
      () => {
        const lines = [`${page.items.length} item(s) in ${page.namespace} (from ${via})`];
        for (const e of page.items) {
          const what = e.kind ? `${e.layer}/${e.kind}` : e.layer;
          const text = (e.layer === 'memory' || e.layer === 'trace' ? e.text : `${e.title} · ${e.text}`).replace(/\s+/g, ' ').trim();
          lines.push(
            `${e.key}  [${what}${e.status === 'active' ? '' : `, ${e.status}`}] ${e.occurred_at.slice(0, 10)}${e.tags.length ? ` #${e.tags.join(' #')}` : ''}  ${text.slice(0, 100)}${text.length > 100 ? '…' : ''}`,
          );
        }
        if (page.next_cursor) lines.push(`more: kioku list … --cursor ${page.next_cursor}`);
        else lines.push('(the end)');
        return lines.join('\n');
      },
      page,
    );
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}
