// The labelled cases the evaluation harness tests share (in-process in eval-harness.test.ts,
// through the CLI in eval-cli.test.ts): one right label, one deliberately wrong one, one greeting.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from '../helpers.js';

/** Write the three cases into `dir`; returns the case file's path. */
export function writeEvalCases(dir: string): string {
  const casesFile = join(dir, 'cases.json');
  writeFileSync(
    casesFile,
    JSON.stringify({
      cases: [
        { id: 'right-label', query: 'Which database does staging use?', need: 'fact', expected_delivery: 'any', expected_ids: ['staging-db'] },
        {
          id: 'wrong-label',
          query: 'Which database does staging use?',
          need: 'deliberately wrong label',
          expected_delivery: 'any',
          expected_ids: ['ghost-item'],
        },
        { id: 'greeting', query: '早安', need: 'greeting', expected_delivery: 'quiet', expected_mode: 'skipped' },
      ],
    }),
  );
  return casesFile;
}

/** The three cases in a temporary directory for the whole test file: `cases.file` once beforeAll ran. */
export function useEvalCases(): { file: string } {
  const cases = { file: '' };
  let dir: ReturnType<typeof tempDir> | undefined;
  beforeAll(() => {
    dir = tempDir();
    cases.file = writeEvalCases(dir.path);
  });
  afterAll(() => dir?.cleanup());
  return cases;
}
