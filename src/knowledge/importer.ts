// `kioku import cards|wiki|notes DIR`: markdown files (optional front matter) into
// knowledge writes. Idempotent: an unchanged file appends nothing, a changed file one
// upsert, a deleted file a removal only with --prune.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import type { RecordsProjection } from '../../projections/records.js';
import { KiokuError } from '../errors.js';
import type { Knowledge } from './commands.js';
import type { Layer } from './evidence.js';
import { parseFrontMatter } from './markdown.js';

export const IMPORT_KINDS = { cards: 'card', wiki: 'wiki', notes: 'note' } as const;
export type ImportKind = keyof typeof IMPORT_KINDS;

export interface ImportOptions {
  kind: ImportKind;
  dir: string;
  ns?: string;
  prune?: boolean;
  onProgress?: (done: number, total: number, file: string) => void;
}

export interface ImportSummary {
  kind: ImportKind;
  dir: string;
  ns: string;
  files: number;
  added: string[];
  changed: string[];
  unchanged: number;
  removed: string[];
  /** documents whose files are gone, left in place because --prune was not given */
  missing_not_pruned: string[];
  errors: { file: string; message: string }[];
}

const MARKDOWN = new Set(['.md', '.markdown', '.mdx']);

function listMarkdown(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && MARKDOWN.has(extname(entry.name).toLowerCase())) out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Id from the path relative to the import root, without extension; characters the key syntax reserves become "-". */
export function idFromPath(root: string, file: string): string {
  const rel = relative(root, file).split(sep).join('/');
  return rel.slice(0, rel.length - extname(rel).length).replace(/[\s:#]+/g, '-');
}

function noteDate(meta: Record<string, unknown>, file: string): string | undefined {
  const raw = meta['date'];
  const fromMeta = raw instanceof Date ? raw.toISOString().slice(0, 10) : typeof raw === 'string' ? raw.slice(0, 10) : undefined;
  if (fromMeta && /^\d{4}-\d{2}-\d{2}$/.test(fromMeta)) return fromMeta;
  return /(\d{4}-\d{2}-\d{2})/.exec(basename(file))?.[1];
}

export async function importDirectory(knowledge: Knowledge, records: RecordsProjection, options: ImportOptions): Promise<ImportSummary> {
  const dir = resolve(options.dir);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
  } catch (cause) {
    throw new KiokuError('KIOKU_INPUT_INVALID', `import: ${dir} is not a readable directory`, { cause, details: { field: 'dir' } });
  }
  const ns = options.ns ?? 'private';
  const layer: Layer = IMPORT_KINDS[options.kind];
  const files = listMarkdown(dir);
  const summary: ImportSummary = {
    kind: options.kind,
    dir,
    ns,
    files: files.length,
    added: [],
    changed: [],
    unchanged: 0,
    removed: [],
    missing_not_pruned: [],
    errors: [],
  };
  const seen = new Set<string>();
  for (const [i, file] of files.entries()) {
    options.onProgress?.(i, files.length, file);
    const rel = relative(dir, file);
    try {
      const markdown = readFileSync(file, 'utf8');
      const meta = parseFrontMatter(markdown).meta;
      let id: string;
      if (options.kind === 'notes') {
        const date = noteDate(meta, file);
        if (!date) throw new Error('a daily note needs a date: front matter "date: YYYY-MM-DD" or a file name holding one');
        id = date;
      } else {
        id = typeof meta['id'] === 'string' || typeof meta['id'] === 'number' ? String(meta['id']) : idFromPath(dir, file);
      }
      if (seen.has(id)) throw new Error(`id "${id}" is used by another file in this import`);
      seen.add(id);
      const existed = records.document(ns, layer, id).some((e) => e.status === 'active');
      const result =
        options.kind === 'cards'
          ? await knowledge.upsertCard({ ns, id, markdown, source_path: file })
          : options.kind === 'wiki'
            ? await knowledge.upsertWiki({ ns, id, markdown, source_path: file })
            : await knowledge.upsertNote({ ns, date: id, markdown, source_path: file });
      if (!result.changed) summary.unchanged += 1;
      else (existed ? summary.changed : summary.added).push(id);
    } catch (err) {
      summary.errors.push({ file: rel, message: err instanceof Error ? err.message : String(err) });
    }
  }
  options.onProgress?.(files.length, files.length, '');
  // Documents imported from this directory earlier whose files are gone now.
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  const gone = new Set<string>();
  for (const e of records.all({ layers: [layer] })) {
    if (e.ns === ns && e.source_path?.startsWith(prefix) && !seen.has(e.id)) gone.add(e.id);
  }
  for (const id of [...gone].sort()) {
    if (!options.prune) {
      summary.missing_not_pruned.push(id);
      continue;
    }
    try {
      await knowledge.removeDocument(layer as 'card' | 'wiki' | 'note', { ns, id, reason: 'source file deleted (import --prune)' });
      summary.removed.push(id);
    } catch (err) {
      summary.errors.push({ file: id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return summary;
}
