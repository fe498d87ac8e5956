// kioku import cards|wiki|notes DIR [--ns NS] [--prune] [--no-embed]
// kioku reembed [--model KIND]
import { availableParallelism } from 'node:os';
import type { PathOverrides } from '../../src/config.js';
import { createEmbedder, embedderConfigFromEnv, EMBEDDER_KINDS, type EmbedderKind } from '../../src/embed/index.js';
import { KiokuError } from '../../src/errors.js';
import type { JobSummary } from '../../src/indexer/embedding-job.js';
import { embeddingIndexer } from '../../src/recall/index.js';
import { openKioku, type KiokuStore } from '../../src/kioku.js';
import { IMPORT_KINDS, Knowledge, importDirectory, readMarkdownFiles, documentIdOf, type ImportKind, type ImportSummary } from '../../src/knowledge/index.js';
import { isKiokuError } from '../../src/errors.js';
import type { Connection } from '../../src/connect.js';
import { resolveLibrary } from '../../src/library.js';
import { storeOrService } from './connection.js';
import { EXIT, emit, progressBar, type OutputOptions } from '../cli-util.js';

export interface ImportFlags extends OutputOptions, PathOverrides {
  ns?: string;
  prune?: boolean;
  embed?: boolean;
}

/** Bytes of markdown per request when importing through a running service (under its 2 MiB body limit). */
const BATCH_BYTES = 1_500_000;

export async function importCommand(kind: string, dir: string, flags: ImportFlags): Promise<number> {
  if (!(kind in IMPORT_KINDS)) throw new KiokuError('KIOKU_USAGE', `import what? "${kind}" is not one of: ${Object.keys(IMPORT_KINDS).join(', ')}`);
  // the library's service holds the store: send it the files (it embeds them in the background)
  return storeOrService(
    flags,
    () => importIntoStore(kind as ImportKind, dir, flags),
    (service) => importThroughService(service, kind as ImportKind, dir, flags),
  );
}

/** Import on the store itself (created when missing), then embed what is new unless --no-embed. */
async function importIntoStore(kind: ImportKind, dir: string, flags: ImportFlags): Promise<number> {
  const store = await openKioku(flags);
  try {
    const knowledge = new Knowledge(store, 'cli:import');
    const bar = progressBar(`import ${kind}`, flags);
    const summary = await importDirectory(knowledge, store.projections.views.records, {
      kind,
      dir,
      ...(flags.ns ? { ns: flags.ns } : {}),
      prune: flags.prune ?? false,
      onProgress: (done, total) => bar.update(done, total),
    });
    bar.stop();
    const job = flags.embed === false ? undefined : await embedAll(store, undefined, flags);
    emit(
      flags,
      () => {
        const lines = [
          `imported ${summary.files} ${kind} file(s) from ${summary.dir} into namespace ${summary.ns}:`,
          `  added ${summary.added.length}, changed ${summary.changed.length}, unchanged ${summary.unchanged}, removed ${summary.removed.length}, errors ${summary.errors.length}`,
        ];
        if (summary.missing_not_pruned.length)
          lines.push(
            `  ${summary.missing_not_pruned.length} document(s) whose files are gone were kept (use --prune to remove): ${summary.missing_not_pruned.slice(0, 10).join(', ')}`,
          );
        for (const e of summary.errors) lines.push(`  error: ${e.file}: ${e.message}`);
        if (job) lines.push(describeJob(job));
        return lines.join('\n');
      },
      { ok: summary.errors.length === 0, ...summary, embedding: job ?? null },
    );
    return summary.errors.length ? EXIT.problem : EXIT.ok;
  } finally {
    await store.close();
  }
}

export interface ReembedFlags extends OutputOptions, PathOverrides {
  model?: string;
}

export async function reembedCommand(flags: ReembedFlags): Promise<number> {
  if (flags.model && !(EMBEDDER_KINDS as readonly string[]).includes(flags.model)) {
    throw new KiokuError('KIOKU_USAGE', `--model must be one of: ${EMBEDDER_KINDS.join(', ')}`);
  }
  let store: KiokuStore;
  try {
    store = await openKioku({ ...flags, createIfMissing: false });
  } catch (err) {
    if (isKiokuError(err, 'KIOKU_STORE_LOCKED'))
      throw new KiokuError(
        'KIOKU_STORE_LOCKED',
        `a Kioku server holds this store and embeds every new item in the background with its configured model (see GET /v1/ingest/status at ${resolveLibrary(flags).url ?? 'its URL'}); to switch models, restart it with KIOKU_EMBEDDER=${flags.model ?? '<kind>'}, or stop it and run kioku reembed`,
        { cause: err },
      );
    throw err;
  }
  try {
    const job = await embedAll(store, flags.model as EmbedderKind | undefined, flags);
    emit(flags, () => describeJob(job), { ok: job.status !== 'failed', ...job });
    return job.status === 'failed' ? EXIT.problem : EXIT.ok;
  } finally {
    await store.close();
  }
}

