// The test files mutation testing runs (npm run mutate): the in-process suites that exercise
// the rule modules. Suites that only reach the rules through child processes (CLI, crash,
// benchmark scripts) cannot see Stryker's active mutant, so they would only cost time (the eval
// harness's CLI cases are in tests/eval-cli.test.ts for that reason: under load they timed out in
// Stryker's initial run, which then stops).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// Fast, pure rule tests first, the slowest last (usage accounting asks 2,000 questions): Stryker
// stops a mutant's run at its first failing test, so most mutants die in a second. Vitest's own
// order runs the files that took longest first, which made every recall mutant wait ~1 minute.
const INCLUDE = [
  'tests/delivery-rules.test.ts',
  'tests/fusion-rules.test.ts',
  'tests/rule-edges.test.ts',
  'tests/caller-settled.test.ts',
  'tests/api-caller.test.ts',
  'tests/eval-harness.test.ts',
  'tests/keyword-search.test.ts',
  'tests/local-judge.test.ts',
  'tests/knowledge-writes.test.ts',
  'tests/recall-plan.test.ts',
  'tests/recall-channels.test.ts',
  'tests/recall-rank.test.ts',
  'tests/recall-judge-deliver.test.ts',
  'tests/recall-usage.test.ts',
  'tests/recall-turns.test.ts',
  'tests/replay.test.ts',
  'tests/ids-users-have.test.ts',
  'tests/http-edges.test.ts',
  'tests/http-api.test.ts',
  'tests/access.test.ts',
  'tests/log-contract.test.ts',
  'tests/verify-fault-injection.test.ts',
  'tests/usage-accounting.test.ts',
];

class IncludeOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => INCLUDE.indexOf(relative(f.project.config.root, f.moduleId));
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: INCLUDE,
    sequence: { sequencer: IncludeOrder },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
