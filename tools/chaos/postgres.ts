// Scenario postgres: three `kioku serve` nodes on one PostgreSQL (a throwaway cluster from
// tools/pg/cluster.sh, the nodes logging in as a role that may only SELECT and INSERT), writers
// spread over them plus two writers racing for the same ids on different nodes. Mid-load one node
// is SIGKILLed and restarted, the node role's sessions are ended every second for a stretch
// (pg_terminate_backend), and the database is stopped (`pg_ctl stop -m fast`) for ~5 s. At the end
// every acknowledged write is read back once from each node: its text, no duplicate, one winner
// per raced id; `kioku verify` on the store must pass.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { headOf, readBack, writeMemory } from './http.js';
import { check, newLedger, sleep, startWriters, type Check, type Ledger } from './ledger.js';
import { cli, freePort, kill, progress, REPO, serve, terminate, verify, verifySummary, type Entry, type Service } from './service.js';

export interface PostgresOptions {
  writers: number;
  entry: Entry;
  /** how long the node role's sessions are ended every second */
  terminateForMs: number;
  /** writing before, between and after the faults, ms */
  holdMs: number;
}

const ROLE = 'kioku_chaos_node';
const CLUSTER = join(REPO, 'tools/pg/cluster.sh');

/** Why PostgreSQL cannot run here, or undefined when it can. */
export function postgresMissing(): string | undefined {
  const bin = process.env['KIOKU_PG_BIN'];
  if (bin) return existsSync(join(bin, 'pg_ctl')) ? undefined : `KIOKU_PG_BIN=${bin} has no pg_ctl`;
  try {
    if (readdirSync('/usr/lib/postgresql').some((v) => existsSync(join('/usr/lib/postgresql', v, 'bin', 'pg_ctl')))) return undefined;
  } catch {
    // no folder: not installed
  }
  return 'no PostgreSQL binaries (/usr/lib/postgresql/*/bin or KIOKU_PG_BIN)';
}

async function admin(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Cluster {
  dir: string;
  adminUrl: string;
  nodeUrl: string;
}

/** A cluster, a database with the Kioku table made by `kioku store init --grant`, and the node role's URL. */
async function startCluster(entry: Entry, home: string): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kioku-chaos-pg-'));
  const server = execFileSync(CLUSTER, ['start', dir, String(await freePort())], { encoding: 'utf8' }).trim();
  await admin(server, `CREATE ROLE ${ROLE} LOGIN`);
  await admin(server, 'CREATE DATABASE kioku_chaos');
  const adminUrl = server.replace(/\/postgres$/, '/kioku_chaos');
  const init = await cli(entry, home, ['store', 'init', '--store', adminUrl, '--grant', ROLE]);
  if (init.exit !== 0) throw new Error(`kioku store init failed: ${JSON.stringify(init.report)}`);
  return { dir, adminUrl, nodeUrl: adminUrl.replace('postgres@', `${ROLE}@`) };
}

interface Node {
  data: string;
  port: number;
  service?: Service;
  /** exits nobody asked for */
  deaths: number;
}

async function startNode(node: Node, cluster: Cluster, entry: Entry): Promise<number> {
  const { service, readyMs } = await serve({ data: node.data, port: node.port, entry, args: ['--store', cluster.nodeUrl] });
  node.service = service;
  void service.exited.then(() => {
    if (node.service === service && !stopping.has(service)) node.deaths += 1;
  });
  return readyMs;
}
/** services stopped on purpose (a SIGKILL of the scenario, the final stop) */
const stopping = new Set<Service>();

/** End the node role's sessions every second for `ms`; how many were ended. */
async function terminateStorm(cluster: Cluster, ms: number): Promise<number> {
  let ended = 0;
  const stopAt = Date.now() + ms;
  while (Date.now() < stopAt) {
    await sleep(1_000);
    const res = await admin(cluster.adminUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${ROLE}'`);
    ended += res.rowCount ?? 0;
  }
  return ended;
}

/** The faults, in order, under load; a record of what each did. */
async function faults(nodes: Node[], cluster: Cluster, options: PostgresOptions): Promise<Record<string, unknown>> {
  const victim = nodes[1] as Node;
  await sleep(options.holdMs);
  stopping.add(victim.service as Service);
  await kill(victim.service as Service);
  const restartMs = await startNode(victim, cluster, options.entry);
  progress(`postgres: node 1 SIGKILLed, ready again in ${restartMs} ms`);
  await sleep(options.holdMs);
  const terminated = await terminateStorm(cluster, options.terminateForMs);
  progress(`postgres: ${terminated} node sessions ended over ${options.terminateForMs / 1000} s`);
  await sleep(options.holdMs);
  execFileSync(CLUSTER, ['stop', cluster.dir]);
  const downAt = performance.now();
  await sleep(5_000);
  execFileSync(CLUSTER, ['restart', cluster.dir]);
  const outageMs = Math.round(performance.now() - downAt);
  progress(`postgres: database stopped (pg_ctl stop -m fast) and started again after ${outageMs} ms`);
  await sleep(options.holdMs);
  return { node_restart_ms: restartMs, sessions_terminated: terminated, terminate_for_ms: options.terminateForMs, outage_ms: outageMs };
}

/** Each node caught up with the highest head, then read back; one check per node. */
async function readEveryNode(nodes: Node[], ledger: Ledger): Promise<Check[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const heads = await Promise.all(nodes.map((n) => headOf(n.service?.url ?? '')));
    if (heads.every((h) => h !== undefined && h === heads[0]) || Date.now() > deadline) break;
    await sleep(200);
  }
  const checks: Check[] = [];
  for (const n of nodes) checks.push(check(ledger, await readBack((n.service as Service).url)));
  return checks;
}

