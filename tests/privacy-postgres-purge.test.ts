// Sealing and purge on a shared PostgreSQL store (issue 33, must show): two nodes on one cluster.
// A memory written through node A's HTTP API is stored sealed (no row holds its words; its data key
// is a row of kioku_keys) and read in clear on node B, which holds the key from the shared table.
// Then node A purges it: the key row is deleted, and both nodes drop the text — node B without being
// told anything but the `purged` event it folds. After that, a pg_dump of the whole database (bytea
// as hex, so the words are searched in both forms) holds the purged word nowhere, no file under
// either node's data dir holds it, recall and evidence on both nodes cannot return it, a control
// word written beside it is still found (and is found in a file: the scan can fail), and
// `kioku verify` on the store is clean. Skipped where PostgreSQL is not installed (required on CI).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../src/log/postgres.js';
import { grantStatements } from '../src/log/postgres-schema.js';
import { unitMatcher } from '../src/privacy/index.js';
import { openStore } from '../src/store.js';
import { memoryEvent, runCli } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { PG_AVAILABLE } from './support/postgres.js';
import { startTwoNodes, type TwoNodes } from './support/two-nodes.js';

const NS = 'private';
const PURGED = 'cobaltnarwhal';
const CONTROL = 'saffronibis';
const CLEAR = 'vermilionpangolin';
let nodes: TwoNodes;
let url: string;
let a: TestServer;
let b: TestServer;
let dirA: string;
let dirB: string;

beforeAll(async () => {
  if (!PG_AVAILABLE) return;
  nodes = await startTwoNodes('kioku_pgpurge');
  ({ url, a, b } = nodes);
  [dirA, dirB] = [a.dir, b.dir];
}, 90_000);
afterAll(() => nodes?.stop());

