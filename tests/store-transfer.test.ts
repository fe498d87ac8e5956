// A library moves from a laptop (LevelDB) to a team store (PostgreSQL) and back with
// `kioku log export` / `kioku log import`: byte for byte, verified on both sides, and the
// projections rebuilt from the imported chain have the same digests as the original's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store.js';
import { openKioku } from '../src/kioku.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { runCli, tempDir } from './helpers.js';
import { PG_AVAILABLE, startPgCluster, type PgCluster } from './support/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  if (PG_AVAILABLE) cluster = await startPgCluster();
}, 60_000);
afterAll(() => cluster?.destroy());

/** A small library written through the facade: memories, a supersede, a forget, a turn, vectors. */
async function buildLibrary(dataDir: string): Promise<void> {
  const kioku = await openKioku({ data: dataDir, embedder: new HashedEmbedder(32), backgroundIndexing: false });
  try {
    await kioku.writeMemories({
      memories: [
        { id: 'deploy', kind: 'fact', text: 'Deploys go out on Tuesdays after the freeze lifts', terms: ['release'] },
        { id: 'keys', kind: 'fact', text: 'The signing key rotates every Friday' },
        { id: 'old', kind: 'preference', text: 'Use tabs' },
        { id: 'gone', kind: 'fact', text: 'A temporary note' },
      ],
    });
    await kioku.writeMemories({ memories: [{ id: 'new', kind: 'preference', text: 'Use two spaces' }] });
    await kioku.supersede('new', { superseded_ids: ['old'] });
    await kioku.forget('gone', { reason: 'temporary' });
    const session = await kioku.openSession({ agent: 'test' });
    const turn = await kioku.startTurn({ session_id: session.session_id, query: 'when do deploys go out?' });
    await kioku.completeTurn(turn.turn_id, { answer: 'On Tuesdays.' });
    await kioku.core.indexer.run();
  } finally {
    await kioku.close();
  }
}

describe.runIf(PG_AVAILABLE)('moving a chain between LevelDB and PostgreSQL', () => {
  it('imports byte for byte, verifies on both sides, and rebuilds to identical projection digests', async () => {
    const laptop = tempDir();
    const node = tempDir();
    const back = tempDir();
    try {
      await buildLibrary(laptop.path);
      const url = await cluster.createDatabase('kioku_transfer');
      const file = join(laptop.path, 'library.chain');

      const exported = await runCli(['log', 'export', '--data', laptop.path, '--out', file, '--json']);
      expect(exported.code, exported.stderr).toBe(0);
      const exportReport = JSON.parse(exported.stdout.trim().split('\n').at(-1) as string) as { head: { seq: number; hash: string }; records: number };
      expect(exportReport.records).toBe(exportReport.head.seq);
      expect(exportReport.records).toBeGreaterThan(8);

      const imported = await runCli(['log', 'import', file, '--data', node.path, '--store', url, '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout.trim().split('\n').at(-1) as string)).toMatchObject({
        ok: true,
        store: 'postgres',
        verified: true,
        head: exportReport.head,
      });

      // a second import into the same (now full) store is refused and changes nothing
      const again = await runCli(['log', 'import', file, '--data', node.path, '--store', url, '--json']);
      expect(again.code).toBe(2);
      expect(again.stdout + again.stderr).toMatch(/already holds \d+ events/);

      const verified = await runCli(['verify', '--data', node.path, '--store', url, '--json']);
      expect(verified.code, verified.stdout).toBe(0);

      // the same projections, rebuilt from each chain
      const original = await openStore({ data: laptop.path });
      const shared = await openStore({ data: node.path, store: url });
      try {
        await original.projections.rebuild();
        await shared.projections.rebuild();
        expect(shared.log.head()).toEqual(original.log.head());
        expect(shared.projections.digests()).toEqual(original.projections.digests());
      } finally {
        await original.close();
        await shared.close();
      }

      // and back: PostgreSQL → a new LevelDB, whose export is the same bytes as the first
      const file2 = join(node.path, 'round-trip.chain');
      expect((await runCli(['log', 'export', '--data', node.path, '--store', url, '--out', file2])).code).toBe(0);
      expect((await runCli(['log', 'import', file2, '--data', back.path])).code).toBe(0);
      const file3 = join(back.path, 'again.chain');
      expect((await runCli(['log', 'export', '--data', back.path, '--out', file3])).code).toBe(0);
      const body = (f: string): Buffer => {
        const bytes = readFileSync(f);
        const headerEnd = bytes.indexOf(10, bytes.indexOf(10) + 1); // magic line, header line (its export time differs)
        return bytes.subarray(headerEnd + 1);
      };
      expect(body(file2).equals(body(file))).toBe(true);
      expect(body(file3).equals(body(file))).toBe(true);
    } finally {
      laptop.cleanup();
      node.cleanup();
      back.cleanup();
    }
  }, 120_000);

  it('refuses a damaged export before writing anything', async () => {
    const laptop = tempDir();
    const node = tempDir();
    try {
      await buildLibrary(laptop.path);
      const file = join(laptop.path, 'library.chain');
      expect((await runCli(['log', 'export', '--data', laptop.path, '--out', file])).code).toBe(0);
      const bytes = readFileSync(file);
      bytes[bytes.length - 5] = (bytes[bytes.length - 5] as number) ^ 0xff; // one flipped bit in the last record
      writeFileSync(file, bytes);
      const url = await cluster.createDatabase('kioku_transfer');
      const res = await runCli(['log', 'import', file, '--data', node.path, '--store', url, '--json']);
      expect(res.code).not.toBe(0);
      expect(res.stdout + res.stderr).toMatch(/KIOKU_CHAIN_DAMAGED/);
      const store = await openStore({ data: node.path, store: url });
      try {
        expect(store.log.head().seq).toBe(0); // the import's transaction rolled back
      } finally {
        await store.close();
      }
    } finally {
      laptop.cleanup();
      node.cleanup();
    }
  }, 60_000);
});
