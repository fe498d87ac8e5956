// kioku eval [--cases F,F] [--transport http|inproc] [--url URL] [--output report.json] [--baseline F] [--json]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EMBEDDER_KINDS, type EmbedderKind } from '../../src/embed/index.js';
import { KiokuError } from '../../src/errors.js';
import { runEval, type EvalReport } from '../../src/eval/index.js';
import { packageRoot } from '../../src/package-root.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface EvalFlags extends OutputOptions {
  cases?: string;
  /** run only these case ids */
  only?: string;
  library?: string;
  transport?: string;
  url?: string;
  embedder?: string;
  judge?: string;
  output?: string;
  baseline?: string;
  live?: boolean;
}

export async function evalCommand(flags: EvalFlags): Promise<number> {
  const root = packageRoot();
  const transport = flags.transport ?? 'http';
  if (transport !== 'http' && transport !== 'inproc') throw new KiokuError('KIOKU_USAGE', '--transport must be http or inproc');
  if (flags.embedder && !(EMBEDDER_KINDS as readonly string[]).includes(flags.embedder))
    throw new KiokuError('KIOKU_USAGE', `--embedder must be one of ${EMBEDDER_KINDS.join(', ')}`);
  if (flags.judge !== undefined && !['local', 'llm', 'disabled'].includes(flags.judge))
    throw new KiokuError('KIOKU_USAGE', `--judge must be local, llm or disabled, got "${flags.judge}"`);
  if (flags.live && !flags.url) throw new KiokuError('KIOKU_USAGE', '--live needs --url of the running service to evaluate');
  // the LLM judge's own endpoint settings go to the evaluated server; Kioku's tokens never do
  const judgeEnv =
    flags.judge === 'llm'
      ? Object.fromEntries(
          ['KIOKU_JUDGE_URL', 'KIOKU_JUDGE_MODEL', 'KIOKU_JUDGE_API_KEY'].flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : [])),
        )
      : {};
  const caseFiles = (flags.cases ?? [join(root, 'evals/cases/recall.json'), join(root, 'evals/cases/conversation.json')].join(','))
    .split(',')
    .map((f) => resolve(f));
  const only = flags.only
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  // an installed package ships no eval data (package.json files): the offline cases live in a checkout
  const missing = [...caseFiles, resolve(flags.library ?? join(root, 'evals/library'))].filter((f) => !existsSync(f));
  if (missing.length)
    throw new KiokuError('KIOKU_USAGE', `no ${missing.join(', ')}: the offline cases and library ship with a checkout of Kioku, not with the installed package; pass --cases and --library`);
  const report = await runEval({
    caseFiles,
    ...(only ? { only } : {}),
    libraryDir: resolve(flags.library ?? join(root, 'evals/library')),
    transport,
    ...(flags.url ? { url: flags.url } : {}),
    ...(flags.url && process.env['KIOKU_TOKEN'] ? { token: process.env['KIOKU_TOKEN'] } : {}),
    ...(flags.embedder ? { embedder: flags.embedder as EmbedderKind } : {}),
    ...(flags.judge ? { judge: flags.judge, judgeEnv } : {}),
    serveCommand: [process.execPath, ...process.execArgv, process.argv[1] as string],
    onCase: (r) => {
      if (!flags.json)
        process.stdout.write(
          `${r.pass ? 'PASS' : 'FAIL'} ${r.id.padEnd(28)} ${r.retrieval_mode.padEnd(8)} ${r.latency_ms} ms${r.pass ? '' : `  — ${r.failures.join('; ')}`}\n`,
        );
    },
  });
  if (flags.output) writeFileSync(resolve(flags.output), `${JSON.stringify(report, null, 2)}\n`);
  const baselineFile = resolve(flags.baseline ?? join(root, 'evals/reports/baseline.json'));
  const baseline = existsSync(baselineFile) ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as EvalReport) : undefined;
  const s = report.summary;
  // compared on the cases both runs have: a subset (--only) or other case files are not a regression
  const before = new Map(baseline?.results.map((b) => [b.id, b.pass]) ?? []);
  const shared = report.results.filter((r) => before.has(r.id));
  const comparison =
    baseline && shared.length
      ? {
          cases_compared: shared.length,
          baseline_passed: shared.filter((r) => before.get(r.id)).length,
          passed: shared.filter((r) => r.pass).length,
          passed_delta: shared.filter((r) => r.pass).length - shared.filter((r) => before.get(r.id)).length,
          newly_failing: shared.filter((r) => !r.pass && before.get(r.id)).map((r) => r.id),
          newly_passing: shared.filter((r) => r.pass && before.get(r.id) === false).map((r) => r.id),
        }
      : null;
  emit(
    flags,
    () =>
      [
        `${s.passed}/${s.cases} cases passed (${report.transport}, ${report.embedder}, judge ${report.judge}): ${s.judged_cases.passed}/${s.judged_cases.cases} judged cases, ${s.acknowledgement_cases.passed}/${s.acknowledgement_cases.cases} acknowledgement cases (skipped before any judge)`,
        `expected-evidence recall ${s.expected_evidence_recall}, allowed-evidence precision ${s.allowed_evidence_precision ?? '—'}, no-answer success ${s.no_answer_success ?? '—'}, quiet-turn success ${s.quiet_turn_success ?? '—'}, duplicates ${s.duplicates}`,
        `latency p50 ${s.latency_ms.p50} ms, p95 ${s.latency_ms.p95} ms; modes ${JSON.stringify(s.retrieval_modes)}; judge ${JSON.stringify(s.judge_status)}; transport failures ${s.transport_failures}`,
        ...(comparison
          ? [
              `baseline ${comparison.baseline_passed} passed → ${comparison.passed} (${comparison.passed_delta >= 0 ? '+' : ''}${comparison.passed_delta}) on the ${comparison.cases_compared} case(s) both ran; newly failing: ${comparison.newly_failing.join(', ') || 'none'}; newly passing: ${comparison.newly_passing.join(', ') || 'none'}`,
            ]
          : baseline
            ? ['baseline: no case in common with this run']
            : []),
        `${s.passed} passed, ${s.failed} failed`,
      ].join('\n'),
    { ...report, comparison },
  );
  return s.failed === 0 ? EXIT.ok : EXIT.problem;
}
