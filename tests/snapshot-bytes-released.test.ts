// A snapshot's bytes are not held once used: msgpackr keeps the last buffer it unpacked and the
// buffer it packs into (module state) until the next use, which after a large snapshot was
// hundreds of megabytes of RSS for nothing in a long-running service.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { packState, readSnapshotFile, unpackState, writeSnapshotFile, type SnapshotFile } from '../projections/snapshot-file.js';
import { tempDir } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** True when nothing keeps `ref`'s target alive any more (after the current job ends and a full collection). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0)); // a WeakRef's target lives until the job that made it ends
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/** A state of a few megabytes, shaped like a projection's (rows of strings and numbers). */
function largeState(): unknown {
  return { rows: Array.from({ length: 40_000 }, (_, i) => ({ key: `ev1:private:memory:m${i}`, text: `item ${i} `.repeat(8), seq: i })) };
}

describe('snapshot bytes', () => {
  it.each([
    ['grown as it packs', 0],
    ['sized from the last snapshot', 4_000_000],
  ])('are released after a state is packed into a buffer %s and written', async (_, sizeHint) => {
    const dir = tempDir();
    try {
      let packed: ReturnType<typeof packState> | undefined = packState(largeState(), sizeHint);
      expect(packed.state.byteLength).toBeGreaterThan(1_000_000);
      const ref = new WeakRef(packed.state.buffer);
      writeSnapshotFile(dir.path, { format: 2, name: 'demo', version: 1, seq: 0, hash: '0'.repeat(64), ...packed });
      packed = undefined;
      expect(await collected(ref)).toBe(true);
    } finally {
      dir.cleanup();
    }
  });

  it('are released after a snapshot file is read and its state unpacked', async () => {
    const dir = tempDir();
    try {
      writeSnapshotFile(dir.path, { format: 2, name: 'demo', version: 1, seq: 0, hash: '0'.repeat(64), ...packState(largeState()) });
      let snap: SnapshotFile | undefined = readSnapshotFile(dir.path, 'demo') as SnapshotFile;
      const ref = new WeakRef(snap.state.buffer);
      const state = unpackState(snap) as { rows: unknown[] };
      expect(state.rows).toHaveLength(40_000);
      snap = undefined;
      expect(await collected(ref)).toBe(true);
    } finally {
      dir.cleanup();
    }
  });
});
