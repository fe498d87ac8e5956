// The one assembly below the facade (src/store.ts): beginStore opens the log at once and
// leaves the projections behind it until ready() — what a service does while it listens —
// and openStore is the two steps in one, so both build the same store.
import { describe, expect, it } from 'vitest';
import { beginStore, openStore } from '../src/store.js';
import { memoryEvent, tempDir } from './helpers.js';

describe('opening a store', () => {
  it('opens the log first, catches the projections up in ready(), and builds what openStore builds', async () => {
    const dir = tempDir();
    try {
      const first = await openStore({ data: dir.path });
      await first.log.appendAll([memoryEvent('m1', 'roll back with scripts/rollback.sh'), memoryEvent('m2', 'deploys go out on Tuesdays')]);
      await first.close();

      const opening = await beginStore({ data: dir.path });
      expect(opening.log.head().seq).toBe(2);
      expect(opening.projections.views.records.get('ev1:private:memory:m1')).toBeUndefined();
      const progress: number[] = [];
      const store = await opening.ready((done) => progress.push(done));
      expect(store.log).toBe(opening.log);
      expect(store.projections.views.records.get('ev1:private:memory:m1')).toMatchObject({ text: 'roll back with scripts/rollback.sh' });
      expect(store.projections.status().every((s) => s.seq === 2)).toBe(true);
      await store.close();
      expect(store.log.isClosed).toBe(true);

      const again = await openStore({ data: dir.path });
      expect(again.projections.views.records.get('ev1:private:memory:m2')).toMatchObject({ text: 'deploys go out on Tuesdays' });
      await again.close();
    } finally {
      dir.cleanup();
    }
  });
});
