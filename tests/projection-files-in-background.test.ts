// The service opens with its projections' side files (HNSW graphs) still being read: reads are
// answered at once, the projection that waits for its files is `loading`, anything that waits
// for the log (a turn, a write's read-your-writes, the embedding job) waits for it, and a file
// that fails to load costs a rebuild from the log, never a wrong or lost state.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectionRunner, StatsProjection, canonicalDigest, type Projection } from '../projections/index.js';
import type { LogRecord } from '../src/events/index.js';
import { openLog, type EventLog } from '../src/log/index.js';
import { freePort, jobEvent, serveProcess, tempDir } from './helpers.js';

/** Counts records; its count also lives in a side file, read back as slowly as the test says. */
class Counted implements Projection {
  readonly name = 'counted';
  readonly version = 1;
  count = 0;
  fromFile: number | undefined;
  constructor(private readonly gate: Promise<void> = Promise.resolve()) {}
  apply(_record: LogRecord): void {
    this.count += 1;
  }
  snapshot(): unknown {
    return this.count;
  }
  load(state: unknown): void {
    this.count = state as number;
  }
  reset(): void {
    this.count = 0;
    this.fromFile = undefined;
  }
  digest(): string {
    return canonicalDigest(this.count);
  }
  persistFiles(dir: string): void {
    writeFileSync(join(dir, 'count.txt'), String(this.count));
  }
  async restoreFiles(dir: string): Promise<void> {
    await this.gate;
    const n = Number(readFileSync(join(dir, 'count.txt'), 'utf8'));
    if (!Number.isSafeInteger(n)) throw new Error('count.txt is damaged');
    this.fromFile = n;
  }
}

function deferred(): { promise: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

describe('side files read in the background', () => {
  let dir: ReturnType<typeof tempDir>;
  let log: EventLog;
  const snapshots = (): string => join(dir.path, 'projections');
  beforeEach(async () => {
    dir = tempDir();
    log = await openLog(dir.path);
    await log.appendAll(Array.from({ length: 10 }, (_, i) => jobEvent(i)));
    const first = new ProjectionRunner(log, [new Counted(), new StatsProjection()], { snapshotDir: snapshots() });
    await first.open();
    await first.close();
  });
  afterEach(async () => {
    await log.close();
    dir.cleanup();
  });

  it('answers at once, reports the projection loading, and makes waiters wait for its files and catch-up', async () => {
    const gate = deferred();
    const counted = new Counted(gate.promise);
    const runner = new ProjectionRunner(log, [counted, new StatsProjection()], { snapshotDir: snapshots(), restoreFilesInBackground: true });
    await runner.open(); // returns with the files still unread
    expect(runner.status().find((s) => s.name === 'counted')).toMatchObject({ loading: true, seq: 10 });
    expect(runner.status().find((s) => s.name === 'stats')?.loading).toBeUndefined();
    const appended = await log.appendAll([jobEvent(10), jobEvent(11)]);
    let waited = false;
    const waiting = runner.waitFor(appended.at(-1)?.seq ?? 0).then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(waited).toBe(false); // the stats projection has the new events; the loading one has not
    expect(runner.get<StatsProjection>('stats').current().total).toBe(12);
    expect(counted.count).toBe(10);
    gate.release();
    await waiting;
    await runner.restored();
    expect(counted).toMatchObject({ count: 12, fromFile: 10 });
    expect(runner.status().find((s) => s.name === 'counted')?.loading).toBeUndefined();
    await runner.close();
  });

  it('rebuilds from the log when the files fail to load after open, and says why', async () => {
    const folder = join(snapshots(), 'counted');
    const files = readdirSync(folder).find((f) => f.startsWith('files-')) as string;
    writeFileSync(join(folder, files, 'count.txt'), 'xx'); // '10' changed: found by the snapshot's checksum of the file, in the background
    const warnings: string[] = [];
    const counted = new Counted();
    const runner = new ProjectionRunner(log, [counted], { snapshotDir: snapshots(), restoreFilesInBackground: true, onWarning: (m) => warnings.push(m) });
    await runner.open();
    await runner.restored();
    await runner.waitFor(log.head().seq);
    expect(runner.status()[0]).toMatchObject({ source: 'genesis', seq: 10 });
    expect(counted.count).toBe(10);
    expect(warnings.join('\n')).toMatch(/counted: snapshot discarded \(load failed: side file .*count\.txt: checksum mismatch \(file damaged\)\)/);
    await runner.close();
  });

  it('closes only once the files have arrived, and leaves a snapshot that reloads to the same state', async () => {
    const gate = deferred();
    const counted = new Counted(gate.promise);
    const runner = new ProjectionRunner(log, [counted], { snapshotDir: snapshots(), restoreFilesInBackground: true });
    await runner.open();
    await log.append(jobEvent(10));
    const closing = runner.close();
    setTimeout(gate.release, 30);
    await closing;
    const again = new Counted();
    const reopened = new ProjectionRunner(log, [again], { snapshotDir: snapshots() });
    await reopened.open();
    expect(reopened.status()[0]).toMatchObject({ source: 'snapshot', snapshot_seq: 11 });
    expect(again).toMatchObject({ count: 11, fromFile: 11 });
    await reopened.close();
  });

  it('a rebuild asked for while the files are read waits for them, then starts from genesis', async () => {
    const gate = deferred();
    const counted = new Counted(gate.promise);
    const runner = new ProjectionRunner(log, [counted], { snapshotDir: snapshots(), restoreFilesInBackground: true });
    await runner.open();
    const rebuilding = runner.rebuild(['counted']);
    setTimeout(gate.release, 30);
    await rebuilding;
    expect(runner.status()[0]).toMatchObject({ source: 'genesis', seq: 10 });
    expect(counted.count).toBe(10);
    await runner.close();
  });
});

describe('kioku serve opens with its HNSW graphs read in the background', () => {
  it('after a restart, the first recall already searches the vector lane', async () => {
    const dir = tempDir();
    const call = async (port: number, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const stop = async (child: ChildProcess): Promise<void> => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };
    try {
      const port = await freePort();
      const first = await serveProcess(dir.path, port);
      const memories = ['the staging database lives on pg-staging-2', 'releases go out on Tuesdays', 'the billing cache keeps entries five minutes'];
      const written = await call(port, '/v1/memories', {
        memories: memories.map((text, i) => ({ id: `m${i}`, kind: 'fact', text })),
        wait_for_vectors: 20_000,
      });
      expect(written['vectors']).toEqual({ waiting: 0, timed_out: false });
      await stop(first); // snapshots, HNSW graphs included
      const again = await serveProcess(dir.path, port);
      try {
        const recall = await call(port, '/v1/recall', { query: 'where does the staging database live?' });
        expect(recall['backends']).toMatchObject({ vector: { status: 'used' } });
        const health = await call(port, '/v1/health');
        expect(health['ready']).toBe(true);
      } finally {
        await stop(again);
      }
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