/** Two writers, on nodes 0 and 1, send the same ids (race-<i>) with their own texts: one may win each. */
function raceWriters(nodes: Node[], ledger: Ledger) {
  return startWriters(2, ledger, (w, id, text) => writeMemory((nodes[w] as Node).service?.url ?? '', id, text), {
    idOf: (_w, i) => `race-${i}`,
    textFor: (w, id) => `chaos race ${id}: writer ${w} says the release train leaves on ${w === 0 ? 'Tuesday' : 'Thursday'}`,
    settles: (why) => why === '409 KIOKU_ID_CONFLICT',
  });
}

export async function postgresScenario(options: PostgresOptions): Promise<Record<string, unknown>> {
  const missing = postgresMissing();
  if (missing) return { scenario: 'postgres', skipped: missing };
  const home = mkdtempSync(join(tmpdir(), 'kioku-chaos-nodes-'));
  const started = performance.now();
  let cluster: Cluster | undefined;
  const nodes: Node[] = [];
  try {
    cluster = await startCluster(options.entry, home);
    for (let i = 0; i < 3; i++) {
      const data = join(home, `node${i}`);
      mkdirSync(data);
      nodes.push({ data, port: await freePort(), deaths: 0 });
      await startNode(nodes[i] as Node, cluster, options.entry);
    }
    const ledger = newLedger();
    const writers = startWriters(options.writers, ledger, (w, id, text) => writeMemory((nodes[w % 3] as Node).service?.url ?? '', id, text));
    const racers = raceWriters(nodes, ledger);
    const faulted = await faults(nodes, cluster, options);
    await Promise.all([writers.stop(), racers.stop()]);
    return await finish(nodes, cluster, ledger, options, { ...faulted, started });
  } finally {
    for (const n of nodes) if (n.service) await kill(n.service);
    if (cluster) {
      try {
        execFileSync(CLUSTER, ['stop', cluster.dir]);
      } catch {
        // already stopped
      }
      rmSync(cluster.dir, { recursive: true, force: true });
    }
    rmSync(home, { recursive: true, force: true });
  }
}

async function finish(nodes: Node[], cluster: Cluster, ledger: Ledger, options: PostgresOptions, faulted: Record<string, unknown> & { started: number }) {
  const checks = await readEveryNode(nodes, ledger);
  const stops = [];
  for (const n of nodes) {
    stopping.add(n.service as Service);
    stops.push(await terminate(n.service as Service));
  }
  const verified = await verify(options.entry, (nodes[0] as Node).data, ['--store', cluster.adminUrl]);
  const worst = (k: 'lost' | 'changed' | 'duplicates' | 'conflicting_acks'): number => Math.max(...checks.map((c) => c[k]));
  const deaths = nodes.reduce((n, x) => n + x.deaths, 0);
  const raced = [...ledger.acked.keys()].filter((id) => id.startsWith('race-')).length;
  const result = { acknowledged: ledger.acked.size, lost: worst('lost'), changed: worst('changed'), duplicates: worst('duplicates') };
  progress(`postgres: acknowledged ${result.acknowledged}, lost ${result.lost}, changed ${result.changed}, duplicates ${result.duplicates}, verify ${verified.ok}`);
  const { started, ...faults } = faulted;
  return {
    scenario: 'postgres',
    ok: result.lost + result.changed + result.duplicates + worst('conflicting_acks') + deaths === 0 && verified.ok && stops.every((s) => s.exit === 0),
    writers: options.writers,
    ...result,
    raced_ids_acknowledged: raced,
    conflicting_acks: worst('conflicting_acks'),
    per_node: checks.map(({ examples: _e, ...c }) => c),
    node_deaths: deaths,
    faults,
    attempts: ledger.attempts,
    refusals: ledger.refusals,
    final_stops: stops,
    verify: verifySummary(verified),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
