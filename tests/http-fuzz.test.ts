// The property-based fuzz suite over every route (tools/fuzz/http.ts), with a fixed seed and a
// bounded budget: random and mutated bodies never give a 5xx, never a 2xx for input broken on
// purpose, always the one error shape, and never change the log unless the request succeeded.
// `npm run fuzz -- --runs N --seed S` runs a larger budget.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openLog } from '../src/log/index.js';
import { fuzzAssets } from '../tools/fuzz/assets.js';
import { fuzzCli } from '../tools/fuzz/cli.js';
import { fuzzHttp } from '../tools/fuzz/http.js';
import { CLI_ENTRY, REPO, runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
let scratch: ReturnType<typeof tempDir>;
beforeAll(async () => {
  scratch = tempDir();
  mkdirSync(join(scratch.path, 'root'));
  s = await startTestServer({ rateLimitPerMinute: 1_000_000, assetRoots: { private: [join(scratch.path, 'root')] } });
  await s.call('POST', '/v1/memories', { memories: [{ id: 'seed', kind: 'fact', text: 'The staging database is pg-2.' }] });
  await s.call('POST', '/v1/sessions/open', { agent: 'fuzz', session_id: 'fuzz-session' });
});
afterAll(async () => {
  await s.stop();
  scratch.cleanup();
});

it('holds its properties over 400 random and mutated requests (seed 42)', async () => {
  const outcome = await fuzzHttp({ url: s.url, head: () => s.state.store!.log.head().seq }, { runs: Number(process.env['KIOKU_FUZZ_RUNS'] ?? 400), seed: 42 });
  console.log(JSON.stringify({ requests: outcome.requests, by_status: outcome.by_status, invalid: outcome.invalid }));
  expect(outcome.violations).toEqual([]);
  expect(outcome.requests).toBeGreaterThan(300);
  expect(outcome.invalid.sent).toBeGreaterThan(50);
  expect(outcome.invalid.refused).toBe(outcome.invalid.sent);
  // both kinds of answer were exercised
  expect(Object.keys(outcome.by_status).some((k) => k.startsWith('2'))).toBe(true);
  expect(Object.keys(outcome.by_status).some((k) => k.startsWith('4'))).toBe(true);
}, 120_000);

it('refuses every asset path attack over 300 random paths, uploads and swaps, and never answers with a canary (seed 29)', async () => {
  const storedCanary = 'canary-in-the-log-of-another-namespace-8e2a';
  await s.call('POST', '/v1/memories', { namespace: 'other', memories: [{ id: 'canary', kind: 'fact', text: storedCanary }] });
  const outcome = await fuzzAssets(
    {
      url: s.url,
      head: () => s.state.store!.log.head().seq,
      dataDir: s.dir,
      root: join(scratch.path, 'root'),
      outside: join(scratch.path, 'outside'),
      storedCanary,
    },
    { runs: Number(process.env['KIOKU_FUZZ_ASSET_RUNS'] ?? 300), seed: 29 },
  );
  console.log(JSON.stringify({ asset_requests: outcome.requests, by_status: outcome.by_status, attacks: outcome.attacks, registered: outcome.registered }));
  expect(outcome.violations).toEqual([]);
  expect(outcome.attacks.sent).toBeGreaterThan(100);
  expect(outcome.attacks.refused).toBe(outcome.attacks.sent);
  // legitimate registrations happened too: the oracle is not vacuous
  expect(outcome.registered).toBeGreaterThan(0);
}, 120_000);

it('holds its properties over random arguments to the CLI commands that take input (seed 7)', async () => {
  const dir = tempDir();
  try {
    expect((await runCli(['import', 'wiki', join(REPO, 'evals/library/wiki'), '--data', dir.path, '--no-embed', '--json'])).code).toBe(0);
    // the head as the log on disk has it: each CLI run holds the lock only while it runs
    const headOf = async (): Promise<number> => {
      const log = await openLog(dir.path, { createIfMissing: false });
      try {
        return log.head().seq;
      } finally {
        await log.close();
      }
    };
    const outcome = await fuzzCli(dir.path, { runs: Number(process.env['KIOKU_FUZZ_CLI_RUNS'] ?? 12), seed: 7, headOf, entry: CLI_ENTRY.installed });
    console.log(JSON.stringify({ cli_runs: outcome.runs, by_exit: outcome.by_exit }));
    expect(outcome.violations).toEqual([]);
  } finally {
    dir.cleanup();
  }
}, 300_000);