async function embedAll(store: KiokuStore, kind: EmbedderKind | undefined, flags: OutputOptions): Promise<JobSummary> {
  // bulk work: one model copy per core (the bundled model is single-threaded; two cores embed ~2× faster)
  const embedder = createEmbedder({ workers: Math.min(4, availableParallelism()), ...embedderConfigFromEnv(), ...(kind ? { kind } : {}) });
  const indexer = embeddingIndexer(store, embedder, { actor: 'cli:embed' });
  const bar = progressBar(`embed ${embedder.id}`, flags);
  try {
    return await indexer.run(bar.update);
  } finally {
    bar.stop();
    await embedder.close();
  }
}

function describeJob(job: JobSummary): string {
  if (job.status === 'idle')
    return `embeddings (${job.model}): up to date${job.skipped_cjk ? `; ${job.skipped_cjk} mainly-CJK item(s) rely on keyword lanes` : ''}`;
  return `embeddings (${job.model}): ${job.status}, ${job.embedded}/${job.planned} embedded in ${job.seconds} s${job.skipped_cjk ? `; ${job.skipped_cjk} mainly-CJK item(s) rely on keyword lanes` : ''}${job.error ? ` — ${job.error}` : ''}`;
}

async function importThroughService(service: Connection, kind: ImportKind, dir: string, flags: ImportFlags): Promise<number> {
  const { root, files, errors } = readMarkdownFiles(dir);
  const batches: (typeof files)[] = [[]];
  let size = 0;
  for (const f of files) {
    if (size + f.markdown.length > BATCH_BYTES && (batches.at(-1)?.length ?? 0) > 0) {
      batches.push([]);
      size = 0;
    }
    batches.at(-1)?.push(f);
    size += f.markdown.length;
  }
  const total: ImportSummary = {
    kind,
    dir: root,
    ns: flags.ns ?? 'private',
    files: files.length + errors.length,
    added: [],
    changed: [],
    unchanged: 0,
    removed: [],
    missing_not_pruned: [],
    errors: [...errors],
  };
  const seen: string[] = [];
  const bar = progressBar(`import ${kind} (through the server)`, flags);
  let done = 0;
  for (const [i, batch] of batches.entries()) {
    const final = i === batches.length - 1;
    const r = await service.kioku.importDocuments({
      kind,
      root,
      files: batch,
      prune: flags.prune ?? false,
      seen_ids: final ? seen : [],
      final,
      ...(flags.ns ? { namespace: flags.ns } : {}),
    });
    total.added.push(...r.added);
    total.changed.push(...r.changed);
    total.unchanged += r.unchanged;
    total.removed.push(...r.removed);
    total.missing_not_pruned.push(...r.missing_not_pruned);
    total.errors.push(...r.errors);
    total.ns = r.ns;
    seen.push(...r.added, ...r.changed, ...unchangedIds(batch, r));
    done += batch.length;
    bar.update(done, files.length);
  }
  bar.stop();
  emit(
    flags,
    () =>
      [
        `imported ${total.files} ${kind} file(s) from ${root} into namespace ${total.ns} through ${service.via} (it embeds them in the background):`,
        `  added ${total.added.length}, changed ${total.changed.length}, unchanged ${total.unchanged}, removed ${total.removed.length}, errors ${total.errors.length}`,
        ...(total.missing_not_pruned.length ? [`  ${total.missing_not_pruned.length} document(s) whose files are gone were kept (use --prune to remove)`] : []),
        ...total.errors.map((e) => `  error: ${e.file}: ${e.message}`),
      ].join('\n'),
    { ok: total.errors.length === 0, ...total, via: service.url, embedding: 'in the background (see GET /v1/ingest/status)' },
  );
  return total.errors.length ? EXIT.problem : EXIT.ok;
}

/** The ids of a batch's files the server found unchanged (it reports only a count): derived the same way it derives them. */
function unchangedIds(batch: readonly { path: string; markdown: string }[], r: ImportSummary): string[] {
  const reported = new Set([...r.added, ...r.changed]);
  const failed = new Set(r.errors.map((e) => e.file));
  return batch.map((f) => documentIdOf(r.kind, r.dir, f)).filter((id): id is string => id !== undefined && !reported.has(id) && !failed.has(id));
}
