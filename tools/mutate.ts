// npm run mutate [-- --json] [--report-only]
// Mutation testing of the rule modules (stryker.config.json): runs StrykerJS with its vitest
// runner, then reads its JSON report and prints the score per file, every surviving mutant,
// and which survivors are accepted as equivalent (tools/mutate/equivalent.json, each with the
// reason). Exit 0 when the score is at least 85 % and every survivor is explained, 1 otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, 'report-only': { type: 'boolean', default: false } } });
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
const score = Math.round((killed / Math.max(1, killed + survived)) * 10000) / 100;
const unexplained = files.flatMap((f) => f.survivors.filter((s) => s.equivalent === null).map((s) => ({ file: f.file, ...s })));
const lines = [
  `${'file'.padEnd(28)} ${'mutants'.padStart(7)} ${'killed'.padStart(7)} ${'survived'.padStart(8)} ${'score'.padStart(7)}`,
  ...files.map(
    (f) =>
      `${f.file.padEnd(28)} ${String(f.mutants).padStart(7)} ${String(f.killed).padStart(7)} ${String(f.survived).padStart(8)} ${`${f.score}%`.padStart(7)}`,
  ),
  `mutation score ${score}% (goal ≥ ${GOAL}%): ${killed} killed, ${survived} survived, ${survived - unexplained.length} of them equivalent (tools/mutate/equivalent.json), ${unexplained.length} unexplained`,
  ...unexplained.map((u) => `  survivor ${u.file}:${u.line} ${u.mutator} → ${u.replacement}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
const ok = score >= GOAL && unexplained.length === 0;
if (values.json)
  process.stdout.write(
    `${JSON.stringify({ mutate: true, ok, score, goal: GOAL, killed, survived, equivalent: survived - unexplained.length, unexplained, files })}\n`,
  );
process.exitCode = ok ? 0 : 1;
