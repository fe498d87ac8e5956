// npm run eval:contribution [-- --json]
// Channel contribution on the offline cases (issue 35): the synthetic library (evals/library)
// loaded in process with the bundled embedder and the shipped local judge, every case with
// expected ids asked read-only at its pinned clock with all lanes, then once per lane with that
// lane's weight at 0 (evals/contribution.ts). "Found" is the share of a case's expected ids
// (each expected_any group counting once) among the top 10 records, as `kioku eval` counts them.
// The same measure runs on LoCoMo and CMRC (`--contribution` on their evals).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../../src/embed/index.js';
import { loadCases, loadLibrary } from '../../src/eval/index.js';
import { openKioku } from '../../src/kioku.js';
import { createRecallCore, LocalJudge, measurementConfig, type RecallPacket } from '../../src/recall/index.js';
import { contributionLines, measureContribution, type ContributionQuestion } from '../contribution.js';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
const root = resolve(import.meta.dirname, '../..');
const files = ['recall.json', 'conversation.json'].map((f) => join(root, 'evals/cases', f));
const cases = loadCases(files).filter((c) => c.expected_ids.length + c.expected_any_ids.length > 0);

const dir = mkdtempSync(join(tmpdir(), 'kioku-contribution-'));
try {
  await loadLibrary(dir, join(root, 'evals/library'), undefined);
  const store = await openKioku({ data: dir });
  const core = createRecallCore(store, { embedder: createEmbedder(), judge: new LocalJudge(), backgroundIndexing: false });
  // the figure must not depend on machine load: no latency deadlines
  core.config = measurementConfig();
  try {
    const questions: ContributionQuestion[] = cases.map((c) => {
      // the unit `kioku eval` scores by (src/eval/cases.ts)
      const unitOf = (r: RecallPacket['records'][number]): string => (c.label_unit === 'evidence' ? r.evidence_key : r.id);
      const total = c.expected_ids.length + c.expected_any_ids.length;
      return {
        request: { query: c.query, namespace: c.namespace ?? 'private', ...(c.conversation ? { conversation: c.conversation } : {}) },
        category: c.expected_delivery,
        ...(c.now ? { now: new Date(c.now) } : {}),
        found: (top) => {
          const ids = new Set(top.map(unitOf));
          const hits = c.expected_ids.filter((id) => ids.has(id)).length + c.expected_any_ids.filter((g) => g.some((id) => ids.has(id))).length;
          return hits / total;
        },
      };
    });
    const report = await measureContribution(core, core.config, questions);
    process.stdout.write(`offline cases with expected ids: ${cases.length}\n${contributionLines(report).join('\n')}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify({ eval: 'contribution', corpus: 'offline-cases', cases: cases.length, ...report })}\n`);
  } finally {
    await core.close();
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
