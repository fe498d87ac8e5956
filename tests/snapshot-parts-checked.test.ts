// A snapshot lists its side files with their sizes and checksums, and carries a checksum of its own
// fields: a part missing, cut short or changed, or a changed field, discards the snapshot before
// the projection reads any of it, and the projection is folded again from the log.
import { readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectionRunner, canonicalDigest, type Projection } from '../projections/index.js';
import { readSnapshotFile, snapshotPath, writeSnapshotFile, type SnapshotFile } from '../projections/snapshot-file.js';
import type { LogRecord } from '../src/events/index.js';
import { openLog, type EventLog } from '../src/log/index.js';
import { jobEvent, tempDir } from './helpers.js';

/** Counts records; its count also lives in two side files, and it notes whether it ever read them. */
class Counted implements Projection {
  readonly name = 'counted';
  readonly version = 1;
  count = 0;
  filesRead = 0;
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
  }
  digest(): string {
    return canonicalDigest(this.count);
  }
  persistFiles(dir: string): void {
    writeFileSync(join(dir, 'count.txt'), String(this.count));
    writeFileSync(join(dir, 'graph.bin'), Buffer.alloc(64 * 1024, this.count));
  }
  restoreFiles(dir: string): Promise<void> {
    this.filesRead += 1;
    return Promise.resolve(void readFileSync(join(dir, 'count.txt')));
  }
}

describe('snapshot parts checked before they are read', () => {
  let dir: ReturnType<typeof tempDir>;
  let log: EventLog;
  const snapshots = (): string => join(dir.path, 'projections');
  const sideFolder = (): string => {
    const folder = join(snapshots(), 'counted');
    return join(folder, readdirSync(folder).find((f) => f.startsWith('files-')) as string);
  };
  /** Open a runner over the snapshots; its projection, warnings and status. */
  const open = async (background = false): Promise<{ counted: Counted; warnings: string[]; runner: ProjectionRunner }> => {
    const warnings: string[] = [];
    const counted = new Counted();
    const runner = new ProjectionRunner(log, [counted], { snapshotDir: snapshots(), restoreFilesInBackground: background, onWarning: (m) => warnings.push(m) });
    await runner.open();
    await runner.restored();
    await runner.waitFor(log.head().seq);
    return { counted, warnings, runner };
  };

  beforeEach(async () => {
    dir = tempDir();
    log = await openLog(dir.path);
    await log.appendAll(Array.from({ length: 10 }, (_, i) => jobEvent(i)));
    const first = new ProjectionRunner(log, [new Counted()], { snapshotDir: snapshots() });
    await first.open();
    await first.close();
  });
  afterEach(async () => {
    await log.close();
    dir.cleanup();
  });

  it('lists each side file with its size and checksum', () => {
    const snap = readSnapshotFile(snapshots(), 'counted') as SnapshotFile;
    expect(snap.parts).toEqual({
      'count.txt': { size: 2, checksum: expect.stringMatching(/^(crc32|sha256):[0-9a-f]+$/) },
      'graph.bin': { size: 64 * 1024, checksum: expect.stringMatching(/^(crc32|sha256):[0-9a-f]+$/) },
    });
  });

  it('loads whole parts from the snapshot', async () => {
    const { counted, warnings, runner } = await open();
    expect(warnings).toEqual([]);
    expect(runner.status()[0]).toMatchObject({ source: 'snapshot', seq: 10 });
    expect(counted).toMatchObject({ count: 10, filesRead: 1 });
    await runner.close();
  });

  const damages: [string, () => void, RegExp][] = [
    ['the folder removed', () => rmSync(sideFolder(), { recursive: true }), /load failed: side file .*count\.txt missing/],
    ['a part removed', () => rmSync(join(sideFolder(), 'graph.bin')), /load failed: side file .*graph\.bin missing/],
    ['a part cut short', () => truncateSync(join(sideFolder(), 'graph.bin'), 1000), /load failed: side file .*graph\.bin is 1000 bytes, 65536 were written/],
  ];
  for (const [what, damage, why] of damages) {
    it(`${what}: discarded before anything is read, rebuilt from the log, with the reason`, async () => {
      damage();
      const { counted, warnings, runner } = await open();
      expect(counted).toMatchObject({ count: 10, filesRead: 0 });
      expect(runner.status()[0]).toMatchObject({ source: 'genesis', seq: 10, discarded: expect.stringMatching(why) });
      expect(warnings.join('\n')).toMatch(new RegExp(`projection counted: snapshot discarded \\(${why.source}\\); rebuilding from genesis`));
      await runner.close();
    });
  }

  for (const background of [false, true]) {
    it(`one byte changed in a part (${background ? 'read in the background' : 'read at open'}): never handed to the projection, rebuilt, warned`, async () => {
      const graph = join(sideFolder(), 'graph.bin');
      const bytes = readFileSync(graph);
      bytes[40_000] = (bytes[40_000] as number) ^ 0x01;
      writeFileSync(graph, bytes);
      const { counted, warnings, runner } = await open(background);
      expect(counted).toMatchObject({ count: 10, filesRead: 0 });
      expect(runner.status()[0]).toMatchObject({ source: 'genesis', seq: 10 });
      expect(warnings.join('\n')).toMatch(/projection counted: snapshot discarded \(load failed: side file .*graph\.bin: checksum mismatch \(file damaged\)\)/);
      await runner.close();
      // the snapshot written at the close is whole: the next open takes it
      const again = await open();
      expect(again.warnings).toEqual([]);
      expect(again.runner.status()[0]).toMatchObject({ source: 'snapshot', seq: 10 });
      await again.runner.close();
    });
  }

  it('a byte changed in the snapshot file’s own fields is caught by their checksum', async () => {
    const file = snapshotPath(snapshots(), 'counted');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('graph.bin') + 2; // the part's name: read as another file's otherwise
    bytes[at] = (bytes[at] as number) ^ 0x01;
    writeFileSync(file, bytes);
    expect(readSnapshotFile(snapshots(), 'counted')).toEqual({ invalid: 'fields checksum mismatch (file damaged?)' });
    const { counted, warnings, runner } = await open();
    expect(counted).toMatchObject({ count: 10, filesRead: 0 });
    expect(warnings.join('\n')).toMatch(/snapshot discarded \(fields checksum mismatch/);
    await runner.close();
  });

  it('a snapshot from before parts were listed still loads, and is written again with them', async () => {
    const old = readSnapshotFile(snapshots(), 'counted') as SnapshotFile;
    delete old.parts;
    writeSnapshotFile(snapshots(), old);
    expect((readSnapshotFile(snapshots(), 'counted') as SnapshotFile).parts).toBeUndefined();
    const { counted, warnings, runner } = await open();
    expect(warnings).toEqual([]);
    expect(counted).toMatchObject({ count: 10, filesRead: 1 });
    await runner.close();
    expect((readSnapshotFile(snapshots(), 'counted') as SnapshotFile).parts).toHaveProperty('graph.bin');
  });
});
