// The runner: snapshots that match the log are used, others are discarded; the tail
// is replayed; live commits are followed; rebuild equals catch-up, digest for digest.
import { readFileSync, writeFileSync } from 'node:fs';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectionRunner, StatsProjection, canonicalDigest, type Projection, type StatsState } from '../projections/index.js';
import {
  packState,
  readSnapshotFile,
  readSnapshotFileAsync,
  snapshotPath,
  unpackState,
  writeSnapshotFile,
  type SnapshotFile,
} from '../projections/snapshot-file.js';
import type { LogRecord } from '../src/events/index.js';
import { openKioku } from '../src/kioku.js';
import { EventLog, openLog, type LevelStore } from '../src/log/index.js';
import { jobEvent, memoryEvent, tempDir } from './helpers.js';

describe('stats projection', () => {
  // given / when / then over a memory-level log; nothing runs until then()
  type Input = Parameters<EventLog['append']>[0];
  function given(events: Input[]) {
    return {
      when: (more: Input[]) => ({
        async then(check: (s: Readonly<StatsState>) => void): Promise<void> {
          const log = await EventLog.open(new MemoryLevel<string, string>() as unknown as LevelStore);
          if (events.length) await log.appendAll(events);
          const runner = new ProjectionRunner(log, [new StatsProjection()]);
          await runner.open();
          const appended = await log.appendAll(more);
          await runner.waitFor(appended.at(-1)?.seq ?? 0);
          check(runner.get<StatsProjection>('stats').current());
          await runner.close();
          await log.close();
        },
      }),
    };
  }

  it('counts events per type and per namespace, including ones appended after open', async () => {
    await given([jobEvent(1), memoryEvent('m1', 'a')])
      .when([memoryEvent('m2', 'b', 'team'), jobEvent(2, 'team')])
      .then((s) => {
        expect(s.total).toBe(4);
        expect(s.by_type['memory.written']).toMatchObject({ count: 2, first_seq: 2, last_seq: 3 });
        expect(s.by_type['job.event']).toMatchObject({ count: 2, first_seq: 1, last_seq: 4 });
        expect(s.by_namespace['team']).toMatchObject({ count: 2, types: { 'memory.written': 1, 'job.event': 1 } });
        expect(s.by_namespace['private']?.count).toBe(2);
        expect(s.bytes).toBeGreaterThan(0);
        expect(s.first?.seq).toBe(1);
        expect(s.last?.seq).toBe(4);
      });
  });
});