/** Poll until `ok` holds of what `read` answers (nodes follow the table within a second), bounded. */
async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((f) => {
    const p = join(root, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
/** every file under `root` holding `word` as bytes */
const holding = (root: string, word: string): string[] => filesUnder(root).filter((f) => readFileSync(f).includes(Buffer.from(word)));
/** whether a pg_dump holds `word` as text or as the hex of a bytea column */
const dumpHolds = (dump: string, word: string): boolean => dump.includes(word) || dump.includes(Buffer.from(word).toString('hex'));

async function sql<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

function pgDump(): string {
  const bin = process.env['KIOKU_PG_BIN'] ?? readdirSync('/usr/lib/postgresql').map((v) => join('/usr/lib/postgresql', v, 'bin')).find((d) => existsSync(join(d, 'pg_dump')));
  return execFileSync(join(bin ?? '', 'pg_dump'), ['--dbname', url], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

const evidence = (s: TestServer, id: string) => s.call('GET', `/v1/evidence/${encodeURIComponent(`ev1:${NS}:memory:${id}`)}`);
/** what a recall returns (its records and delivered texts; the answer also echoes the query) */
const recalled = async (s: TestServer, query: string): Promise<string> => {
  const body = (await s.call('POST', '/v1/recall', { query })).body;
  return JSON.stringify([body['records'], body['delivery']]);
};

describe.runIf(PG_AVAILABLE)('sealing and purge on a shared PostgreSQL store', () => {
  it('stores a memory sealed by node A, its key in the keys table, and node B reads it in clear', async () => {
    expect((await a.call('POST', '/v1/memories', { memories: [{ id: 'm-clear', kind: 'fact', text: `The ${CLEAR} sleeps under the bridge.` }] })).status).toBe(200);
    const rows = await sql<{ body: Buffer; type: string }>('SELECT body, type FROM public.kioku_events');
    expect(rows.some((r) => r.type === 'memory.written')).toBe(true);
    expect(rows.filter((r) => r.body.includes(CLEAR)).map((r) => r.type)).toEqual([]);
    expect(rows.some((r) => r.body.includes('⟦sealed:'))).toBe(true);
    expect(await sql('SELECT ns, unit FROM public.kioku_keys WHERE unit = $1', [`memory:${NS}:m-clear`])).toEqual([{ ns: NS, unit: `memory:${NS}:m-clear` }]);
    const onB = await until(
      () => evidence(b, 'm-clear'),
      (r) => r.status === 200,
    );
    expect(String(onB.body['text'])).toContain(CLEAR);
    // an event stored plain (a library written before sealing, or KIOKU_SEAL=0) still reads on both nodes
    const raw = await PostgresEventLog.open({ url });
    await raw.append({ type: 'memory.written', ns: NS, actor: 'old-node', data: { id: 'm-plain', kind: 'fact', text: 'an unsealed heron note' } });
    await raw.close();
    expect((await sql<{ body: Buffer }>("SELECT body FROM public.kioku_events WHERE type = 'memory.written'")).some((r) => r.body.includes('unsealed heron'))).toBe(true);
    for (const node of [a, b]) {
      const plain = await until(
        () => evidence(node, 'm-plain'),
        (r) => r.status === 200,
      );
      expect(plain.body['text']).toBe('an unsealed heron note');
    }
  }, 60_000);

  it('lets the node role add, read and delete data keys, and still neither change nor delete an event', async () => {
    const role = `kioku_node_${Math.random().toString(36).slice(2, 8)}`;
    await sql(`CREATE ROLE ${role} LOGIN`);
    for (const statement of grantStatements({ schema: 'public', table: '"public".kioku_events', channel: '' }, role)) await sql(statement);
    const asRole = new pg.Client({ connectionString: url.replace('postgres@', `${role}@`) });
    await asRole.connect();
    try {
      await asRole.query("INSERT INTO kioku_keys (kid, ns, unit, key) VALUES ('00000000000000aa', 'x', 'memory:x:y', decode(repeat('00', 32), 'hex'))");
      expect((await asRole.query("SELECT unit FROM kioku_keys WHERE kid = '00000000000000aa'")).rows).toEqual([{ unit: 'memory:x:y' }]);
      expect((await asRole.query("DELETE FROM kioku_keys WHERE kid = '00000000000000aa'")).rowCount).toBe(1);
      await expect(asRole.query("UPDATE kioku_keys SET unit = 'z'")).rejects.toThrow(/permission denied/);
      await expect(asRole.query('DELETE FROM kioku_events')).rejects.toThrow(/permission denied/);
      await expect(asRole.query("UPDATE kioku_events SET type = 'x'")).rejects.toThrow(/permission denied/);
    } finally {
      await asRole.end();
    }
  }, 30_000);

  it('purges through node A: the key row is gone, neither node nor any file nor a pg_dump holds the word, the control stays', async () => {
    const wrote = await a.call('POST', '/v1/memories', {
      memories: [
        { id: 'm-purge', kind: 'fact', text: `The ${PURGED} ledger is kept in the boathouse.` },
        { id: 'm-keep', kind: 'fact', text: `The ${CONTROL} ledger stays on the shelf.` },
      ],
    });
    expect(wrote.status).toBe(200);
    // node B recalls it, and its snapshots hold the text before the purge
    expect(await until(() => recalled(b, `${PURGED} ledger`), (r) => r.includes(PURGED))).toContain(PURGED);
    await b.state.store!.projections.snapshotAll();
    await a.state.store!.projections.snapshotAll();
    expect(holding(dirB, PURGED).length).toBeGreaterThan(0);
    expect(pgDump().includes(PURGED)).toBe(false); // sealed in the table from the start

    const [row] = await sql<{ kid: string }>('SELECT kid FROM public.kioku_keys WHERE unit = $1', [`memory:${NS}:m-purge`]);
    const kid = row?.kid ?? '';
    expect(b.state.store!.privacy.seal.keys.key(kid)).toBeDefined(); // node B holds node A's key

    const purged = await a.call('POST', '/v1/purge', { scope: 'memory', id: 'm-purge', reason: 'asked to' });
    expect(purged).toMatchObject({ status: 200, body: { scope: 'memory', target: 'm-purge', units: 1, items: 1 } });
    expect(await sql('SELECT kid FROM public.kioku_keys WHERE unit = $1', [`memory:${NS}:m-purge`])).toEqual([]);

    // node B folds the purge it did not perform: the text goes from its views and its files
    const onB = await until(
      () => evidence(b, 'm-purge'),
      (r) => (r.body['tombstone'] as { purged?: boolean } | undefined)?.purged === true,
    );
    expect(onB.body).toMatchObject({ status: 'forgotten', text: '', tombstone: { purged: true } });
    expect(await until(() => holding(dirB, PURGED), (f) => f.length === 0)).toEqual([]);
    for (const node of [a, b]) expect(node.state.store!.privacy.seal.keys.key(kid)).toBeUndefined(); // both forgot the key
    expect(holding(dirA, PURGED)).toEqual([]);
    expect(holding(dirB, CONTROL).length).toBeGreaterThan(0); // the scan finds what is still there

    for (const node of [a, b]) {
      expect((await evidence(node, 'm-purge')).body).toMatchObject({ text: '', tombstone: { purged: true } });
      expect(await recalled(node, `${PURGED} ledger boathouse`)).not.toContain(PURGED);
      expect(await recalled(node, `${CONTROL} ledger shelf`)).toContain(CONTROL);
      expect(String((await evidence(node, 'm-keep')).body['text'])).toContain(CONTROL);
    }

    const dump = pgDump();
    expect(dumpHolds(dump, 'm-purge')).toBe(true); // the purged event names the memory: the dump is searched where bytea lives
    expect(dumpHolds(dump, PURGED)).toBe(false);
    expect(dumpHolds(dump, CONTROL)).toBe(false); // sealed, yet readable through its key

    const verified = await runCli(['verify', '--data', dirA, '--store', url, '--json']);
    expect(verified.json).toMatchObject({ ok: true });
  }, 90_000);

  it('refuses a write sealed on one node with a key another node purged in the same instant, and takes it written again', async () => {
    const db = await nodes.cluster.createDatabase('kioku_pgrace');
    const [one, two] = [await openStore({ data: join(dirA, 'race-1'), store: db }), await openStore({ data: join(dirA, 'race-2'), store: db })];
    try {
      await one.log.append(memoryEvent('m-race', 'first words'));
      await until(
        () => two.log.head().seq,
        (seq) => seq >= 1,
      );
      expect(two.log.dataKeys!.all()).toHaveLength(1);
      // node two purges the memory (its key rows go with the purged event's transaction) …
      const units = two.log.dataKeys!.purge(unitMatcher('memory', NS, 'm-race'));
      await two.log.append({ type: 'purged', ns: NS, actor: 'test', data: { scope: 'memory', target: 'm-race', keys: [`ev1:${NS}:memory:m-race`], units: units.length } });
      // … while node one seals a new write: with the key it holds when it has not heard of the purge
      // yet (refused: acknowledged, it would be unreadable at once), or with a new key when the
      // purge's notification came first (accepted, and readable on the other node). Which of the two
      // happens is the race itself (the clean-clone CI saw the second); an acknowledged write that
      // reads as purged is what must never happen.
      const second = await one.log.append(memoryEvent('m-race', 'second words')).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (second !== undefined) expect(second).toMatchObject({ code: 'KIOKU_SEAL_KEY_PURGED' });
      else {
        const read = await until(
          async () => (await two.log.get(two.log.head().seq))?.data as { text?: string } | undefined,
          (data) => data?.text === 'second words',
        );
        expect(read?.text).toBe('second words');
      }
      await one.log.append(memoryEvent('m-race', 'third words'));
      const last = await until(
        async () => (await two.log.get(two.log.head().seq))?.data as { text?: string } | undefined,
        (data) => data?.text === 'third words',
      );
      expect(last?.text).toBe('third words');
    } finally {
      await one.close();
      await two.close();
    }
  }, 60_000);

  it('exports the chain with the keys table, and an import into another database opens it there (the purged item stays purged)', async () => {
    const out = join(dirA, 'library.chain');
    const [held] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM public.kioku_keys');
    expect(held?.n).toBeGreaterThanOrEqual(2); // m-clear's and m-keep's (and the recalls')
    expect((await runCli(['log', 'export', '--data', dirA, '--store', url, '--out', out, '--json'])).json).toMatchObject({ ok: true, data_keys: held?.n });
    const target = await nodes.cluster.createDatabase('kioku_pgimport');
    const imported = await runCli(['log', 'import', out, '--data', join(dirA, 'imported'), '--store', target, '--json']);
    expect(imported.json).toMatchObject({ ok: true, data_keys: held?.n, verified: true });
    const c = await startTestServer({ store: target, dir: join(dirA, 'node-c') });
    try {
      expect(String((await evidence(c, 'm-keep')).body['text'])).toContain(CONTROL);
      expect(String((await evidence(c, 'm-clear')).body['text'])).toContain(CLEAR);
      expect((await evidence(c, 'm-purge')).body).toMatchObject({ text: '', tombstone: { purged: true } });
    } finally {
      await c.stop();
    }
  }, 90_000);
});
