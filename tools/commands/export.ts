// kioku export --format jsonl|markdown [--history] [--out FILE] [--ns NS] [--json]
// Current knowledge of one namespace (cards, wiki topics, memories; with --history also daily
// notes and conversation traces), read a page at a time through the listing (the library's
// service when one holds it). jsonl is exact and re-importable (`kioku import jsonl FILE`, same
// evidence keys and texts); markdown is for people.
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import type { Kioku } from '../../src/kioku.js';
import { documentKey, type Layer } from '../../src/knowledge/evidence.js';
import type { RecordEntry } from '../../src/knowledge/item.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface ExportFlags extends OutputOptions, PathOverrides {
  format?: string;
  history?: boolean;
  out?: string;
  ns?: string;
}

export const EXPORT_FORMAT = 1;
const KNOWLEDGE: Layer[] = ['card', 'wiki', 'memory'];
const HISTORY: Layer[] = ['note', 'trace'];

/** A line of a jsonl export (see src/knowledge/import-items.ts for how each comes back in). */
export type ExportLine = Record<string, unknown> & { type: string };

/** A section's body: the entry's text holds "heading\nbody" when it has a heading. */
function bodyOf(e: RecordEntry): string {
  return e.heading && e.text.startsWith(`${e.heading}\n`) ? e.text.slice(e.heading.length + 1) : e.text;
}

/** One document's entries (its sections, any order) as one line. */
export function documentLine(entries: RecordEntry[]): ExportLine {
  const sections = [...entries].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const first = sections[0] as RecordEntry;
  const title = first.title;
  return {
    type: first.layer,
    id: first.id,
    ...(first.layer === 'note' ? {} : { title }),
    ...(first.layer !== 'note' && first.tags.length ? { tags: first.tags } : {}),
    ...(first.relations?.length ? { relations: first.relations } : {}),
    ...(first.source_path ? { source_path: first.source_path } : {}),
    content_hash: first.doc_hash,
    sections: sections.map((s) => ({
      id: s.section ?? String(s.position ?? 1),
      heading: s.heading ?? '',
      body: bodyOf(s),
      ...(s.meta ? { meta: true } : {}),
      ...(s.layer !== 'card' && s.fingerprint ? { fingerprint: s.fingerprint } : {}),
      ...(s.title !== title ? { title: s.title } : {}),
    })),
  };
}

export function memoryLine(e: RecordEntry): ExportLine {
  return {
    type: 'memory',
    id: e.id,
    kind: e.kind,
    text: e.text,
    terms: e.terms,
    entities: e.entities,
    tags: e.tags,
    ...(e.attachments?.length ? { attachments: e.attachments } : {}),
    ...(e.owner ? { owner: e.owner } : {}),
    ...(e.audience ? { audience: e.audience } : {}),
    occurred_at: e.occurred_at,
    ...(e.session_id ? { session_id: e.session_id } : {}),
  };
}

function traceLine(e: RecordEntry): ExportLine {
  return { type: e.layer, id: e.id, title: e.title, text: e.text, occurred_at: e.occurred_at, ...(e.session_id ? { session_id: e.session_id } : {}) };
}

/** Every line of a namespace's export, documents whole (their sections are neighbours in key order). */
export async function* exportLines(kioku: Kioku, input: { namespace?: string; history: boolean }): AsyncGenerator<ExportLine> {
  let cursor: string | undefined;
  let doc: RecordEntry[] = [];
  const flush = function* (): Generator<ExportLine> {
    if (doc.length) yield documentLine(doc);
    doc = [];
  };
  do {
    const page = await kioku.list({
      ...(input.namespace ? { namespace: input.namespace } : {}),
      layers: input.history ? [...KNOWLEDGE, ...HISTORY] : KNOWLEDGE,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    for (const e of page.items) {
      if (e.layer === 'card' || e.layer === 'wiki' || e.layer === 'note') {
        if (doc.length && documentKey(doc[0]?.key as string) !== documentKey(e.key)) yield* flush();
        doc.push(e);
        continue;
      }
      yield* flush();
      yield e.layer === 'memory' ? memoryLine(e) : traceLine(e);
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  yield* flush();
}

/** A line of the markdown export. */
function markdownOf(line: ExportLine): string {
  if (line.type === 'memory') {
    const tags = (line['tags'] as string[]).length ? ` #${(line['tags'] as string[]).join(' #')}` : '';
    return `- **${String(line['kind'])}** (${String(line['id'])}, ${String(line['occurred_at']).slice(0, 10)}${tags}): ${String(line['text']).replace(/\n+/g, ' ')}\n`;
  }
  if (line.type === 'trace') return `- ${String(line['occurred_at']).slice(0, 19)} [${String(line['id'])}] ${String(line['text']).replace(/\n+/g, ' ')}\n`;
  const sections = line['sections'] as { heading: string; body: string }[];
  // a section's title may be its heading path ("Doc › Section"): the document's is its first part
  const head = `## ${line.type}: ${String(line['title'] ?? line['id']).split(' › ')[0]} (${String(line['id'])})\n`;
  return `${head}\n${sections.map((s) => `${s.heading ? `### ${s.heading}\n\n` : ''}${s.body.trim()}\n`).join('\n')}\n`;
}

async function write(out: WriteStream | NodeJS.WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export async function exportCommand(flags: ExportFlags): Promise<number> {
  const format = flags.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'markdown') throw new KiokuError('KIOKU_USAGE', `--format: jsonl or markdown, got "${format}"`);
  if (flags.json && !flags.out) throw new KiokuError('KIOKU_USAGE', '--json needs --out FILE (the export itself goes to stdout otherwise)');
  if (flags.out)
    try {
      writeFileSync(flags.out, '', { mode: 0o600 });
    } catch (err) {
      throw new KiokuError('KIOKU_USAGE', `--out: cannot write ${flags.out} (${(err as Error).message})`, { cause: err });
    }
  const { kioku, via } = await connectKioku(flags);
  const out = flags.out ? createWriteStream(flags.out, { mode: 0o600 }) : process.stdout;
  const counts: Record<string, number> = {};
  try {
    const history = flags.history ?? false;
    const namespace = flags.ns;
    const exportedAt = new Date().toISOString();
    if (format === 'jsonl') await write(out, `${JSON.stringify({ kioku_export: EXPORT_FORMAT, ...(namespace ? { namespace } : {}), history, exported_at: exportedAt })}\n`);
    else await write(out, `# Kioku export${namespace ? ` of ${namespace}` : ''} (${exportedAt})\n\n`);
    for await (const line of exportLines(kioku, { ...(namespace ? { namespace } : {}), history })) {
      counts[line.type] = (counts[line.type] ?? 0) + 1;
      await write(out, format === 'jsonl' ? `${JSON.stringify(line)}\n` : markdownOf(line));
    }
  } finally {
    await kioku.close();
    if (flags.out) {
      out.end();
      await once(out, 'finish');
    }
  }
  const summary = { ok: true, format, file: flags.out ?? null, history: flags.history ?? false, counts, via };
  const human = `exported ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(', ') || 'nothing'} as ${format} (from ${via})${flags.out ? ` to ${flags.out}` : ''}`;
  if (flags.out) emit(flags, () => human, summary);
  else process.stderr.write(`${human}\n`);
  return EXIT.ok;
}
