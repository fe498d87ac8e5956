// A write refused before it reaches the store (the data keys or the vault could not be made
// durable on a full disk) is a 507-style refusal, and the next write still commits: found by the
// full-disk test once sealing (issue 33) added a pre-commit hook — a group refused before the
// commit queue's first await left the queue stuck, and every later write hung.
import { describe, expect, it } from 'vitest';
import { MemoryEventLog } from '../src/log/index.js';

const note = (text: string) => ({ type: 'job.event' as const, ns: 'private', actor: 'test', data: { job_id: 'j1', stage: 'embed', status: 'running' as const, detail: text } });

describe('a write refused beside the log', () => {
  it('is KIOKU_STORAGE_FULL on a full disk, and the writes after it commit', async () => {
    const log = new MemoryEventLog();
    let full = true;
    log.addBeforeCommit(() => {
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    await expect(log.append(note('first'))).rejects.toMatchObject({ code: 'KIOKU_STORAGE_FULL' });
    await expect(log.append(note('second'))).rejects.toMatchObject({ code: 'KIOKU_STORAGE_FULL' });
    full = false;
    const settled = await Promise.race([log.append(note('third')).then(() => 'committed'), new Promise((r) => setTimeout(() => r('stuck'), 5_000))]);
    expect(settled).toBe('committed');
    expect(log.head().seq).toBe(1);
    await log.close();
  });

  it('passes any other failure through unchanged', async () => {
    const log = new MemoryEventLog();
    const boom = new Error('keys file is read-only');
    let fail = true;
    log.addBeforeCommit(() => {
      if (fail) throw boom;
    });
    await expect(log.append(note('first'))).rejects.toBe(boom);
    fail = false;
    await log.append(note('second'));
    expect(log.head().seq).toBe(1);
    await log.close();
  });
});
