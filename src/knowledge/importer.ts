// `kioku import cards|wiki|notes DIR`: markdown files (optional front matter) into
// knowledge writes. Idempotent: an unchanged file appends nothing, a changed file one
// upsert, a deleted file a removal only with --prune.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { namespaceSchema } from '../events/index.js';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { KnowledgeRecords } from './read-model.js';
import { KiokuError } from '../errors.js';
import type { Knowledge } from './commands.js';
import type { Layer } from './evidence.js';
import { parseFrontMatter } from './markdown.js';
import { textFault } from '../text/well-formed.js';

export const IMPORT_KINDS = { cards: 'card', wiki: 'wiki', notes: 'note' } as const;
export type ImportKind = keyof typeof IMPORT_KINDS;

/** Markdown documents a client read (POST /v1/import, kioku import): in batches, `final` on the last. */
export const importRequestSchema = z.strictObject({
  kind: z.enum(['cards', 'wiki', 'notes']),
  root: z.string().min(1).max(4_096).refine(isAbsolute, 'root must be an absolute path'),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(4_096).refine(isAbsolute, 'path must be absolute'), markdown: z.string().max(2_000_000) }))
    .max(10_000),
  prune: z.boolean().default(false),
  seen_ids: z.array(z.string().max(4_096)).max(1_000_000).default([]),
  /** false for every batch but the last */
  final: z.boolean().default(true),
  namespace: namespaceSchema.optional(),
});

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

/** The document id a file gets in an import (front matter id, note date, or its path under the root); undefined when it has none. */
export function documentIdOf(kind: ImportKind, root: string, file: { path: string; markdown: string }): string | undefined {
  const meta = parseFrontMatter(file.markdown).meta;
  if (kind === 'notes') return noteDate(meta, file.path);
  return typeof meta['id'] === 'string' || typeof meta['id'] === 'number' ? String(meta['id']) : idFromPath(resolve(root), file.path);
}

/** One markdown file to import: its absolute path (source and prune identity) and its text. */
export interface ImportFile {
  path: string;
  markdown: string;
}

/** Every markdown file under `dir` (sorted, dot-files skipped), read. Unreadable dir: KIOKU_INPUT_INVALID. */
export function readMarkdownFiles(dir: string): { root: string; files: ImportFile[]; errors: { file: string; message: string }[] } {
  const root = resolve(dir);
  try {
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (cause) {
    throw new KiokuError('KIOKU_INPUT_INVALID', `import: ${root} is not a readable directory`, { cause, details: { field: 'dir' } });
  }
  const files: ImportFile[] = [];
  const errors: { file: string; message: string }[] = [];
  for (const path of listMarkdown(root)) {
    try {
      const markdown = readFileSync(path, 'utf8');
      // a file the service would refuse (the one text rule) is this file's error, not the whole batch's
      const fault = textFault(markdown);
      if (fault !== undefined) throw new Error(`not imported: a text ${fault}`);
      files.push({ path, markdown });
    } catch (err) {
      errors.push({ file: relative(root, path), message: err instanceof Error ? err.message : String(err) });
    }
  }
  return { root, files, errors };
}

export async function importDirectory(knowledge: Knowledge, records: KnowledgeRecords, options: ImportOptions): Promise<ImportSummary> {
  const { root, files, errors } = readMarkdownFiles(options.dir);
  const summary = await importDocuments(knowledge, records, { ...options, root, files });
  summary.errors.unshift(...errors);
  summary.files += errors.length;
  return summary;
}

export interface ImportDocumentsOptions {
  kind: ImportKind;
  /** the import root: documents imported from under it earlier and absent now are "gone" */
  root: string;
  files: readonly ImportFile[];
  ns?: string;
  prune?: boolean;
  /** ids seen in earlier batches of the same import (the gone-check runs over all of them) */
  seenIds?: readonly string[];
  /** false for every batch but the last: only the last one looks for documents whose files are gone */
  final?: boolean;
  onProgress?: (done: number, total: number, file: string) => void;
}

/** Import files already read (from this machine's disk, or sent to the service by `kioku import`). */
export async function importDocuments(knowledge: Knowledge, records: KnowledgeRecords, options: ImportDocumentsOptions): Promise<ImportSummary> {
  const dir = resolve(options.root);
  const ns = options.ns ?? 'private';
  const layer: Layer = IMPORT_KINDS[options.kind];
  const files = options.files;
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
  const earlier = new Set<string>(options.seenIds ?? []);
  const seen = new Set<string>(earlier);
  const inThisBatch = new Set<string>();
  for (const [i, { path: file, markdown }] of files.entries()) {
    options.onProgress?.(i, files.length, file);
    const rel = relative(dir, file);
    try {
      if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${file} is not under the import root ${dir}`);
      const id = documentIdOf(options.kind, dir, { path: file, markdown });
      if (id === undefined) throw new Error('a daily note needs a date: front matter "date: YYYY-MM-DD" or a file name holding one');
      if (inThisBatch.has(id) || earlier.has(id)) throw new Error(`id "${id}" is used by another file in this import`);
      inThisBatch.add(id);
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
  if (options.final === false) return summary;
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
