// npm run chaos -- [--scenario kill|mcp|postgres|disk|all] [--rounds N] [--writers N] [--hold S] [--storm S] [--source] [--json]
// Issue 29's fault figures, re-measured through the front door with real processes: writers keep
// a ledger of acknowledged writes while the service is SIGKILLed (kill), MCP processes write
// across a killed service (mcp), three nodes share a PostgreSQL that ends their sessions and stops
// (postgres), and the disk fills (disk). Every acknowledged write must be read back with its text,
// once; `kioku verify` must pass. Progress on stderr; with --json the last stdout line is one JSON
// object. A scenario this machine cannot run is reported as skipped, with the reason. Exit 1 when
// any scenario that ran lost, changed or duplicated an acknowledged write or failed verify.
import { parseArgs } from 'node:util';
import { diskScenario } from './disk.js';
import { killScenario } from './kill.js';
import { mcpScenario } from './mcp.js';
import { postgresScenario } from './postgres.js';
import { distBuilt, progress, type Entry } from './service.js';

const SCENARIOS = ['kill', 'mcp', 'postgres', 'disk'] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    rounds: { type: 'string' },
    writers: { type: 'string' },
    hold: { type: 'string' },
    storm: { type: 'string' },
    source: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

function positive(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`chaos: --${name} must be a positive integer\n`);
    process.exit(2);
  }
  return n;
}

const chosen: Scenario[] = values.scenario === 'all' ? [...SCENARIOS] : [values.scenario as Scenario];
if (!chosen.every((s) => SCENARIOS.includes(s))) {
  process.stderr.write(`chaos: --scenario must be one of ${SCENARIOS.join(', ')} or all\n`);
  process.exit(2);
}
const entry: Entry = values.source || !distBuilt() ? 'source' : 'dist';
const rounds = (fallback: number): number => positive('rounds', values.rounds, fallback);
const writers = (fallback: number): number => positive('writers', values.writers, fallback);
// seconds of writing between faults (the kills come at random around it), and of the postgres session storm
const holdMs = positive('hold', values.hold, 5) * 1000;
const stormMs = positive('storm', values.storm, 15) * 1000;

const run: Record<Scenario, () => Promise<Record<string, unknown>>> = {
  kill: () => killScenario({ rounds: rounds(8), writers: writers(8), entry, holdMs }),
  mcp: () => mcpScenario({ rounds: rounds(4), clients: writers(4), entry, holdMs }),
  postgres: () => postgresScenario({ writers: writers(8), entry, terminateForMs: stormMs, holdMs }),
  disk: () => diskScenario({ writers: writers(8), entry, holdMs }),
};

const results: Record<string, unknown>[] = [];
for (const scenario of chosen) {
  progress(`scenario ${scenario} (entry ${entry})`);
  try {
    results.push(await run[scenario]());
  } catch (err) {
    // a scenario that broke is a failure, with its reason; never a pass
    results.push({ scenario, ok: false, error: (err as Error).stack ?? String(err) });
  }
}
const ok = results.every((r) => r['ok'] === true || r['skipped'] !== undefined);
for (const r of results)
  process.stdout.write(
    r['skipped'] !== undefined
      ? `${r['scenario']}: skipped (${r['skipped']})\n`
      : `${r['scenario']}: ${r['ok'] ? 'ok' : 'FAILED'}; acknowledged ${r['acknowledged']}, lost ${r['lost']}, changed ${r['changed']}, duplicates ${r['duplicates']}, verify ${JSON.stringify((r['verify'] as { ok?: boolean } | undefined)?.ok)}\n`,
  );
if (values.json) process.stdout.write(`${JSON.stringify({ chaos: true, ok, entry, hold_s: holdMs / 1000, storm_s: stormMs / 1000, scenarios: results })}\n`);
process.exitCode = ok ? 0 : 1;
