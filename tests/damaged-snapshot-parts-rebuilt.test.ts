// A snapshot part that is missing, truncated or damaged (the vector projection's HNSW folder
// removed, one byte of a graph flipped, another projection's snapshot file cut short) is never
// loaded: `kioku serve` discards that projection's snapshot, folds it again from the log (the
// only truth), says so on stderr without --log-requests, and becomes ready; `kioku rebuild`
// succeeds on such a data dir (issue 29 item 7).
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store.js';
import { CLI_ENTRY, freePort, REPO, runCli, tempDir } from './helpers.js';

interface Served {
  child: ChildProcess;
  port: number;
  /** everything the process wrote to stderr so far */
  stderr: () => string;
}

/** `kioku serve` on `data` as a user starts it (no --log-requests), resolved once it prints its ready line. */
function serve(data: string, port: number): Promise<Served> {
  return new Promise((resolveServed, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY.installed, 'serve', '--data', data, '--port', String(port)], {
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: data, KIOKU_EMBEDDER: 'hash', KIOKU_AUTH_FILE: join(data, 'none.json') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready within 20 s: ${err}`));
    }, 20_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('kioku: ready')) {
        clearTimeout(timer);
        resolveServed({ child, port, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${err}`));
    });
  });
}

async function stop(served: Served): Promise<void> {
  const exited = new Promise((r) => served.child.once('exit', r));
  served.child.kill('SIGTERM');
  await exited;
}

async function call(port: number, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Status {
  name: string;
  seq: number;
  source: string;
  loading?: true;
}

/** Every projection's status once none is still reading its files and all are at the head (the rebuild done). */
async function caughtUp(port: number): Promise<Status[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const { body } = await call(port, '/v1/ingest/status');
    const head = (body['head'] as { seq: number }).seq;
    const projections = body['projections'] as Status[];
    if (projections.every((p) => !p.loading && p.seq === head)) return projections;
    if (Date.now() > until) throw new Error(`projections not caught up: ${JSON.stringify(projections)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const MEMORIES = ['the staging database lives on pg-staging-2', 'releases go out on Tuesdays', 'the billing cache keeps entries five minutes'];

/** A recall of the first memory: found, with the vector lane used. */
async function recallsStaging(port: number): Promise<void> {
  const { status, body } = await call(port, '/v1/recall', { query: 'where does the staging database live?' });
  expect(status).toBe(200);
  expect(body['backends']).toMatchObject({ vector: { status: 'used' } });
  expect(JSON.stringify(body['records'])).toContain('pg-staging-2');
}

describe('damaged or missing snapshot parts are rebuilt from the log', () => {
  let seeded: ReturnType<typeof tempDir>;
  const dirs: ReturnType<typeof tempDir>[] = [];
  /** a copy of the seeded data dir (snapshots with an HNSW graph), to damage */
  const copy = (): string => {
    const dir = tempDir();
    dirs.push(dir);
    cpSync(seeded.path, dir.path, { recursive: true });
    return dir.path;
  };
  const vectorFiles = (data: string): string => {
    const vector = join(data, 'projections', 'vector');
    return join(vector, readdirSync(vector).find((f) => f.startsWith('files-')) as string);
  };

  beforeAll(async () => {
    seeded = tempDir();
    const port = await freePort();
    const first = await serve(seeded.path, port);
    const written = await call(port, '/v1/memories', { memories: MEMORIES.map((text, i) => ({ id: `m${i}`, kind: 'fact', text })), wait_for_vectors: 20_000 });
    expect(written.body['vectors']).toEqual({ waiting: 0, timed_out: false });
    await stop(first); // snapshots, the HNSW graph included
    rmSync(join(seeded.path, 'kioku.run.json'), { force: true });
  }, 60_000);
  afterAll(() => {
    for (const dir of [seeded, ...dirs]) dir.cleanup();
  });

  /** The data dir opened in this process as a tool opens it: each projection's status, and the warnings. */
  const opened = async (data: string): Promise<{ status: Status[]; warnings: string[] }> => {
    const warnings: string[] = [];
    const store = await openStore({ data, createIfMissing: false, onWarning: (m) => warnings.push(m) });
    try {
      return { status: store.projections.status(), warnings };
    } finally {
      await store.close();
    }
  };

  it('the vector side-file folder removed: ready, rebuilt from the log, recall works, the start-up says so', async () => {
    const data = copy();
    rmSync(vectorFiles(data), { recursive: true, force: true });
    const served = await serve(data, await freePort());
    try {
      expect((await call(served.port, '/v1/health')).body['ready']).toBe(true);
      const vector = (await caughtUp(served.port)).find((p) => p.name === 'vector');
      expect(vector?.source).toBe('genesis');
      await recallsStaging(served.port);
      const readyLine = served.stderr().split('\n').find((l) => l.startsWith('kioku: ready')) ?? '';
      expect(readyLine).toMatch(/rebuilt from the log: vector/);
      expect(served.stderr()).toMatch(/kioku: warning: projection vector: snapshot discarded \(load failed: side file .*\.hnsw missing\)/);
    } finally {
      await stop(served);
    }
    // the snapshot written at the stop is whole again: the next open loads it, with no warning
    const again = await opened(data);
    expect(again.warnings).toEqual([]);
    expect(again.status.every((p) => p.source === 'snapshot')).toBe(true);
  }, 60_000);

  it('one byte flipped in an HNSW file, another projection’s snapshot cut short: each detected, rebuilt from the log, warned', async () => {
    const data = copy();
    const folder = vectorFiles(data);
    const graph = join(folder, readdirSync(folder).find((f) => f.endsWith('.hnsw')) as string);
    const bytes = readFileSync(graph);
    const at = Math.floor(bytes.length / 2); // a vector or a link: hnswlib itself reads it without complaint
    bytes[at] = (bytes[at] as number) ^ 0x01;
    writeFileSync(graph, bytes);
    const keyword = join(data, 'projections', 'keyword', 'snapshot.msgpack');
    truncateSync(keyword, Math.floor(statSync(keyword).size / 2));
    const served = await serve(data, await freePort());
    try {
      const projections = await caughtUp(served.port);
      expect(Object.fromEntries(projections.map((p) => [p.name, p.source]))).toMatchObject({ vector: 'genesis', keyword: 'genesis', records: 'snapshot' });
      await recallsStaging(served.port);
      expect(served.stderr().split('\n').find((l) => l.startsWith('kioku: ready'))).toMatch(/rebuilt from the log: keyword/);
      expect(served.stderr()).toMatch(/kioku: warning: projection keyword: snapshot discarded \(undecodable/);
      // the graph's bytes are checked beside its read, in the background: warned when found
      expect(served.stderr()).toMatch(/kioku: warning: projection vector: snapshot discarded \(load failed: side file .*\.hnsw: checksum mismatch/);
    } finally {
      await stop(served);
    }
  }, 60_000);

  it('kioku rebuild succeeds on a data dir with a missing side-file folder and a truncated snapshot', async () => {
    const data = copy();
    rmSync(vectorFiles(data), { recursive: true, force: true });
    const records = join(data, 'projections', 'records', 'snapshot.msgpack');
    truncateSync(records, Math.floor(statSync(records).size / 3));
    const rebuilt = await runCli(['rebuild', '--data', data, '--json'], { KIOKU_EMBEDDER: 'hash' });
    expect(rebuilt.stderr).not.toMatch(/KIOKU_INTERNAL/);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json).toMatchObject({ ok: true });
    const after = await opened(data);
    expect(after.warnings).toEqual([]);
    expect(after.status.every((p) => p.source === 'snapshot')).toBe(true);
  }, 60_000);
});