describe('projection runner on disk', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  /** Append through the whole store (projections follow and snapshot on close), or the bare log (no projections). */
  async function appendMany(n: number, offset = 0, through: 'store' | 'log' = 'store'): Promise<void> {
    const store = through === 'store' ? await openKioku({ data: dir.path }) : { log: await openLog(dir.path), close: () => Promise.resolve() };
    for (let i = 0; i < n; i += 50) {
      await store.log.appendAll(
        Array.from({ length: Math.min(50, n - i) }, (_, j) =>
          j % 3 ? jobEvent(offset + i + j, j % 2 ? 'team' : 'private') : memoryEvent(`m${offset + i + j}`, 'text'),
        ),
      );
    }
    await store.close();
    if (through === 'log') await store.log.close();
  }

  it('rebuild equals catch-up from a snapshot plus tail, and rebuilding twice gives the same digest', async () => {
    await appendMany(700);
    // Snapshot written on close at 700; more events land after it.
    await appendMany(300, 700, 'log');
    const caughtUp = await openKioku({ data: dir.path });
    expect(caughtUp.projections.status()[0]).toMatchObject({ name: 'stats', source: 'snapshot', seq: 1000, snapshot_seq: 700 });
    const catchUpDigest = caughtUp.projections.digests();
    const first = await caughtUp.projections.rebuild();
    const rebuiltOnce = caughtUp.projections.digests();
    await caughtUp.projections.rebuild(['stats']);
    const rebuiltTwice = caughtUp.projections.digests();
    expect(first[0]).toMatchObject({ source: 'genesis', seq: 1000 });
    expect(rebuiltOnce).toEqual(catchUpDigest);
    expect(rebuiltTwice).toEqual(rebuiltOnce);
    expect(caughtUp.projections.views.stats.current().total).toBe(1000);
    await caughtUp.close();
  });

  it('snapshots and reloads states with more than 65,535 keys', async () => {
    class Wide implements Projection {
      readonly name = 'wide';
      readonly version = 1;
      state: Record<string, number> = {};
      apply(record: LogRecord): void {
        for (let i = 0; i < 70_000; i++) this.state[`k${i}`] = record.seq;
      }
      snapshot(): unknown {
        return this.state;
      }
      load(state: unknown): void {
        this.state = state as Record<string, number>;
      }
      reset(): void {
        this.state = {};
      }
      digest(): string {
        return canonicalDigest(this.state);
      }
    }
    const log = await openLog(dir.path);
    await log.append(jobEvent(1));
    const first = new ProjectionRunner(log, [new Wide()], { snapshotDir: `${dir.path}/projections` });
    await first.open();
    const digest = first.digests()['wide'];
    await first.close();
    const second = new ProjectionRunner(log, [new Wide()], { snapshotDir: `${dir.path}/projections` });
    const status = await second.open();
    expect(status[0]).toMatchObject({ source: 'snapshot', seq: 1 });
    expect(second.digests()['wide']).toBe(digest);
    await second.close();
    await log.close();
  });

  it('snapshots periodically while following the log', async () => {
    const store = await openKioku({ data: dir.path, snapshotEvery: 100, snapshotSpacing: 0 });
    for (let i = 0; i < 5; i++) await store.log.appendAll(Array.from({ length: 60 }, (_, j) => jobEvent(i * 60 + j)));
    await store.projections.waitFor(300);
    expect(store.projections.status()[0]?.snapshot_seq).toBeGreaterThanOrEqual(200);
    await store.close();
  });

  it('spaces periodic snapshots by their own cost: the next waits a multiple of the last one’s duration', async () => {
    // spacing so large that after the first periodic snapshot no second one is due in this test
    const store = await openKioku({ data: dir.path, snapshotEvery: 100, snapshotSpacing: 1e9 });
    for (let i = 0; i < 5; i++) {
      const appended = await store.log.appendAll(Array.from({ length: 60 }, (_, j) => jobEvent(i * 60 + j)));
      await store.projections.waitFor(appended.at(-1)?.seq ?? 0);
    }
    const first = store.projections.status()[0]?.snapshot_seq ?? 0;
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThan(200);
    await store.close(); // close always snapshots
    const again = await openKioku({ data: dir.path });
    expect(again.projections.status()[0]).toMatchObject({ source: 'snapshot', snapshot_seq: 300 });
    await again.close();
  });

  it('builds the records lookups a snapshot load left unbuilt on an idle turn after open, not in the first query', async () => {
    const store = await openKioku({ data: dir.path });
    await store.log.appendAll(Array.from({ length: 20 }, (_, i) => memoryEvent(`m${i}`, `fact number ${i}`)));
    await store.close();
    const again = await openKioku({ data: dir.path });
    const records = again.projections.views.records;
    expect(records.lookupsBuilt).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(records.lookupsBuilt).toBe(true);
    expect(records.document('private', 'memory', 'm3').map((e) => e.id)).toEqual(['m3']);
    await again.close();
  });

  it('discards a snapshot that does not match the log and rebuilds from genesis', async () => {
    await appendMany(100);
    // Replace the store's log with a different one of the same length: the snapshot's hash no longer matches.
    const other = tempDir();
    try {
      const forged = await openKioku({ data: other.path });
      await forged.log.appendAll(Array.from({ length: 100 }, (_, i) => jobEvent(i + 1000)));
      await forged.close();
      const { cpSync, rmSync } = await import('node:fs');
      rmSync(`${dir.path}/log`, { recursive: true });
      cpSync(`${other.path}/log`, `${dir.path}/log`, { recursive: true });
      // with its acknowledged head: a log swapped alone is refused (KIOKU_CHAIN_DAMAGED) before any snapshot is read
      cpSync(`${other.path}/log.acked`, `${dir.path}/log.acked`);
    } finally {
      other.cleanup();
    }
    const warnings: string[] = [];
    const store = await openKioku({ data: dir.path, onWarning: (m) => warnings.push(m) });
    expect(store.projections.status()[0]).toMatchObject({ source: 'genesis', seq: 100 });
    expect(warnings.join('\n')).toMatch(/different record at 100/);
    expect(store.projections.views.stats.current().by_type['memory.written']).toBeUndefined();
    await store.close();
  });

  it('discards a damaged snapshot file and rebuilds', async () => {
    await appendMany(100);
    writeFileSync(snapshotPath(`${dir.path}/projections`, 'stats'), Buffer.from('not msgpack at all'));
    const warnings: string[] = [];
    const store = await openKioku({ data: dir.path, onWarning: (m) => warnings.push(m) });
    expect(store.projections.status()[0]).toMatchObject({ source: 'genesis', seq: 100 });
    expect(warnings.length).toBe(1);
    await store.close();
  });

  it('discards a snapshot whose state does not match its checksum', async () => {
    await appendMany(100);
    const { Packr } = await import('msgpackr');
    const packr = new Packr({ useRecords: false, moreTypes: true, variableMapSize: true });
    const { readFileSync } = await import('node:fs');
    const file = snapshotPath(`${dir.path}/projections`, 'stats');
    const snap = packr.unpack(readFileSync(file)) as { state: Uint8Array };
    const state = packr.unpack(snap.state) as StatsState;
    state.total = 999_999;
    snap.state = packr.pack(state);
    writeFileSync(file, packr.pack(snap));
    const warnings: string[] = [];
    const store = await openKioku({ data: dir.path, onWarning: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/checksum mismatch/);
    expect(store.projections.views.stats.current().total).toBe(100);
    await store.close();
  });
});

