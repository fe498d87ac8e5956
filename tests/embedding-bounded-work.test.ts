// Issue 29 item 8, through a real `kioku serve` with the bundled model (USE-lite): one huge
// one-word memory took the model 35–62 s, SIGTERM waited for the batch in flight (34.7 s; 20 of
// them: still running 5 min later) and recall queued behind it. The model now sees a bounded text
// (src/embed/chunk.ts, src/embed/use-lite.ts), a stop abandons the call in flight, and a query
// goes before the indexer's queued work.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkText } from '../src/embed/index.js';
import { boundForUseLite } from '../src/embed/use-lite.js';
import { freePort, serveProcess, tempDir } from './helpers.js';

type Json = Record<string, unknown>;

/** `kioku serve` with the bundled model (the default embedder). */
const serve = (dataDir: string, port: number): Promise<ChildProcess> => serveProcess(dataDir, port, [], { KIOKU_EMBEDDER: 'use-lite' });

async function call(port: number, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** One "word" of `n` letters (no whitespace at all), different per seed. */
const oneWord = (n: number, seed: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7919 + i * i + seed) % 26))).join('');
/** About `n` characters of English prose. */
const prose = (n: number, seed: number): string =>
  `Release ${seed}: ${'we rolled the release back with the script and then re-applied the migrations by hand before the review. '.repeat(Math.ceil(n / 100))}`.slice(
    0,
    n,
  );

async function stopAndTime(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, ms: 0 };
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  const code = await exited;
  return { code, ms: performance.now() - started };
}

describe('what a model sees of one item', () => {
  it('bounds chunks by characters as well as words, and cuts over-long words for the bundled model', () => {
    const word = oneWord(95_000, 3);
    const pieces = chunkText(word);
    expect(pieces).toHaveLength(8); // at most 8 chunks of 2,000 characters: 16,000 of the 95,000
    expect(pieces.every((c) => c.length === 2_000)).toBe(true);
    expect(chunkText(word, { maxWordChars: 100 })).toEqual([word.slice(0, 100)]);
    const cjk = '数据库迁移必须手动重新执行。'.repeat(500); // no whitespace at all: cut, not skipped
    expect(chunkText(cjk).map((c) => c.length)).toEqual([2_000, 2_000, 2_000, 1_000]);
    const text = prose(30_000, 1);
    expect(chunkText(text).every((c) => c.length <= 2_000)).toBe(true);
    expect(chunkText('a short memory')).toEqual(['a short memory']);
    // a query (or any text) the bundled model embeds directly
    expect(boundForUseLite(`roll back ${word}`)).toBe(`roll back ${word.slice(0, 100)}`);
    expect(boundForUseLite(text)).toHaveLength(2_000);
  });
});

describe('huge memories and the bundled model', () => {
  // one library and service for both tests (one model load fewer); the second stops and restarts it
  let dir: ReturnType<typeof tempDir>;
  let port: number;
  let child: ChildProcess;
  beforeAll(async () => {
    dir = tempDir();
    port = await freePort();
    child = await serve(dir.path, port);
  }, 60_000);
  afterAll(async () => {
    if (child) await stopAndTime(child);
    dir?.cleanup();
  });

  it('embeds a 95,000-character one-word memory within seconds', async () => {
    // the model loads once first, so the figure below is the huge word's alone
    const warm = await call(port, 'POST', '/v1/memories', {
      memories: [{ id: 'warm', kind: 'fact', text: 'the model is loaded' }],
      wait_for_vectors: 60_000,
    });
    expect(warm.body['vectors']).toEqual({ waiting: 0, timed_out: false });
    const started = performance.now();
    const w = await call(port, 'POST', '/v1/memories', { memories: [{ id: 'huge', kind: 'fact', text: oneWord(95_000, 1) }], wait_for_vectors: 30_000 });
    const ms = Math.round(performance.now() - started);
    process.stderr.write(`embedding-bounded-work: one 95,000-character word written and embedded in ${ms} ms\n`);
    expect(w.status).toBe(200);
    expect(w.body['vectors']).toEqual({ waiting: 0, timed_out: false });
    expect(ms).toBeLessThan(15_000);
  }, 120_000);

  it('stops within 5 s of SIGTERM while embedding huge memories, keeps every acknowledged write, and answers recall meanwhile', async () => {
    // one memory with a vector, so the dense lane has something to find during the job
    const first = { id: 'rollback', kind: 'fact', text: 'We roll the release back with scripts/rollback.sh.' };
    expect((await call(port, 'POST', '/v1/memories', { memories: [first], wait_for_vectors: 60_000 })).body['vectors']).toEqual({
      waiting: 0,
      timed_out: false,
    });
    // 1.9 MB of one-word memories and 1.9 MB of long prose (8 chunks of ~2,000 characters each): minutes of model work before the bound
    const words = Array.from({ length: 20 }, (_, i) => ({ id: `word-${i}`, kind: 'fact', text: oneWord(95_000, i) }));
    const long = Array.from({ length: 20 }, (_, i) => ({ id: `prose-${i}`, kind: 'fact', text: prose(95_000, i) }));
    expect((await call(port, 'POST', '/v1/memories', { memories: long })).status).toBe(200);
    expect((await call(port, 'POST', '/v1/memories', { memories: words })).status).toBe(200);
    const acked = [first, ...long, ...words].map((m) => m.id);

    const deadline = Date.now() + 30_000;
    let status = await call(port, 'GET', '/v1/ingest/status');
    while (!(status.body['indexing'] as { running: boolean }).running && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = await call(port, 'GET', '/v1/ingest/status');
    }
    expect((status.body['indexing'] as { running: boolean }).running).toBe(true);
    await new Promise((r) => setTimeout(r, 2_000)); // the model is loaded and busy with the documents

    // a query goes before the queued document work: the dense lane answers within its 3 s budget
    const started = performance.now();
    const recall = await call(port, 'POST', '/v1/recall', { query: 'how did we roll the release back?' });
    const recallMs = Math.round(performance.now() - started);
    expect(recall.status).toBe(200);
    const vector = (recall.body['backends'] as Record<string, { status: string }>)['vector'];
    process.stderr.write(`embedding-bounded-work: recall during the job ${recallMs} ms, vector lane ${vector?.status}\n`);
    expect(vector?.status).toBe('used');
    expect((await call(port, 'GET', '/v1/ingest/status')).body['indexing']).toMatchObject({ running: true });

    // a write that waits for its vectors is in flight at SIGTERM: it is answered (acknowledged, vectors still waiting), not waited out
    const late = call(port, 'POST', '/v1/memories', {
      memories: [{ id: 'late', kind: 'fact', text: 'written just before the stop' }],
      wait_for_vectors: 60_000,
    });
    await new Promise((r) => setTimeout(r, 500));
    const stop = await stopAndTime(child);
    const lateAnswer = await late;
    expect(lateAnswer.status).toBe(200);
    expect(lateAnswer.body['vectors']).toMatchObject({ timed_out: true });
    acked.push('late');
    process.stderr.write(`embedding-bounded-work: SIGTERM while embedding → exit ${stop.code} in ${Math.round(stop.ms)} ms\n`);
    expect(stop.code).toBe(0);
    expect(stop.ms).toBeLessThan(5_000);

    // every acknowledged write is there after a restart
    child = await serve(dir.path, port);
    const items = await call(port, 'POST', '/v1/items/query', { layers: ['memory'], limit: 100 });
    const ids = new Set((items.body['items'] as { id: string }[]).map((i) => i.id));
    expect(acked.filter((id) => !ids.has(id))).toEqual([]);
  }, 180_000);
});
