// The indexer never leaves work behind: writes that land while a job runs are embedded
// right after it, with no further write; recall says how many items of its namespace still
// wait; POST /v1/memories can wait for its vectors; a stop cancels the backlog quickly.
import { afterEach, describe, expect, it } from 'vitest';
import { HashedEmbedder, type Embedder } from '../src/embed/index.js';
import { startTestServer, type TestServer } from './server-helpers.js';

/** The hashed embedder behind a delay per call: a slow model, so writes can land while a job runs. */
class SlowEmbedder implements Embedder {
  private readonly inner = new HashedEmbedder(32);
  readonly id = this.inner.id;
  readonly dim = this.inner.dim;
  readonly readsCjk = this.inner.readsCjk;
  calls = 0;
  constructor(private readonly delayMs: number) {}
  init(): Promise<void> {
    return this.inner.init();
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls += 1;
    await new Promise((r) => setTimeout(r, this.delayMs));
    return this.inner.embed(texts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const batch = (from: number, n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ id: `m${from + i}`, kind: 'event', text: `Turn ${from + i}: we talked about topic ${from + i}.`, ...extra }));

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('embedding backlog', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it('embeds writes that landed while a job ran, without another write', async () => {
    s = await startTestServer({ embedder: new SlowEmbedder(60), backgroundIndexing: true });
    await s.call('POST', '/v1/memories', { memories: batch(0, 40) });
    // the first job is running (40 items in batches of 32, 60 ms a batch) when the next writes land
    expect(await until(async () => s!.state.core!.indexer.status().running, 5_000)).toBe(true);
    await s.call('POST', '/v1/memories', { memories: batch(40, 40) });
    await s.call('POST', '/v1/memories', { memories: batch(80, 40) });
    const settled = await until(async () => {
      const st = await s!.call('GET', '/v1/ingest/status');
      return st.body['waiting_for_vectors'] === 0 && !(st.body['indexing'] as { running: boolean }).running;
    }, 15_000);
    expect(settled).toBe(true);
    expect(s.state.core!.indexer.waiting()).toBe(0);
  });

  it('tells recall how many items of its namespace wait for vectors, and waits for them on request', async () => {
    s = await startTestServer({ embedder: new SlowEmbedder(20), backgroundIndexing: false });
    await s.call('POST', '/v1/memories', { memories: batch(0, 5), namespace: 'other' });
    await s.call('POST', '/v1/memories', { memories: batch(10, 3) });
    const r = await s.call('POST', '/v1/recall', { query: 'what did we talk about in turn 11?' });
    expect(r.body['backends']).toMatchObject({ vector: { waiting_for_vectors: 3 } });
    expect(r.body['warnings']).toContain('vectors_pending:3');

    const w = await s.call('POST', '/v1/memories', { memories: batch(20, 4), wait_for_vectors: 10_000 });
    expect(w.status).toBe(200);
    expect(w.body['vectors']).toEqual({ waiting: 0, timed_out: false });
    const after = await s.call('POST', '/v1/recall', { query: 'what did we talk about in turn 21?' });
    expect((after.body['backends'] as Record<string, { waiting_for_vectors?: number }>)['vector']?.waiting_for_vectors).toBeUndefined();
    // a bad value is a 400 naming the field, and writes nothing
    const head = s.state.store!.log.head().seq;
    const bad = await s.call('POST', '/v1/memories', { memories: batch(30, 1), wait_for_vectors: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { details: { field: 'wait_for_vectors' } } });
    expect(s.state.store!.log.head().seq).toBe(head);
  });

  it('answers a wait that cannot finish in time with the count still waiting', async () => {
    s = await startTestServer({ embedder: new SlowEmbedder(400), backgroundIndexing: false });
    const w = await s.call('POST', '/v1/memories', { memories: batch(0, 70), wait_for_vectors: 300 });
    expect(w.status).toBe(200);
    const v = w.body['vectors'] as { waiting: number; timed_out: boolean };
    expect(v.timed_out).toBe(true);
    expect(v.waiting).toBeGreaterThan(0);
    expect(v.waiting).toBeLessThanOrEqual(70);
  });

  it('stops in under 5 s with 10,000 embeddings queued, cancelling the job after its current batch', async () => {
    const slow = new SlowEmbedder(200);
    s = await startTestServer({ embedder: slow, backgroundIndexing: true });
    for (let i = 0; i < 20; i++) await s.call('POST', '/v1/memories', { memories: batch(i * 500, 500) });
    expect(await until(async () => slow.calls > 0, 5_000)).toBe(true);
    const t = performance.now();
    const server = s;
    s = undefined;
    await server.stop();
    const ms = performance.now() - t;
    // 10,000 items at 200 ms per 32 would take ~60 s; a stop waits for one batch at most
    expect(ms).toBeLessThan(5_000);
    expect(slow.calls).toBeLessThan(10_000 / 32);
    console.log(JSON.stringify({ queued: 10_000, stop_ms: Math.round(ms), embedder_calls_before_stop: slow.calls }));
  });
});
