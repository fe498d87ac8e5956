// npm run bench:hook -- [--runs 30] [--records 2000] [--json]
// The hook's own cost: `node bin/kioku.js hook run` (the built CLI, as installed) spawned for a
// UserPromptSubmit against a warm service, spawn to exit, beside the same turn asked over HTTP
// directly. The difference is what the hook process adds beyond the recall itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HashedEmbedder } from '../../src/embed/index.js';
import { LocalJudge } from '../../src/recall/index.js';
import { startServer } from '../../src/server/index.js';
import { Synthetic } from './synthetic.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, records: { type: 'string', default: '2000' }, json: { type: 'boolean', default: false } },
});
const RUNS = Number(values.runs);
const RECORDS = Number(values.records);
if (![RUNS, RECORDS].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:hook -- [--runs N] [--records N] [--json]\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'kioku-bench-hook-'));
const server = await startServer({
  data: dir,
  port: 0,
  authFile: join(dir, 'none.json'),
  embedder: new HashedEmbedder(64),
  judge: new LocalJudge(),
  backgroundIndexing: false,
});
await server.ready;
const syn = new Synthetic(5);
for (let i = 0; i < RECORDS; i += 500) {
  await server.state.knowledge!.writeMemories({
    memories: Array.from({ length: Math.min(500, RECORDS - i) }, (_, j) => ({ kind: 'fact' as const, text: syn.text(i + j) })),
  });
}
const transcript = join(dir, 'transcript.jsonl');
writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'earlier question' }, timestamp: new Date().toISOString() })}\n`);
const quantile = (xs: number[], q: number): number => Math.round(([...xs].sort((a, b) => a - b)[Math.floor(q * xs.length)] ?? 0) * 10) / 10;

const hookOnce = (i: number): Promise<number> =>
  new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin/kioku.js'), 'hook', 'run', '--data', dir], { env: { PATH: process.env['PATH'] ?? '', HOME: dir } });
    child.stdout.resume();
    child.on('error', fail);
    child.on('close', () => done(performance.now() - started));
    child.stdin.end(
      JSON.stringify({
        hook_event_name: 'UserPromptSubmit',
        session_id: `bench-${i}`,
        transcript_path: transcript,
        prompt: `${syn.word()} ${syn.word()} ${syn.word()}?`,
      }),
    );
  });
const httpOnce = async (i: number): Promise<number> => {
  const started = performance.now();
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  await post('/v1/sessions/open', { agent: 'bench', session_id: `http-${i}` });
  await post('/v1/turns/start', {
    session_id: `http-${i}`,
    query: `${syn.word()} ${syn.word()} ${syn.word()}?`,
    conversation: [{ role: 'user', content: 'earlier question' }],
  });
  return performance.now() - started;
};

await hookOnce(-1); // warm the file cache
const hook: number[] = [];
const http: number[] = [];
for (let i = 0; i < RUNS; i++) {
  hook.push(await hookOnce(i));
  http.push(await httpOnce(i));
}
const empty: number[] = [];
for (let i = 0; i < Math.min(RUNS, 10); i++) {
  const started = performance.now();
  await new Promise<void>((done) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.on('close', () => done());
  });
  empty.push(performance.now() - started);
}
await server.close();
rmSync(dir, { recursive: true, force: true });
const report = {
  bench: 'hook',
  runs: RUNS,
  records: RECORDS,
  hook_spawn_to_exit_ms: { p50: quantile(hook, 0.5), p95: quantile(hook, 0.95) },
  same_turn_over_http_ms: { p50: quantile(http, 0.5), p95: quantile(http, 0.95) },
  hook_overhead_p50_ms: Math.round((quantile(hook, 0.5) - quantile(http, 0.5)) * 10) / 10,
  bare_node_spawn_p50_ms: quantile(empty, 0.5),
};
if (!values.json)
  process.stdout.write(
    `hook run (built CLI) p50 ${report.hook_spawn_to_exit_ms.p50} ms, p95 ${report.hook_spawn_to_exit_ms.p95} ms; the same turn over HTTP p50 ${report.same_turn_over_http_ms.p50} ms; overhead p50 ${report.hook_overhead_p50_ms} ms (a bare node spawn: ${report.bare_node_spawn_p50_ms} ms)\n`,
  );
process.stdout.write(`${JSON.stringify(report)}\n`);
