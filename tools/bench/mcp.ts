// npm run bench:mcp -- [--records 10000] [--searches 200] [--model] [--json]
// `kioku mcp` over stdio, as an agent drives it (the SDK's client, a fresh data dir, the service
// started on first use): the handshake; write_memory one call at a time and in batches of 50
// until the library holds --records memories; search_memory p50/p95 with semantic on and off,
// and the bytes of each answer. Default embedder: hashed (measures Kioku); --model: the
// bundled USE-lite (its background embedding of the library competes with the searches).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Synthetic } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    searches: { type: 'string', default: '200' },
    model: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const SEARCHES = Number(values.searches);
if (![RECORDS, SEARCHES].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:mcp -- [--records N] [--searches N] [--model] [--json]\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'kioku-bench-mcp-'));
const env = { PATH: process.env['PATH'] ?? '', HOME: dir, KIOKU_EMBEDDER: values.model ? 'use-lite' : 'hash', KIOKU_JUDGE: 'local' };
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0) * 100) / 100;
};

const t0 = performance.now();
const transport = new StdioClientTransport({
  command: process.execPath,
  // the installed entry, as a host runs it (bin/kioku.js → the bundled dist/mcp.mjs; the npm script builds first)
  args: [join(ROOT, 'bin/kioku.js'), 'mcp', '--data', dir],
  cwd: ROOT,
  env,
  stderr: 'ignore',
});
const client = new Client({ name: 'bench', version: '1' });
await client.connect(transport);
const { tools } = await client.listTools();
const handshakeMs = Math.round(performance.now() - t0);

type Answer = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };
const call = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; bytes: number; answer: Answer }> => {
  const started = performance.now();
  const answer = (await client.callTool({ name, arguments: args })) as Answer;
  if (answer.isError) throw new Error(`${name}: ${answer.content[0]?.text}`);
  return { ms: performance.now() - started, bytes: Buffer.byteLength(JSON.stringify(answer)), answer };
};

// the first call starts the service; it is not a write figure
const first = await call('stats', {});
const syn = new Synthetic(23);
const singles = Math.min(2_000, Math.floor(RECORDS / 5));
let t = performance.now();
for (let i = 0; i < singles; i++) await call('write_memory', { memories: [{ kind: 'fact', text: syn.text(i) }] });
const singleRate = Math.round(singles / ((performance.now() - t) / 1000));
// single-memory calls, 32 in flight (an agent's parallel tool calls, or several agents): group commit shares the fsyncs
const concurrentCalls = Math.min(2_000, Math.floor(RECORDS / 5));
t = performance.now();
let next = singles;
const end = singles + concurrentCalls;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < end) {
      const i = next++;
      await call('write_memory', { memories: [{ kind: 'fact', text: syn.text(i) }] });
    }
  }),
);
const concurrentRate = Math.round(concurrentCalls / ((performance.now() - t) / 1000));
t = performance.now();
let batched = 0;
for (let i = end; i < RECORDS; i += 50) {
  const n = Math.min(50, RECORDS - i);
  await call('write_memory', { memories: Array.from({ length: n }, (_, j) => ({ kind: 'fact', text: syn.text(i + j) })) });
  batched += n;
}
const batchRate = Math.round(batched / ((performance.now() - t) / 1000));

const search = async (semantic: boolean) => {
  const ms: number[] = [];
  const bytes: number[] = [];
  let hits = 0;
  for (let i = 0; i < SEARCHES; i++) {
    const r = await call('search_memory', { sentence: `${syn.word()} ${syn.word()} ${syn.word()}`, limit: 10, semantic });
    ms.push(r.ms);
    bytes.push(r.bytes);
    hits += ((r.answer.structuredContent?.['records'] as unknown[]) ?? []).length;
  }
  return {
    p50_ms: quantile(ms, 0.5),
    p95_ms: quantile(ms, 0.95),
    bytes_p50: quantile(bytes, 0.5),
    bytes_max: Math.max(...bytes),
    records_per_answer: Math.round((hits / SEARCHES) * 10) / 10,
  };
};
// measure the searches once the service has embedded what was written (it does so in the background)
const settle = performance.now();
for (;;) {
  const r = await call('search_memory', { sentence: 'settle', limit: 1, semantic: true });
  const warnings = (r.answer.structuredContent?.['warnings'] as string[] | undefined) ?? [];
  if (!warnings.some((w) => w.startsWith('vectors_pending')) || performance.now() - settle > 120_000) break;
  await new Promise((done) => setTimeout(done, 500));
}
const settleMs = Math.round(performance.now() - settle);
const lexical = await search(false);
const semantic = await search(true);
const stats = (await call('stats', {})).answer.structuredContent as { items: { by_layer: Record<string, number> } };
await client.close();
const run = JSON.parse(readFileSync(join(dir, 'kioku.run.json'), 'utf8')) as { pid: number };
process.kill(run.pid, 'SIGTERM');
await new Promise((r) => setTimeout(r, 1_000));
rmSync(dir, { recursive: true, force: true });

const report = {
  bench: 'mcp',
  records: RECORDS,
  memories_stored: stats.items.by_layer['memory'] ?? 0,
  embedder: env.KIOKU_EMBEDDER,
  tools: tools.length,
  handshake_ms: handshakeMs,
  indexing_settled_ms: settleMs,
  first_call_ms: Math.round(first.ms),
  writes_per_s: { single_sequential: singleRate, single_32_in_flight: concurrentRate, single_calls: singles + concurrentCalls, batch_50: batchRate },
  search_memory: { semantic_false: lexical, semantic_true: semantic },
};
if (!values.json) {
  process.stdout.write(
    [
      `kioku mcp over stdio, ${RECORDS} memories, embedder ${env.KIOKU_EMBEDDER}`,
      `  handshake ${handshakeMs} ms (spawn + initialize + tools/list); first call (starts the service) ${Math.round(first.ms)} ms`,
      `  write_memory: ${singleRate}/s one call after another, ${concurrentRate}/s single-memory calls 32 in flight, ${batchRate}/s in batches of 50`,
      `  search_memory semantic off: p50 ${lexical.p50_ms} ms, p95 ${lexical.p95_ms} ms, ${lexical.bytes_p50} bytes per answer (max ${lexical.bytes_max})`,
      `  search_memory semantic on:  p50 ${semantic.p50_ms} ms, p95 ${semantic.p95_ms} ms, ${semantic.bytes_p50} bytes per answer (max ${semantic.bytes_max})`,
    ].join('\n') + '\n',
  );
}
process.stdout.write(`${JSON.stringify(report)}\n`);
