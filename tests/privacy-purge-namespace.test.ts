// A namespace purge (issue 33) shreds every sealed unit of that namespace and tombstones its
// memories, traces, episodes and assets; another namespace is untouched, and the purge refuses
// an id (a namespace purge names none) and a memory that does not exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openKioku } from '../src/kioku.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir('kioku-purge-ns-');
afterAll(() => dir.cleanup());

it('purges every sealed item of one namespace and nothing of another', async () => {
  const k = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
  try {
    await k.writeMemories({ namespace: 'alpha', memories: [{ id: 'a1', kind: 'fact', text: 'alpha walrus secret' }] });
    await k.logEpisode({ namespace: 'alpha', episode_id: 'e1', messages: [{ role: 'user', text: 'alpha heron talk' }] });
    await k.writeMemories({ namespace: 'beta', memories: [{ id: 'b1', kind: 'fact', text: 'beta pelican note' }] });
    await expect(k.purge({ scope: 'namespace', namespace: 'alpha', id: 'a1' })).rejects.toMatchObject({ code: 'KIOKU_INPUT_INVALID' });
    await expect(k.purge({ scope: 'memory', namespace: 'alpha', id: 'nope' })).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND' });
    const answer = await k.purge({ scope: 'namespace', namespace: 'alpha', reason: 'tenant left' });
    expect(answer).toMatchObject({ scope: 'namespace', target: 'alpha', units: 2, items: 2 });
    for (const key of ['ev1:alpha:memory:a1', 'ev1:alpha:episode:e1']) expect(await k.evidence(key)).toMatchObject({ text: '', tombstone: { purged: true } });
    expect((await k.evidence('ev1:beta:memory:b1')).text).toBe('beta pelican note');
    const keys = readFileSync(join(dir.path, 'keys', 'data-keys.jsonl'), 'utf8');
    expect(keys).not.toMatch(/:alpha:/);
    expect(keys).toMatch(/memory:beta:b1/);
  } finally {
    await k.close();
  }
});
