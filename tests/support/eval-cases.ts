// The labelled cases the evaluation harness tests share (in-process in eval-harness.test.ts,
// through the CLI in eval-cli.test.ts): one right label, one deliberately wrong one, one greeting.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
