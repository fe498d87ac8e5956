// Fuzzing the CLI commands that take input: random arguments to `kioku recall`, `replay`,
// `log show`, `report cold|delivery`, `import` (markdown and jsonl), `rebuild`, `list` and `export` over a real store. Properties:
// the exit code is 0, 1 or 2 (architecture.md §cli), never a stack trace on stderr, and the log never
// moves for a command that failed.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import fc from 'fast-check';

const ROOT = resolve(import.meta.dirname, '../..');

export interface CliFuzzOutcome {
  runs: number;
  by_exit: Record<string, number>;
  violations: { rule: string; args: string[]; code: number | null; stderr: string }[];
}

/** `entry`: how to start the CLI (node arguments before the command); the sources through tsx unless given (the tests pass bin/kioku.js). */
export async function fuzzCli(
  dataDir: string,
  options: { runs: number; seed: number; headOf: () => Promise<number>; entry?: readonly string[] },
): Promise<CliFuzzOutcome> {
  const entry = options.entry ?? ['--import', 'tsx', join(ROOT, 'tools/kioku.ts')];
  const outcome: CliFuzzOutcome = { runs: 0, by_exit: {}, violations: [] };
  const word = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('--json', '-1', '0', '99999999999', 'NaN', '2026-13-45', '--from', '--to', '../..', '', '好'),
  );
  const args = fc.oneof(
    fc.tuple(fc.constant('recall'), word).map(([c, q]) => [c, q]),
    fc.tuple(fc.constant('replay'), fc.constantFrom('--from', '--to', '--max-items', '--floor'), word).map(([c, f, v]) => [c, f, v]),
    fc.tuple(fc.constant('log'), fc.constant('show'), word).map(([a, b, v]) => [a, b, v]),
    fc
      .tuple(fc.constant('report'), fc.constantFrom('cold', 'delivery'), fc.constantFrom('--days', '--min-considered', '--ns'), word)
      .map(([a, b, f, v]) => [a, b, f, v]),
    fc.tuple(fc.constant('import'), fc.constantFrom('wiki', 'cards', 'notes', 'nonsense'), word).map(([a, k, d]) => [a, k, d || '/nonexistent']),
    fc.tuple(fc.constant('rebuild'), fc.constantFrom('--projection'), word).map(([a, f, v]) => [a, f, v]),
    fc
      .tuple(fc.constant('list'), fc.constantFrom('--limit', '--cursor', '--since', '--tag', '--layer', '--text'), word)
      .map(([a, f, v]) => [a, f, v]),
    // written into the data dir only (a random --out would litter the working directory)
    fc.tuple(fc.constant('export'), fc.constantFrom('--format', '--ns'), word).map(([a, f, v]) => [a, f, v, '--out', join(dataDir, 'fuzz-export.out')]),
    fc.tuple(fc.constant('export'), word).map(([a, v]) => [a, '--out', join('/nonexistent', v || 'x')]),
    fc.tuple(fc.constant('import'), fc.constant('jsonl'), word).map(([a, k, f]) => [a, k, f || '/nonexistent.jsonl']),
  );
  await fc.assert(
    fc.asyncProperty(args, async (a) => {
      const before = await options.headOf();
      const r = spawnSync(process.execPath, [...entry, ...a, '--data', dataDir], {
        cwd: ROOT,
        env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_EMBEDDER: 'hash' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      outcome.runs += 1;
      outcome.by_exit[String(r.status)] = (outcome.by_exit[String(r.status)] ?? 0) + 1;
      const violation = (rule: string): void => {
        outcome.violations.push({ rule, args: a, code: r.status, stderr: (r.stderr ?? '').slice(0, 500) });
      };
      if (r.status === null || ![0, 1, 2].includes(r.status)) violation('exit 0, 1 or 2');
      if (/\n\s+at .+:\d+:\d+\)?\n/.test(r.stderr ?? '')) violation('no stack trace');
      if (r.status !== 0 && (await options.headOf()) !== before) violation('the log moves only on success');
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  return outcome;
}