describe('snapshot files', () => {
  it('are written with the packed state as it is and read back field for field, small or large', async () => {
    const { Packr } = await import('msgpackr');
    const packr = new Packr({ useRecords: false, moreTypes: true, variableMapSize: true });
    const dir = tempDir();
    try {
      for (const size of [0, 5, 300, 70_000, 3_000_000]) {
        const snap: SnapshotFile = {
          format: 2,
          name: 'demo',
          version: 3,
          seq: 42,
          hash: 'ab'.repeat(32),
          checksum: 'crc32:00000000',
          state: Buffer.alloc(size, size % 251),
          encoding: 'msgpack-records',
          files: 'files-42',
        };
        writeSnapshotFile(dir.path, snap);
        const { state, ...fields } = readSnapshotFile(dir.path, 'demo') as SnapshotFile;
        const { state: expected, ...expectedFields } = packr.unpack(packr.pack(snap)) as SnapshotFile;
        expect(fields).toEqual(expectedFields);
        expect(Buffer.compare(Buffer.from(state), Buffer.from(expected))).toBe(0); // (toEqual walks a buffer byte by byte)
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe('snapshot files read in chunks (checksummed as they arrive)', () => {
  const write = (dir: string, state: unknown): void =>
    writeSnapshotFile(dir, { format: 2, name: 'demo', version: 1, seq: 7, hash: 'cd'.repeat(32), ...packState(state) });

  it('read as the whole-file reader reads them, and unpack to the state, small or over several chunks', async () => {
    const dir = tempDir();
    try {
      for (const size of [0, 100, 4 * 1024 * 1024 - 50, 9 * 1024 * 1024 + 3]) {
        const state = { blob: Buffer.alloc(size, size % 251), n: size };
        write(dir.path, state);
        const whole = readSnapshotFile(dir.path, 'demo') as SnapshotFile;
        const chunked = (await readSnapshotFileAsync(dir.path, 'demo')) as SnapshotFile;
        expect(Buffer.compare(Buffer.from(chunked.state), Buffer.from(whole.state))).toBe(0);
        expect({ ...chunked, state: null }).toEqual({ ...whole, state: null });
        const back = unpackState(chunked) as typeof state;
        expect(back.n).toBe(size);
        expect(Buffer.compare(Buffer.from(back.blob), state.blob)).toBe(0); // (toEqual walks a buffer byte by byte)
        if (size > 0) {
          // the checksum was taken during the read: the bytes are not walked again (a byte changed
          // in memory afterwards goes unnoticed, which it would not if the read had found no state)
          const again = (await readSnapshotFileAsync(dir.path, 'demo')) as SnapshotFile;
          again.state[again.state.length - 1] = (again.state[again.state.length - 1] as number) ^ 0xff;
          expect(() => unpackState(again)).not.toThrow(/checksum/);
        }
      }
    } finally {
      dir.cleanup();
    }
  });

  it('a byte changed anywhere in the state, in the first chunk or a later one, is a checksum mismatch', async () => {
    const dir = tempDir();
    try {
      write(dir.path, { blob: Buffer.alloc(9 * 1024 * 1024, 3) });
      const file = snapshotPath(dir.path, 'demo');
      const good = readFileSync(file);
      for (const at of [200, 4 * 1024 * 1024 + 1, good.length - 1]) {
        const bytes = Buffer.from(good);
        bytes[at] = (bytes[at] as number) ^ 0x01;
        writeFileSync(file, bytes);
        const snap = (await readSnapshotFileAsync(dir.path, 'demo')) as SnapshotFile;
        expect(() => unpackState(snap)).toThrow(/checksum mismatch/);
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe('large snapshot states', () => {
  /** Counts records and carries 10 MB of bytes. */
  class Bulky implements Projection {
    readonly name = 'bulky';
    readonly version = 1;
    seen = 0;
    blob: Buffer = Buffer.alloc(10 * 1024 * 1024, 7);
    loads = 0;
    apply(): void {
      this.seen += 1;
    }
    snapshot(): unknown {
      return { seen: this.seen, blob: this.blob };
    }
    load(state: unknown): void {
      this.loads += 1;
      ({ seen: this.seen, blob: this.blob } = state as { seen: number; blob: Buffer });
    }
    reset(): void {
      this.seen = 0;
      this.blob = Buffer.alloc(10 * 1024 * 1024, 7);
    }
    digest(): string {
      return String(this.seen);
    }
  }

  it('a good one loads; a damaged one is discarded and rebuilt', async () => {
    const dir = tempDir();
    try {
      const log = await openLog(dir.path);
      await log.appendAll([jobEvent(1), jobEvent(2), jobEvent(3)]);
      const snapshotDir = `${dir.path}/projections`;
      const first = new ProjectionRunner(log, [new Bulky()], { snapshotDir });
      await first.open();
      await first.close();

      const good = new Bulky();
      const again = new ProjectionRunner(log, [good], { snapshotDir });
      expect((await again.open())[0]).toMatchObject({ source: 'snapshot', seq: 3 });
      expect(good.loads).toBe(1);
      await again.close();

      const file = snapshotPath(snapshotDir, 'bulky');
      const bytes = readFileSync(file);
      bytes[bytes.length - 1000] = (bytes[bytes.length - 1000] as number) ^ 0xff; // inside the packed state
      writeFileSync(file, bytes);
      const warnings: string[] = [];
      const damaged = new Bulky();
      const third = new ProjectionRunner(log, [damaged], { snapshotDir, onWarning: (m) => warnings.push(m) });
      expect((await third.open())[0]).toMatchObject({ source: 'genesis', seq: 3 });
      expect(damaged.loads).toBe(0); // the checksum is checked before anything is unpacked
      expect(damaged.seen).toBe(3);
      expect(warnings.join('\n')).toMatch(/checksum mismatch/);
      await third.close();
      await log.close();
    } finally {
      dir.cleanup();
    }
  });
});

describe('a failing projection', () => {
  it('stops at its last good position while the others go on', async () => {
    class Fragile implements Projection {
      readonly name = 'fragile';
      readonly version = 1;
      seen = 0;
      apply(record: LogRecord): void {
        if (record.seq === 3) throw new Error('boom');
        this.seen += 1;
      }
      snapshot(): unknown {
        return this.seen;
      }
      load(state: unknown): void {
        this.seen = state as number;
      }
      reset(): void {
        this.seen = 0;
      }
      digest(): string {
        return String(this.seen);
      }
    }
    const db = new MemoryLevel<string, string>() as unknown as LevelStore;
    const log = await EventLog.open(db);
    await log.appendAll([jobEvent(1), jobEvent(2), jobEvent(3), jobEvent(4)]);
    const warnings: string[] = [];
    const runner = new ProjectionRunner(log, [new Fragile(), new StatsProjection()], { onWarning: (m) => warnings.push(m) });
    const status = await runner.open();
    expect(status.find((s) => s.name === 'fragile')).toMatchObject({ seq: 2, failed: { code: 'KIOKU_PROJECTION_FAILED', seq: 3 } });
    expect(status.find((s) => s.name === 'stats')).toMatchObject({ seq: 4 });
    expect(warnings[0]).toMatch(/fragile failed at seq 3/);
    await runner.close();
    await log.close();
  });

  it('refuses to rebuild a projection that is not registered', async () => {
    const db = new MemoryLevel<string, string>() as unknown as LevelStore;
    const log = await EventLog.open(db);
    const runner = new ProjectionRunner(log, [new StatsProjection()]);
    await runner.open();
    await expect(runner.rebuild(['nope'])).rejects.toMatchObject({ code: 'KIOKU_PROJECTION_UNKNOWN' });
    await runner.close();
  });
});
