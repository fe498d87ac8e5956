// Found by `npm run chaos -- --scenario disk` (3 runs of 6): a LevelDB batch refused on a full
// disk can leave a torn record in LevelDB's journal (a short write: the bytes up to the last
// page the file system still had). LevelDB fails that batch but keeps writing to the same journal,
// its record framing now off, so once space came back every later batch was acknowledged and then
// dropped when the journal was read at the next open: 388 acknowledged writes lost, the service
// refusing to start (KIOKU_LOG_TRUNCATED). A real LevelDB on a real, small tmpfs (root only).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLog } from '../src/log/index.js';
import { fillDisk } from '../tools/chaos/disk.js';
import { jobEvent, tempDir } from './helpers.js';

const root = tempDir('kioku-torn-journal-');
const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', root.path]).status === 0;
if (!mounted) console.warn('torn-journal test skipped: mounting a tmpfs needs root');
afterAll(() => {
  if (mounted) spawnSync('umount', [root.path]);
  root.cleanup();
});

describe.skipIf(!mounted)('a batch refused on a full disk', () => {
  it('costs no acknowledged write: every append that resolved is read back after a reopen', async () => {
    const data = join(root.path, 'data');
    mkdirSync(data);
    const filler = join(root.path, 'filler');
    const log = await openLog(data);
    const acknowledged: number[] = [];
    for (let i = 0; i < 20; i++) acknowledged.push((await log.append(jobEvent(i))).seq);

    // the disk fills: appends go on while the journal's last page has room, then one is refused
    fillDisk(filler);
    let refused: { code?: string } | undefined;
    for (let i = 20; i < 5_000 && !refused; i++) {
      try {
        acknowledged.push((await log.append(jobEvent(i))).seq);
      } catch (err) {
        refused = err as { code?: string };
      }
    }
    expect(refused?.code).toBe('KIOKU_STORAGE_FULL');

    // space comes back while the service runs: whatever it acknowledges now must survive a reopen
    rmSync(filler);
    for (let i = 5_000; i < 5_040; i++) {
      try {
        acknowledged.push((await log.append(jobEvent(i))).seq);
      } catch (err) {
        expect((err as { code?: string }).code).toBe('KIOKU_STORAGE_FULL'); // refused until a restart: fine
      }
    }
    await log.close();

    const reopened = await openLog(data);
    try {
      expect(reopened.head().seq).toBeGreaterThanOrEqual(Math.max(...acknowledged));
      for (const seq of acknowledged) expect(await reopened.get(seq), `seq ${seq}`).toBeDefined();
      // and it writes again after the restart
      expect((await reopened.append(jobEvent(9_999))).seq).toBe(reopened.head().seq);
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
