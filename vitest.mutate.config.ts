// The test files mutation testing runs (npm run mutate): the in-process suites that exercise
// the rule modules. Suites that only reach the rules through child processes (CLI, crash,
// benchmark scripts) cannot see Stryker's active mutant, so they would only cost time (the eval
// harness's CLI cases are in tests/eval-cli.test.ts for that reason: under load they timed out in
// Stryker's initial run, which then stops).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'tests/delivery-rules.test.ts',
      'tests/fusion-rules.test.ts',
      'tests/rule-edges.test.ts',
      'tests/http-edges.test.ts',
      'tests/recall-plan.test.ts',
      'tests/recall-channels.test.ts',
      'tests/recall-rank.test.ts',
      'tests/recall-judge-deliver.test.ts',
      'tests/recall-usage.test.ts',
      'tests/recall-turns.test.ts',
      'tests/usage-accounting.test.ts',
      'tests/replay.test.ts',
      'tests/ids-users-have.test.ts',
      'tests/knowledge-writes.test.ts',
      'tests/log-contract.test.ts',
      'tests/verify-fault-injection.test.ts',
      'tests/http-api.test.ts',
      'tests/eval-harness.test.ts',
      'tests/keyword-search.test.ts',
      'tests/local-judge.test.ts',
      'tests/access.test.ts',
      'tests/api-caller.test.ts',
      'tests/caller-settled.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
