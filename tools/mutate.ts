// npm run mutate [-- --json] [--report-only] [--merge OLDER_REPORT]
// Mutation testing of the rule modules (stryker.config.json): runs StrykerJS with its vitest
// runner, then reads its JSON report and prints the score per file, every surviving mutant,
// and which survivors are equivalent (tools/mutate/equivalent.json, each with the reason).
// Exit 0 when the score without equivalent mutants is at least 85 %, 1 otherwise; the survivors
// not yet killed are listed either way.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    'report-only': { type: 'boolean', default: false },
    // a report of a run over every module: files the latest (partial) run did not mutate are taken from it
    merge: { type: 'string' },
  },
});
const ROOT = resolve(import.meta.dirname, '..');
const REPORT = join(ROOT, 'reports/mutation/mutation.json');
const GOAL = 85;

if (!values['report-only']) {
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (run.status !== 0) {
    process.stderr.write(`mutate: stryker exited ${run.status}\n`);
    process.exit(2);
  }
}
if (!existsSync(REPORT)) {
  process.stderr.write(`mutate: no report at ${REPORT} (run without --report-only first)\n`);
  process.exit(2);
}

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}
interface Equivalent {
  file: string;
  line: number;
  mutator: string;
  replacement: string;
  reason: string;
}
const report = JSON.parse(readFileSync(REPORT, 'utf8')) as { files: Record<string, { mutants: Mutant[] }> };
if (values.merge) {
  const older = JSON.parse(readFileSync(values.merge, 'utf8')) as { files: Record<string, { mutants: Mutant[] }> };
  report.files = { ...older.files, ...report.files };
}
const equivalent = JSON.parse(readFileSync(join(ROOT, 'tools/mutate/equivalent.json'), 'utf8')) as Equivalent[];
const explained = (file: string, m: Mutant): Equivalent | undefined =>
  equivalent.find((e) => e.file === file && e.line === m.location.start.line && e.mutator === m.mutatorName && e.replacement === (m.replacement ?? ''));

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const files = Object.entries(report.files).map(([file, { mutants }]) => {
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const undetected = mutants.filter((m) => UNDETECTED.has(m.status));
  const valid = detected + undetected.length;
  return {
    file,
    mutants: mutants.length,
    killed: detected,
    survived: undetected.length,
    score: valid ? Math.round((detected / valid) * 10000) / 100 : 100,
    survivors: undetected.map((m) => {
      const e = explained(file, m);
      return {
        line: m.location.start.line,
        mutator: m.mutatorName,
        replacement: (m.replacement ?? '').slice(0, 120),
        status: m.status,
        equivalent: e?.reason ?? null,
      };
    }),
  };
});
const killed = files.reduce((n, f) => n + f.killed, 0);
const survived = files.reduce((n, f) => n + f.survived, 0);
const unexplained = files.flatMap((f) => f.survivors.filter((s) => s.equivalent === null).map((s) => ({ file: f.file, ...s })));
const equivalents = survived - unexplained.length;
// Stryker's own score counts every survivor; the goal is measured without the mutants shown to be equivalent
const rawScore = Math.round((killed / Math.max(1, killed + survived)) * 10000) / 100;
const score = Math.round((killed / Math.max(1, killed + survived - equivalents)) * 10000) / 100;
const lines = [
  `${'file'.padEnd(28)} ${'mutants'.padStart(7)} ${'killed'.padStart(7)} ${'survived'.padStart(8)} ${'score'.padStart(7)}`,
  ...files.map(
    (f) =>
      `${f.file.padEnd(28)} ${String(f.mutants).padStart(7)} ${String(f.killed).padStart(7)} ${String(f.survived).padStart(8)} ${`${f.score}%`.padStart(7)}`,
  ),
  `mutation score ${score}% without the ${equivalents} equivalent mutants (goal ≥ ${GOAL}%; Stryker's raw score ${rawScore}%): ${killed} killed, ${survived} survived, ${equivalents} of them equivalent (tools/mutate/equivalent.json, each with its reason), ${unexplained.length} not killed yet`,
  ...unexplained.map((u) => `  survivor ${u.file}:${u.line} ${u.mutator} → ${u.replacement}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
// an equivalence entry that matches no surviving mutant is stale: say so, so the list cannot rot silently
const stale = equivalent.filter(
  (e) => !files.some((f) => f.file === e.file && f.survivors.some((x) => x.line === e.line && x.mutator === e.mutator && x.equivalent !== null)),
);
if (stale.length)
  process.stdout.write(`${stale.length} equivalence entries match no survivor (stale): ${stale.map((e) => `${e.file}:${e.line} ${e.mutator}`).join(', ')}\n`);
// the goal: at least 85 % of the mutants that can be killed are killed; the rest are listed above
const ok = score >= GOAL;
if (values.json)
  process.stdout.write(
    `${JSON.stringify({ mutate: true, ok, score, raw_score: rawScore, goal: GOAL, killed, survived, equivalent: equivalents, not_killed: unexplained.length, stale_equivalences: stale.length, unexplained, files })}\n`,
  );
process.exitCode = ok ? 0 : 1;
