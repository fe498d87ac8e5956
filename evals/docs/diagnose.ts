// node --import tsx evals/docs/diagnose.ts --library-cache DIR [--corpus vitest|vue-zh] [--split dev|heldout|all] [--json] [--quiet]
// The real-documentation questions in process, for looking at misses (issue 30): a copy of
// the cached library of each corpus (evals/cases/judge-doc-rows.ts --library-cache DIR builds
// it), the real core with the shipped judge, each question once, read-only. Prints per question
// the top 10 (file, verdict, held reason, whether the excerpt and the section hold the answer)
// and what was delivered; the summary is what eval:docs measures (without HTTP, without state).
// A tuning aid: the front-door figures are eval:docs's.
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, embedderConfigFromEnv } from '../../src/embed/index.js';
import { documentIdOf, readMarkdownFiles } from '../../src/knowledge/importer.js';
import { parseEvidenceKey } from '../../src/knowledge/index.js';
import { LocalJudge, createRecallCore, measurementConfig, recall } from '../../src/recall/index.js';
import { openCorpus } from '../cases/judge-doc-rows.js';
import { containsAnswer } from './baseline.js';
import { CORPORA, corpusDocs, loadLabels, type Corpus } from './labels.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    corpus: { type: 'string', default: 'all' },
    split: { type: 'string', default: 'dev' },
    'library-cache': { type: 'string' },
    /** JSON merged over the recall configuration ({"sections_per_document": 3}; "delivery" merged too) */
    config: { type: 'string' },
  },
});
const override = JSON.parse(values.config ?? '{}') as Record<string, unknown>;
const corpora = values.corpus === 'all' ? [...CORPORA] : [values.corpus as Corpus];
const out: Record<string, unknown> = {};
const say = (s: string): void => void (values.quiet || process.stdout.write(`${s}\n`));
for (const corpus of corpora) {
  // a cached library is copied (each run starts from it); a missing one is built there and kept
  const cached = values['library-cache'] ? join(values['library-cache'], corpus) : undefined;
  const keep = cached !== undefined && !existsSync(cached);
  const dir = keep ? cached : mkdtempSync(join(tmpdir(), `kioku-diagnose-${corpus}-`));
  if (cached && !keep) cpSync(cached, dir, { recursive: true });
  const { root, files } = readMarkdownFiles(corpusDocs(corpus));
  const fileOfId = new Map<string, string>();
  for (const f of files) {
    const id = documentIdOf('wiki', root, f);
    if (id !== undefined) fileOfId.set(id, relative(root, f.path));
  }
  const store = await openCorpus(corpus, dir, true);
  const core = createRecallCore(store, { embedder: createEmbedder(embedderConfigFromEnv()), judge: new LocalJudge() });
  const base = measurementConfig();
  core.config = { ...base, ...override, delivery: { ...base.delivery, ...((override['delivery'] as object | undefined) ?? {}) } } as typeof base;
  const records = store.projections.views.records;
  const rows: { id: string; answerable: boolean; gold10: boolean; ans: boolean; top10: boolean; items: number }[] = [];
  try {
    for (const q of loadLabels(corpus).questions.filter((x) => values.split === 'all' || x.split === values.split)) {
      const p = await recall(core, { query: q.question, namespace: 'private', limit: 10 }, { readOnly: true, namespaces: ['private'] });
      const fileOf = (key: string): string => {
        const e = records.get(key);
        if (e?.source_path) return relative(realpathSync(root), realpathSync(e.source_path));
        const ref = parseEvidenceKey(key);
        return (ref && fileOfId.get(ref.id)) ?? '?';
      };
      const ans = q.answerable && p.delivery.some((d) => containsAnswer(d.text, q.answer));
      const gold10 = q.answerable && p.records.some((r) => fileOf(r.evidence_key) === q.gold_file);
      const top10 = q.answerable && p.records.some((r) => containsAnswer(r.excerpt, q.answer));
      rows.push({ id: q.id, answerable: q.answerable, gold10, ans, top10, items: p.delivery.length });
      say(`\n${q.id} ${q.answerable ? (ans ? 'OK  ' : 'MISS') : p.delivery.length ? 'LOUD' : 'QUIET'} ${q.question}`);
      if (q.answerable) say(`   gold ${q.gold_file} › ${q.gold_heading}  answer ${JSON.stringify(q.answer)}`);
      // what was handed over, in order (delivery draws from every judged candidate, not only the top 10)
      const rankOf = new Map(p.records.map((r, i) => [r.evidence_key, i + 1]));
      say(
        `   delivered: ${p.delivery.map((d) => `${rankOf.get(d.evidence_key) ?? '>10'}:${d.verdict}${q.answerable && containsAnswer(d.text, q.answer) ? '*' : ''}`).join(' ') || '-'}`,
      );
      p.records.forEach((r, i) => {
        const full = records.get(r.evidence_key)?.text ?? '';
        const mark = !q.answerable ? '' : containsAnswer(r.excerpt, q.answer) ? 'A' : containsAnswer(full, q.answer) ? 'a' : fileOf(r.evidence_key) === q.gold_file ? 'g' : '';
        say(
          `   ${String(i + 1).padStart(2)} ${mark.padEnd(1)} ${r.why.delivered ? 'D' : ' '} v=${r.why.verdict ?? '-'} ${r.why.held_back ?? ''} ${fileOf(r.evidence_key)} › ${r.heading ?? r.title} (${full.length}c${r.why.passage ? ` ${r.why.passage}` : ''})`,
        );
      });
    }
  } finally {
    await core.close();
    await store.close();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const ansRows = rows.filter((r) => r.answerable);
  const un = rows.filter((r) => !r.answerable);
  const share = (xs: boolean[]): number => Math.round((xs.filter(Boolean).length / Math.max(1, xs.length)) * 1000) / 1000;
  const summary = {
    answerable: ansRows.length,
    answer_delivered: share(ansRows.map((r) => r.ans)),
    answer_in_top10: share(ansRows.map((r) => r.top10)),
    gold_at_10: share(ansRows.map((r) => r.gold10)),
    items: Math.round((ansRows.reduce((a, r) => a + r.items, 0) / Math.max(1, ansRows.length)) * 100) / 100,
    quiet: share(un.map((r) => r.items === 0)),
    missed: ansRows.filter((r) => !r.ans).map((r) => r.id),
    loud: un.filter((r) => r.items > 0).map((r) => r.id),
  };
  out[corpus] = summary;
  process.stdout.write(`## ${corpus} ${values.split}: ${JSON.stringify(summary)}\n`);
}
if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
