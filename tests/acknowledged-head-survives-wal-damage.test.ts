// Issue 29 item 3: one flipped byte in LevelDB's write-ahead log made LevelDB drop acknowledged
// records on recovery (and its head meta with them), verify said clean and the next write reused
// an acknowledged seq. The head Kioku acknowledged is kept in <data>/log.acked: verify must call
// such a log truncated (exit 1) and the service must refuse to write on it.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ackedHeadFile, logSublevels, openLevelStore, openLog, readAckedHead, seqKey } from '../src/log/index.js';
import { freePort, jobEvent, runCli, serveProcess, tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

const exited = (child: ChildProcess): Promise<unknown> => new Promise((r) => child.once('exit', r));

async function writeMemories(url: string, count: number): Promise<number> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/v1/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memories: [{ id: `m${i}`, kind: 'fact', text: `fact ${i}: the deploy runbook step ${i} ${'lorem ipsum '.repeat(15)}` }] }),
    });
    expect(res.status).toBe(200);
  }
  const health = (await (await fetch(`${url}/v1/health`)).json()) as { head: { seq: number; hash: string } };
  return health.head.seq;
}

/** The raw head meta and last record of the LevelDB log, read without opening it as a log. */
async function rawHead(dataDir: string): Promise<{ meta: string | undefined; last: number }> {
  const db = await openLevelStore(dataDir, { createIfMissing: false });
  try {
    const { meta, records } = logSublevels(db);
    let last = 0;
    for await (const key of records.keys({ reverse: true, limit: 1 })) last = Number(key);
    return { meta: await meta.get('head'), last };
  } finally {
    await db.close();
  }
}

describe('a flipped byte in the write-ahead log', () => {
  it('is reported by verify as truncated (exit 1), and the service refuses to write rather than reuse an acknowledged seq', async () => {
    const port = await freePort();
    const server = await serveProcess(dir.path, port);
    const acknowledged = await writeMemories(`http://127.0.0.1:${port}`, 40);
    expect(acknowledged).toBeGreaterThanOrEqual(40);
    server.kill('SIGKILL');
    await exited(server);

    const wal = readdirSync(join(dir.path, 'log')).filter((f) => f.endsWith('.log'));
    expect(wal).toHaveLength(1);
    const file = join(dir.path, 'log', wal[0] as string);
    const bytes = readFileSync(file);
    expect(bytes.length).toBeGreaterThan(10_000);
    // a third into the journal's last 32 KiB block: LevelDB drops the rest of a block whose checksum
    // fails, so the tail goes (the issue's ~20 KB journal is one block; the embedding job may add one)
    const lastBlock = Math.floor((bytes.length - 1) / 32_768) * 32_768;
    bytes[lastBlock + Math.floor((bytes.length - lastBlock) / 3)]! ^= 0xff;
    writeFileSync(file, bytes);

    const verify = await runCli(['verify', '--data', dir.path, '--json']);
    expect(verify.code).toBe(1);
    const report = verify.json as { ok: boolean; head: { seq: number }; acknowledged: { seq: number }; damage: { seq: number; kind: string; detail: string } };
    expect(report.ok).toBe(false);
    // at least what health showed (the embedding job may have appended after it)
    expect(report.acknowledged.seq).toBeGreaterThanOrEqual(acknowledged);
    // LevelDB kept what preceded the damaged record and dropped the rest, head meta included
    expect(report.head.seq).toBeLessThan(acknowledged);
    expect(report.damage).toMatchObject({ seq: report.head.seq + 1, kind: 'truncated' });
    expect(report.damage.detail).toContain(`${report.acknowledged.seq} was acknowledged`);
    const human = await runCli(['verify', '--data', dir.path]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/chain DAMAGED at seq \d+: truncated/);
    expect(human.stdout).toContain(`acknowledged head: ${report.acknowledged.seq}`);

    const before = await rawHead(dir.path);
    const refused = await serveProcess(dir.path, port).then(
      (child) => {
        child.kill('SIGKILL');
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(refused).toContain('[KIOKU_LOG_TRUNCATED]');
    expect(refused).toContain(`seq ${report.acknowledged.seq} was acknowledged`);
    expect(refused).toMatch(/restore the log from a backup/);
    expect(refused).not.toMatch(/\n\s+at /);
    // nothing was written: the next seq the surviving log would give out (an acknowledged one) is still unused
    expect(await rawHead(dir.path)).toEqual(before);
    expect(before.last).toBe(report.head.seq);
  }, 120_000);
});

describe('the acknowledged-head file', () => {
  it('follows every durable group, survives a flipped byte in its newest slot, and lets a log ahead of it open', async () => {
    const log = await openLog(dir.path);
    // at least two durable groups, so both slots of the file hold a head (concurrent appends made
    // in one tick share one group since the commit queue yields before its first group)
    await log.append(jobEvent(0));
    await Promise.all(Array.from({ length: 49 }, (_, i) => log.append(jobEvent(i + 1))));
    const head = log.head();
    expect(readAckedHead(ackedHeadFile(dir.path))).toEqual({ head, damaged: false });
    await log.close();

    // flip a byte in each slot in turn: the other, one commit older or the same, is read instead
    const file = ackedHeadFile(dir.path);
    const original = readFileSync(file);
    for (const offset of [20, 128 + 20]) {
      const bytes = Buffer.from(original);
      bytes[offset]! ^= 0x01;
      writeFileSync(file, bytes);
      const read = readAckedHead(file);
      expect(read.damaged).toBe(true);
      expect(read.head?.seq).toBeLessThanOrEqual(head.seq);
      expect(read.head?.seq).toBeGreaterThan(0);
    }
    writeFileSync(file, original);

    // a crash between LevelDB's write and the head file's leaves LevelDB ahead: that log opens and moves the file on
    writeFileSync(file, Buffer.alloc(256)); // as if no head had reached it yet
    const again = await openLog(dir.path);
    expect(again.head()).toEqual(head);
    expect(readAckedHead(file).head).toEqual(head);
    await again.close();
  });

  it('refuses to open a log whose record at the acknowledged seq is another one', async () => {
    const log = await openLog(dir.path);
    for (let i = 0; i < 5; i++) await log.append(jobEvent(i));
    await log.close();
    // replace the store with another chain of the same length: the acknowledged hash no longer matches
    const other = tempDir();
    try {
      const forged = await openLog(other.path);
      for (let i = 0; i < 5; i++) await forged.append(jobEvent(100 + i));
      await forged.close();
      const src = await openLevelStore(other.path);
      const dst = await openLevelStore(dir.path);
      for (let s = 1; s <= 5; s++) await logSublevels(dst).records.put(seqKey(s), (await logSublevels(src).records.get(seqKey(s))) as Uint8Array);
      await logSublevels(dst).meta.put('head', (await logSublevels(src).meta.get('head')) as string);
      await src.close();
      await dst.close();
    } finally {
      other.cleanup();
    }
    await expect(openLog(dir.path)).rejects.toMatchObject({ code: 'KIOKU_CHAIN_DAMAGED', details: { seq: 5, kind: 'modified' } });
    const verify = await runCli(['verify', '--data', dir.path, '--json']);
    expect(verify.code).toBe(1);
    expect(verify.json).toMatchObject({ ok: false, damage: { seq: 5, kind: 'modified' } });
  });
});
