// npm run eval:secrets [-- --json]: precision and recall of the secret rules (src/privacy/rules.ts)
// on evals/privacy/corpus.json — fake secrets of every kind the rules name, and near-misses that
// must stay (hashes, UUIDs, commit ids, data URIs, prose, code, templates, placeholders).
// Scoring in ./score.ts. The last line is one JSON object.
import { readFileSync } from 'node:fs';
import { scoreCorpus, type CorpusCase } from './score.js';

function main(): void {
  const json = process.argv.includes('--json');
  const load = (file: string): CorpusCase[] => (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { cases: CorpusCase[] }).cases;
  // corpus.json tuned the rules; holdout.json was written after and never tuned on
  // holdout-pv.json was written (and frozen) before the rules for its shapes existed (PV)
  const report = { corpus: scoreCorpus(load('./corpus.json')), holdout: scoreCorpus(load('./holdout.json')), holdout_pv: scoreCorpus(load('./holdout-pv.json')) };
  if (!json) {
    for (const [name, r] of Object.entries(report)) {
      console.log(`${name}: cases ${r.cases}, secrets ${r.secrets}, findings ${r.findings}`);
      console.log(`  precision ${r.precision}  recall ${r.recall}  (${r.ms_per_case} ms per case)`);
      for (const fp of r.false_positives) console.log(`  false positive  case ${fp.case} ${fp.kind}: ${fp.found}`);
      for (const fn of r.false_negatives) console.log(`  false negative  case ${fn.case}: ${fn.secret}${fn.note ? ` (${fn.note})` : ''}`);
    }
  }
  console.log(JSON.stringify(report));
}

main();
