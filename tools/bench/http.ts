// npm run bench:http -- [--records 10000] [--seconds 10] [--connections 16] [--model] [--json]
// turns/start throughput and latency over real loopback HTTP (autocannon), local judge,
// at N records. Default embedder: the deterministic hashed one, so the number measures
// Kioku itself; --model uses the bundled USE-lite (one query batch per turn, ~25–40 ms
// of model time each on these machines, so it is model-bound). Prints a table, then JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { HashedEmbedder, UseLiteEmbedder, type Embedder } from '../../src/embed/index.js';
import { EmbeddingIndexer } from '../../src/indexer/embedding-job.js';
import { openKioku } from '../../src/kioku.js';
import { LocalJudge } from '../../src/recall/index.js';
import { startServer } from '../../src/server/index.js';
import { Synthetic } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    model: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
if (![RECORDS, SECONDS, CONNECTIONS].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:http -- [--records N] [--seconds S] [--connections C] [--model] [--json]\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'kioku-bench-http-'));
const embedder: Embedder = values.model ? new UseLiteEmbedder() : new HashedEmbedder(64);
// the one assembly path: the library opened with openKioku, then served
const kioku = await openKioku({ data: dir, embedder, judge: new LocalJudge(), backgroundIndexing: false, actor: 'http' });
const server = await startServer({ kioku, port: 0, authFile: join(dir, 'none.json') });
await server.ready;
const syn = new Synthetic(11);
const knowledge = kioku.knowledge;
for (let i = 0; i < RECORDS; i += 500) {
  await knowledge.writeMemories({ memories: Array.from({ length: Math.min(500, RECORDS - i) }, (_, j) => ({ kind: 'fact' as const, text: syn.text(i + j) })) });
}
if (!values.model) await new EmbeddingIndexer(kioku.store, embedder).run();
const open = (await (
  await fetch(`${server.url}/v1/sessions/open`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'bench' }) })
).json()) as { session_id: string };
const queries = Array.from({ length: 200 }, () => `${syn.word()} ${syn.word()} ${syn.word()} is failing. How do we fix the ${syn.word()} ${syn.word()}?`);
let q = 0;
const result = await autocannon({
  url: `${server.url}/v1/turns/start`,
  method: 'POST',
  connections: CONNECTIONS,
  duration: SECONDS,
  headers: { 'content-type': 'application/json' },
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ session_id: open.session_id, query: queries[q++ % queries.length] }) }) }],
});
const head = kioku.log.head().seq;
await server.close();
await embedder.close();
rmSync(dir, { recursive: true, force: true });

const out = {
  bench: 'http',
  records: RECORDS,
  embedder: embedder.id,
  judge: 'local-calibrated',
  connections: CONNECTIONS,
  seconds: SECONDS,
  turnStartsPerSec: Math.round(result.requests.average),
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  logHead: head,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
};
const rows: [string, string][] = [
  ['records / embedder / connections', `${RECORDS} / ${out.embedder} / ${CONNECTIONS}`],
  ['turn starts/s (mean over the run)', String(out.turnStartsPerSec)],
  ['latency ms p50 / p90 / p99', `${out.latencyMs.p50} / ${out.latencyMs.p90} / ${out.latencyMs.p99}`],
  ['non-2xx / errors / timeouts', `${out.non2xx} / ${out.errors} / ${out.timeouts}`],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(40)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
