// Memory writes that arrive while another command runs are decided together and appended in one
// durable write — and still behave exactly as if they had run one after another: each call is
// accepted or refused on its own, sees what the earlier calls of its group wrote, and lands whole.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isKiokuError } from '../src/errors.js';
import { memoryStore, recordsOfType } from './helpers.js';

type Store = Awaited<ReturnType<typeof memoryStore>>;
let store: Store;
beforeEach(async () => {
  store = await memoryStore();
});
afterEach(async () => store.close());

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
const codeOf = (o: object) => ('error' in o && isKiokuError(o.error) ? o.error.code : undefined);

describe('memory writes in groups', () => {
  it('shares durable writes among concurrent calls: 64 calls, a handful of commits, every one readable', async () => {
    let commits = 0;
    store.log.onCommit(() => commits++);
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => store.knowledge.writeMemories({ memories: [{ id: `m${i}`, kind: 'fact', text: `fact number ${i}` }] })),
    );
    expect(results.map((r) => r.written)).toEqual(Array.from({ length: 64 }, (_, i) => [`m${i}`]));
    expect(commits).toBeLessThanOrEqual(4); // the first call alone, then the rest together
    expect(await recordsOfType(store.log, 'memory.written')).toHaveLength(64);
    for (let i = 0; i < 64; i++) expect(store.projections.views.records.get(`ev1:private:memory:m${i}`)?.text).toBe(`fact number ${i}`);
  });

  it('decides each call against what earlier calls of its group wrote: a conflict is refused alone, a repeat is idempotent', async () => {
    const busy = store.knowledge.writeMemories({ memories: [{ id: 'first', kind: 'fact', text: 'holds the queue' }] });
    const a = settle(store.knowledge.writeMemories({ memories: [{ id: 'x', kind: 'fact', text: 'the original' }] }));
    const b = settle(store.knowledge.writeMemories({ memories: [{ id: 'x', kind: 'fact', text: 'something else' }] }));
    const c = settle(store.knowledge.writeMemories({ memories: [{ id: 'x', kind: 'fact', text: 'the original' }] }));
    const d = settle(store.knowledge.writeMemories({ memories: [{ id: 'y', kind: 'fact', text: 'unrelated' }] }));
    await busy;
    const [ra, rb, rc, rd] = await Promise.all([a, b, c, d]);
    expect(ra).toMatchObject({ value: { written: ['x'] } });
    expect(codeOf(rb)).toBe('KIOKU_ID_CONFLICT');
    expect(rc).toMatchObject({ value: { ids: ['x'], written: [] } });
    expect(rd).toMatchObject({ value: { written: ['y'] } });
    const written = (await recordsOfType(store.log, 'memory.written')).map((r) => (r.data as { id: string }).id);
    expect(written).toEqual(['first', 'x', 'y']);
  });

  it('sees supersedes of earlier calls: a memory superseded by one call cannot be superseded again by the next', async () => {
    await store.knowledge.writeMemories({ memories: [{ id: 'old', kind: 'preference', text: 'use tabs' }] });
    const busy = store.knowledge.writeMemories({ memories: [{ id: 'busy', kind: 'fact', text: 'holds the queue' }] });
    const first = settle(store.knowledge.writeMemories({ memories: [{ id: 'new1', kind: 'preference', text: 'use two spaces', supersede_ids: ['old'] }] }));
    const second = settle(store.knowledge.writeMemories({ memories: [{ id: 'new2', kind: 'preference', text: 'use four spaces', supersede_ids: ['old'] }] }));
    const onNew = settle(
      store.knowledge.writeMemories({ memories: [{ id: 'new3', kind: 'preference', text: 'two spaces, really', supersede_ids: ['new1'] }] }),
    );
    await busy;
    expect(await first).toMatchObject({ value: { written: ['new1'] } });
    expect(codeOf(await second)).toBe('KIOKU_RETIRED');
    expect(await onNew).toMatchObject({ value: { written: ['new3'] } }); // new1 was written earlier in the group: it is active
    expect(store.projections.views.records.get('ev1:private:memory:old')?.superseded_by).toBe('new1');
    expect(store.projections.views.records.get('ev1:private:memory:new1')?.superseded_by).toBe('new3');
  });

  it('refuses invalid input at the call, before it joins a group', async () => {
    await expect(store.knowledge.writeMemories({ memories: [] })).rejects.toMatchObject({ code: 'KIOKU_INPUT_INVALID' });
    expect(await recordsOfType(store.log, 'memory.written')).toHaveLength(0);
  });
});

describe('memory writes when the store cannot take its turn', () => {
  it('refuses the waiting calls with the store error, and the next calls go through once it is back', async () => {
    const s = await memoryStore();
    try {
      let down = true;
      const unavailable = Object.assign(new Error('the store is away'), { code: 'KIOKU_STORE_UNAVAILABLE' });
      // a shared store's cross-node lock that cannot be taken (the database is down)
      (s.log as unknown as { exclusive: <T>(name: string, task: () => Promise<T>) => Promise<T> }).exclusive = async (_name, task) => {
        if (down) throw unavailable;
        return task();
      };
      const refused = await Promise.allSettled([
        s.knowledge.writeMemories({ memories: [{ id: 'a', kind: 'fact', text: 'first' }] }),
        s.knowledge.writeMemories({ memories: [{ id: 'b', kind: 'fact', text: 'second' }] }),
      ]);
      expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      down = false;
      const ok = await s.knowledge.writeMemories({ memories: [{ id: 'c', kind: 'fact', text: 'third' }] });
      expect(ok.written).toEqual(['c']);
      expect((await recordsOfType(s.log, 'memory.written')).map((r) => (r.data as { id: string }).id)).toEqual(['c']);
    } finally {
      await s.close();
    }
  });
});
