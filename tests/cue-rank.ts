// A small documentation library and where one section ranks in it for a question under other cue
// weights, with the boost its cue lane gave it (the heading cue and the link cue tests, issue 30).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HashedEmbedder } from '../src/embed/index.js';
import { importDirectory, Knowledge } from '../src/knowledge/index.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_RECALL_CONFIG, createRecallCore, LocalJudge, recall, type RecallConfig, type RecallCore } from '../src/recall/index.js';

/** `files` (path under docs/ → markdown) imported as a wiki into `dir`, with a recall core over it. */
export async function docsLibrary(dir: string, files: Record<string, string>): Promise<{ core: RecallCore; close: () => Promise<void> }> {
  const docs = join(dir, 'docs');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(docs, path)), { recursive: true });
    writeFileSync(join(docs, path), text);
  }
  const store = await openKioku({ data: join(dir, 'data'), embedder: new HashedEmbedder(32), judge: new LocalJudge() });
  await importDirectory(new Knowledge(store, 'test'), store.projections.views.records, { kind: 'wiki', dir: docs });
  return { core: createRecallCore(store, { judge: new LocalJudge() }), close: () => store.close() };
}

export async function cueRank(
  core: RecallCore,
  question: string,
  key: string,
  cues: Partial<RecallConfig['cue_weights']>,
  lane: string,
): Promise<{ rank: number; cue: number | undefined }> {
  core.config = { ...DEFAULT_RECALL_CONFIG, cue_weights: { ...DEFAULT_RECALL_CONFIG.cue_weights, ...cues } };
  const p = await recall(core, { query: question, namespace: 'private', limit: 10 }, { readOnly: true, namespaces: ['private'] });
  const i = p.records.findIndex((r) => r.evidence_key === key);
  return { rank: i, cue: p.records[i]?.why.lanes[lane] };
}
