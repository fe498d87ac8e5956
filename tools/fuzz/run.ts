// npm run fuzz [-- --runs 5000] [--asset-runs 3000] [--cli-runs 50] [--seed 42] [--json]
// The fuzz suite with a larger budget than CI's: a real server on a loopback port over a fresh
// data dir (hashed embedder), every route and then the asset doors' path attacks (an asset root
// for namespace private), then the CLI over a fresh store. Prints the requests tried and their
// outcomes; exit 1 when any property was violated.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HashedEmbedder } from '../../src/embed/index.js';
import { openLog } from '../../src/log/index.js';
import { LocalJudge } from '../../src/recall/index.js';
import { startServer } from '../../src/server/index.js';
import { fuzzAssets } from './assets.js';
import { fuzzCli } from './cli.js';
import { fuzzHttp } from './http.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    'asset-runs': { type: 'string', default: '3000' },
    'cli-runs': { type: 'string', default: '50' },
    seed: { type: 'string', default: '42' },
    json: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const cliRuns = Number(values['cli-runs']);
const assetRuns = Number(values['asset-runs']);
const seed = Number(values.seed);
if (![runs, cliRuns, assetRuns, seed].every((n) => Number.isSafeInteger(n) && n >= 0)) {
  process.stderr.write('fuzz: --runs, --asset-runs, --cli-runs and --seed must be non-negative integers\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'kioku-fuzz-'));
try {
  mkdirSync(join(dir, 'root'));
  const server = await startServer({
    data: join(dir, 'http'),
    port: 0,
    authFile: join(dir, 'no-auth.json'),
    embedder: new HashedEmbedder(32),
    judge: new LocalJudge(),
    backgroundIndexing: false,
    rateLimitPerMinute: 1e9,
    assetRoots: { private: [join(dir, 'root')] },
  });
  await server.ready;
  const head = () => server.state.store?.log.head().seq ?? 0;
  const http = await fuzzHttp({ url: server.url, head }, { runs, seed });
  const storedCanary = 'canary-in-the-log-of-another-namespace-8e2a';
  await fetch(`${server.url}/v1/memories`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ namespace: 'other', memories: [{ id: 'canary', kind: 'fact', text: storedCanary }] }),
  });
  const assets = await fuzzAssets(
    { url: server.url, head, dataDir: join(dir, 'http'), root: join(dir, 'root'), outside: join(dir, 'outside'), storedCanary },
    { runs: assetRuns, seed },
  );
  await server.close();

  const cliDir = join(dir, 'cli');
  const { spawnSync } = await import('node:child_process');
  spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'tools/kioku.ts'), 'import', 'wiki', join(ROOT, 'evals/library/wiki'), '--data', cliDir, '--no-embed'],
    { cwd: ROOT },
  );
  const headOf = async (): Promise<number> => {
    const log = await openLog(cliDir, { createIfMissing: false });
    try {
      return log.head().seq;
    } finally {
      await log.close();
    }
  };
  const cli = await fuzzCli(cliDir, { runs: cliRuns, seed, headOf });
  const ok = http.violations.length === 0 && assets.violations.length === 0 && cli.violations.length === 0;
  process.stdout.write(
    `${[
      `HTTP: ${http.requests} requests, by status ${JSON.stringify(http.by_status)}; built invalid ${http.invalid.sent}, refused ${http.invalid.refused}; violations ${http.violations.length}`,
      `assets: ${assets.requests} requests, by status ${JSON.stringify(assets.by_status)}; attack paths ${assets.attacks.sent}, refused ${assets.attacks.refused}; registered ${assets.registered}; violations ${assets.violations.length}`,
      `CLI: ${cli.runs} runs, by exit code ${JSON.stringify(cli.by_exit)}; violations ${cli.violations.length}`,
      ...[...http.violations, ...assets.violations, ...cli.violations].slice(0, 10).map((v) => `  ${JSON.stringify(v)}`),
    ].join('\n')}\n`,
  );
  if (values.json) process.stdout.write(`${JSON.stringify({ fuzz: true, ok, seed, http, assets, cli })}\n`);
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
