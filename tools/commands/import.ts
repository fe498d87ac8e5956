// kioku import cards|wiki|notes DIR [--ns NS] [--prune] [--no-embed]
// kioku reembed [--model KIND]
import type { PathOverrides } from '../../src/config.js';
import { createEmbedder, embedderConfigFromEnv, EMBEDDER_KINDS, type EmbedderKind } from '../../src/embed/index.js';
import { KiokuError } from '../../src/errors.js';
import { EmbeddingIndexer, type JobSummary } from '../../src/indexer/embedding-job.js';
import { openKioku, type KiokuStore } from '../../src/kioku.js';
import { IMPORT_KINDS, Knowledge, importDirectory, type ImportKind } from '../../src/knowledge/index.js';
import type { RecordsProjection } from '../../projections/index.js';
import { EXIT, emit, progressBar, type OutputOptions } from '../cli-util.js';

export interface ImportFlags extends OutputOptions, PathOverrides {
  ns?: string;
  prune?: boolean;
  embed?: boolean;
}

export async function importCommand(kind: string, dir: string, flags: ImportFlags): Promise<number> {
  if (!(kind in IMPORT_KINDS)) throw new KiokuError('KIOKU_USAGE', `import what? "${kind}" is not one of: ${Object.keys(IMPORT_KINDS).join(', ')}`);
  const store = await openKioku(flags);
  try {
    const knowledge = new Knowledge(store, 'cli:import');
    const bar = progressBar(`import ${kind}`, flags);
    const summary = await importDirectory(knowledge, store.projections.get<RecordsProjection>('records'), {
      kind: kind as ImportKind,
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
  const store = await openKioku({ ...flags, createIfMissing: false });
  try {
    const job = await embedAll(store, flags.model as EmbedderKind | undefined, flags);
    emit(flags, () => describeJob(job), { ok: job.status !== 'failed', ...job });
    return job.status === 'failed' ? EXIT.problem : EXIT.ok;
  } finally {
    await store.close();
  }
}

async function embedAll(store: KiokuStore, kind: EmbedderKind | undefined, flags: OutputOptions): Promise<JobSummary> {
  const embedder = createEmbedder({ ...embedderConfigFromEnv(), ...(kind ? { kind } : {}) });
  const indexer = new EmbeddingIndexer(store, embedder, { actor: 'cli:embed' });
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
