// The facade is one set of calls, local or remote: a scenario (write, session, turn,
// complete, recall, lookup, report, forget) gives the same answers through LocalKioku
// and through RemoteKioku against a real server. Two Kioku instances writing one shared
// store never fork it and never lose an acknowledged write. The run file lets clients
// find the server that owns a library.
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { isKiokuError, KiokuError } from '../src/errors.js';
import { openKioku, type Kioku, type LocalKioku } from '../src/kioku.js';
import { MemoryChain, MemoryEventLog } from '../src/log/index.js';
import { LocalJudge } from '../src/recall/index.js';
import { RemoteKioku } from '../src/remote.js';
import { readRunFile, runFilePath } from '../src/run-file.js';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Everything a client sees of one scenario, without ids and timings that differ run to run. */
async function scenario(kioku: Kioku) {
  const written = await kioku.writeMemories({
    memories: [
      { id: 'rollback', kind: 'procedure', text: 'Roll back the billing service with scripts/rollback.sh billing, then check the ledger.' },
      { id: 'owner', kind: 'fact', text: 'Mina owns the billing migration and finished it in October.' },
      { id: 'lunch', kind: 'note', text: 'The team lunch is on Fridays at the noodle place.' },
    ],
  });
  const session = await kioku.openSession({ agent: 'facade-test', session_id: 'facade-s1' });
  const turn = await kioku.startTurn({ session_id: session.session_id, query: 'How do we roll back the billing service?' });
  const completed = await kioku.completeTurn(turn.turn_id, { answer: 'Run scripts/rollback.sh billing, then check the ledger.' });
  const packet = await kioku.recall({ query: 'who finished the billing migration?' });
  const evidence = await kioku.evidence('ev1:private:memory:owner');
  const cold = await kioku.cold({ min_considered: 1 });
  await kioku.forget('lunch', { reason: 'not knowledge' });
  const after = await kioku.recall({ query: 'team lunch noodle place' });
  // turn ids are random: a trace key names "the turn" instead
  const key = (k: string): string => k.replace(/:trace:t-[^#]+/, ':trace:<turn>');
  const shape = (p: typeof packet) => ({
    mode: p.retrieval_mode,
    records: p.records.map((r) => [key(r.evidence_key), round(r.score), r.why.verdict ?? null, r.why.held_back ?? null]),
    delivery: p.delivery.map((d) => key(d.evidence_key)),
  });
  return {
    written,
    session: session.namespace,
    turn: shape(turn),
    completed: Object.keys(completed).sort(),
    recall: shape(packet),
    evidence: { text: evidence.text, status: evidence.status, head_id: evidence.head_id },
    cold: cold.items.map((i) => key(i.key)),
    after: after.records.map((r) => key(r.evidence_key)),
  };
}

describe('the facade, local and remote', () => {
  let server: TestServer;
  let local: LocalKioku;
  let localDir: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    server = await startTestServer();
    localDir = tempDir();
    local = await openKioku({ data: localDir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
  });
  afterAll(async () => {
    await local.close();
    await server.stop();
    localDir.cleanup();
  });

  it('gives the same answers to one scenario through LocalKioku and through RemoteKioku over HTTP', async () => {
    const remote = new RemoteKioku(server.url);
    const [here, there] = [await scenario(local), await scenario(remote)];
    expect(here.turn.records.length).toBeGreaterThan(0);
    expect(here.recall.records.map((r) => r[0])).toContain('ev1:private:memory:owner');
    expect(here.after).not.toContain('ev1:private:memory:lunch');
    expect(there).toEqual(here);
  });

  it('brings typed errors back from the server', async () => {
    const remote = new RemoteKioku(server.url);
    const local404 = await local.evidence('ev1:private:memory:nothing-here').catch((e: unknown) => e);
    const remote404 = await remote.evidence('ev1:private:memory:nothing-here').catch((e: unknown) => e);
    expect(isKiokuError(local404, 'KIOKU_NOT_FOUND')).toBe(true);
    expect(isKiokuError(remote404, 'KIOKU_NOT_FOUND')).toBe(true);
    const bad = await remote.writeMemories({ memories: [] }).catch((e: unknown) => e);
    expect(isKiokuError(bad, 'KIOKU_INPUT_INVALID')).toBe(true);
  });
});

describe('two Kioku instances on one shared store', () => {
  it('never fork it and never lose an acknowledged write; a racing id conflict is decided once', async () => {
    const chain = new MemoryChain();
    const dir = tempDir();
    const options = { data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() };
    const a = await openKioku({ ...options, log: new MemoryEventLog(chain) });
    const b = await openKioku({ ...options, log: new MemoryEventLog(chain) });
    try {
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).writeMemories({ memories: [{ id: `m${i}`, kind: 'fact', text: `Fact number ${i} about the shared store.` }] }),
      );
      // the same id with different texts from both instances: one write wins, the other sees it and is refused
      const racing = await Promise.allSettled([
        a.writeMemories({ memories: [{ id: 'contested', kind: 'fact', text: 'The deploy window is Tuesday.' }] }),
        b.writeMemories({ memories: [{ id: 'contested', kind: 'fact', text: 'The deploy window is Thursday.' }] }),
      ]);
      const acknowledged = await Promise.all(writes);
      expect(acknowledged.flatMap((w) => w.written).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`).sort());
      expect(racing.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = racing.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(isKiokuError(refused?.reason, 'KIOKU_ID_CONFLICT')).toBe(true);
      // both see every write, and the chain is whole
      for (const k of [a, b]) {
        await k.projections.waitFor(chain.position.seq);
        for (let i = 0; i < 40; i++) expect((await k.evidence(`ev1:private:memory:m${i}`)).status).toBe('active');
      }
      expect(await a.log.verify()).toMatchObject({ ok: true, checked: chain.position.seq });
      let contested = 0;
      for await (const r of a.log.read({ types: ['memory.written'] })) if ((r.data as { id: string }).id === 'contested') contested += 1;
      expect(contested).toBe(1);
    } finally {
      await a.close();
      await b.close();
      dir.cleanup();
    }
  });
});

describe('the run file', () => {
  it('names the running server, disappears on a clean stop, and a stale one is ignored', async () => {
    const server = await startTestServer();
    expect(readRunFile(server.dir)).toMatchObject({ url: server.url, pid: process.pid });
    await server.close();
    expect(existsSync(runFilePath(server.dir))).toBe(false);
    // a crashed server leaves its file behind: a pid that no longer runs makes it stale
    writeFileSync(runFilePath(server.dir), JSON.stringify({ url: server.url, pid: 2 ** 22 + 7, started_at: new Date().toISOString() }));
    expect(readRunFile(server.dir)).toBeUndefined();
    writeFileSync(runFilePath(server.dir), 'not json');
    expect(readRunFile(server.dir)).toBeUndefined();
  });
});

describe('the knowledge stream', () => {
  it('names every event type a knowledge command appends (another writer of one of them makes a command decide again)', async () => {
    const { eventSchemas } = await import('../src/events/index.js');
    const { KNOWLEDGE_EVENT_TYPES } = await import('../src/knowledge/commands.js');
    // item.forgotten and purged (issue 33) change items of every layer
    const knowledgeTypes = Object.keys(eventSchemas).filter((t) => /^(memory|card|wiki|note|episode|asset|item)\.|^purged$/.test(t));
    expect([...KNOWLEDGE_EVENT_TYPES].sort()).toEqual(knowledgeTypes.sort());
  });
});

describe('two processes writing through one server', () => {
  it('lose no acknowledged write and never fork the chain', async () => {
    const { spawn } = await import('node:child_process');
    const { join } = await import('node:path');
    const { REPO } = await import('./helpers.js');
    const server = await startTestServer();
    try {
      const writer = (prefix: string) =>
        new Promise<string[]>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'tests/fixtures/remote-writer.ts'), server.url, prefix, '60'], {
            cwd: REPO,
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.on('error', reject);
          child.on('close', (code) =>
            code === 0 ? resolve((JSON.parse(out.trim()) as { acknowledged: string[] }).acknowledged) : reject(new Error(`writer exited ${code}`)),
          );
        });
      const [a, b] = await Promise.all([writer('alpha'), writer('beta')]);
      expect(a).toHaveLength(60);
      expect(b).toHaveLength(60);
      const records = server.state.store!.projections.views.records;
      for (const id of [...a, ...b]) expect(records.get(`ev1:private:memory:${id}`)?.status).toBe('active');
      expect(await server.state.store!.log.verify()).toMatchObject({ ok: true });
      let written = 0;
      for await (const _ of server.state.store!.log.read({ types: ['memory.written'] })) written += 1;
      expect(written).toBe(120);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

// Every method of the Kioku interface, through LocalKioku and through RemoteKioku against a real
// server, in one sequence over two fresh libraries: each answer must be the same. `calls` is typed
// with a key for every method of the interface (a method without one does not compile), and the
// test checks at run time that every public method of both implementations is called here.
type Methods = { [M in keyof Kioku as Kioku[M] extends (...args: never[]) => unknown ? M : never]: (k: Kioku, seen: Seen) => Promise<unknown> };
interface Seen {
  turn?: string;
}

/** Members of RemoteKioku that are not Kioku methods (its transport). */
const REMOTE_HELPERS = new Set(['constructor', 'url', 'send', 'call', 'callOnce', 'echoed']);
/** Members of LocalKioku that are not Kioku methods (what the server and the CLI reach past the facade). */
// (the audience policy's helpers moved to src/api/audience.ts, who may purge or reveal to src/api/privacy.ts)
const LOCAL_HELPERS = new Set(['constructor', 'paths', 'log', 'projections', 'privacy', 'core', 'knowledge', 'records', 'now']);

const CARD = '---\ntitle: Billing runbook\nrelations: [ledger]\n---\n# Billing runbook\n\n## Rollback\n\nRun scripts/rollback.sh billing, then check the ledger.\n';
const LEDGER = '---\ntitle: Ledger\n---\n# Ledger\n\nThe ledger records every invoice.\n';

/** In call order: a call may use what an earlier one wrote (the turn, the memories, the cards). */
const calls: Methods = {
  writeMemories: (k) =>
    k.writeMemories({
      memories: [
        { id: 'owner', kind: 'fact', text: 'Mina owns the billing migration.', entities: ['Mina'] },
        { id: 'owner-2', kind: 'fact', text: 'Mina and Joe own the billing migration.', entities: ['Mina'] },
        { id: 'lunch', kind: 'note', text: 'The team lunch is on Fridays.' },
        { id: 'rule', kind: 'directive', text: 'Always check the ledger after a rollback.', tags: ['billing'] },
      ],
    }),
  openSession: (k) => k.openSession({ agent: 'parity', session_id: 'parity-s1' }),
  startTurn: async (k, seen) => {
    const turn = await k.startTurn({ session_id: 'parity-s1', query: 'How do we roll back billing?' });
    seen.turn = turn.turn_id;
    return turn;
  },
  completeTurn: (k, seen) => k.completeTurn(seen.turn as string, { answer: 'Run the rollback script, then check the ledger.' }),
  recall: (k) => k.recall({ query: 'who owns the billing migration?' }),
  context: (k) => k.context({ query: 'team lunch' }),
  candidates: (k) => k.candidates({ query: 'ledger rollback' }),
  supersede: (k) => k.supersede('owner-2', { superseded_ids: ['owner'], reason: 'Joe joined' }),
  forget: (k) => k.forget('lunch', { reason: 'not knowledge' }),
  purge: (k) => k.purge({ scope: 'memory', id: 'lunch', reason: 'parity' }),
  setAudience: (k) => k.setAudience('rule', { audience: ['me'] }),
  evidence: (k) => k.evidence('ev1:private:memory:owner'),
  related: (k) => k.related('ev1:private:memory:owner', { limit: 10 }),
  importDocuments: (k) =>
    k.importDocuments({
      kind: 'cards',
      root: '/parity/cards',
      files: [
        { path: '/parity/cards/billing.md', markdown: CARD },
        { path: '/parity/cards/ledger.md', markdown: LEDGER },
      ],
    }),
  document: (k) => k.document('card', 'billing', {}),
  source: (k) => k.source('ledger', {}),
  relations: (k) => k.relations('billing', {}),
  items: (k) => k.items({ layers: ['memory'], include_retired: true }),
  list: (k) => k.list({ layers: ['card', 'memory'], limit: 10 }),
  logEpisode: (k) => k.logEpisode({ episode_id: 'ep-1', messages: [{ role: 'user', text: 'We moved the billing cutover to May.' }] }),
  registerAsset: (k) => k.registerAsset({ id: 'runbook-pdf', content: 'rollback steps', name: 'runbook.txt', description: 'The billing rollback runbook' }),
  asset: (k) => k.asset('runbook-pdf', { include_content: true }),
  stats: (k) => k.stats({}),
  recordJobEvent: (k) => k.recordJobEvent({ job_id: 'job-1', stage: 'embed', status: 'running', detail: 'parity' }),
  pipelineSnapshot: (k) => k.pipelineSnapshot({ days: 7 }),
  pipelineJobs: (k) => k.pipelineJobs({ stage: 'embed', limit: 5 }),
  ingestStatus: (k) => k.ingestStatus(),
  artifacts: (k, seen) => k.artifacts(seen.turn as string),
  activity: (k) => k.activity({ days: 7, limit: 5 }),
  usage: (k) => k.usage('ev1:private:memory:owner'),
  importItems: (k) => k.importItems({ items: [{ type: 'memory', id: 'imported', kind: 'fact', text: 'Imported facts keep their ids.' }] }),
  // a secret written is stored as a placeholder (each library has its own vault key, so the id differs): its value comes back
  revealSecret: async (k) => {
    await k.writeMemories({ memories: [{ id: 'with-secret', kind: 'fact', text: 'The CI token: ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d' }] });
    const stored = (await k.evidence('ev1:private:memory:with-secret')).text;
    const r = await k.revealSecret({ id: /⟦secret:[a-z-]+:([a-z0-9]+)⟧/.exec(stored)?.[1] ?? '' });
    return { stored: stored.replace(r.placeholder, '<placeholder>'), kind: r.kind, value: r.value, namespace: r.namespace };
  },
  cold: (k) => k.cold({ min_considered: 1 }),
  deliveryReport: (k) => k.deliveryReport({ days: 7 }),
  replay: (k) => k.replay({}),
  changeOrg: (k) => k.changeOrg({ action: 'space_add', space: 'eng', title: 'Engineering' }),
  org: (k) => k.org({}),
  // no org (a space but no member) and an anonymous caller: the same empty answers and refusals both ways
  // (the round trip between members is tests/notices-two-nodes.test.ts)
  inbox: (k) => k.inbox({ include_acked: true }),
  outbox: (k) => k.outbox({}),
  notify: (k) => k.notify({ to: ['bob'], text: 'The cutover moved to May.' }).catch((e: KiokuError) => ({ refused: e.code, message: e.message })),
  ack: (k) => k.ack('n-0123456789abcdef', {}).catch((e: KiokuError) => ({ refused: e.code, message: e.message })),
  lifecycleRun: (k) => k.lifecycleRun({ dry_run: true }),
  verifyLog: (k) => k.verifyLog({}),
  logStats: (k) => k.logStats(),
  logRecord: (k) => k.logRecord(1),
  logFrames: (k) => k.logFrames({ from: 1, limit: 2 }),
  backupPoint: (k) => k.backupPoint(),
  close: (k) => k.close(),
};

/**
 * What may differ between two libraries given the same calls, replaced by a placeholder: random ids
 * (turns `t-…`, recalls `r-…`, jobs of the indexer), times and durations (the clock moves between the
 * two runs), hashes (the chain hashes the times; digests fold them), the data dirs (an uploaded asset
 * lives under its library's dir), stored frames and byte counts (records hold the times, and the
 * actor: a write through the server is recorded as `http`, an in-process one as `kioku`; so is a tombstone's `by`). Everything else — ids the
 * caller chose, texts, counts, statuses, scores, order — must be equal.
 */
function normalise(value: unknown, dirs: readonly string[]): unknown {
  if (typeof value === 'string') {
    let s = value;
    for (const d of dirs) s = s.split(d).join('<dir>');
    return s
      .replace(/\b[rt]-[0-9a-z]{6,}-[0-9a-f]{8,10}\b/g, '<id>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\b[0-9a-f]{64}\b/g, '<hash>');
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, dirs));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (/(^|_)(ms|ts|seconds|bytes)$|^timings$|^started_at$|^actor$/.test(k)) out[k] = typeof v;
      else if (k === 'frames') out[k] = (v as unknown[]).length;
      // a tombstone names who forgot: the actor, as above
      else if (k === 'tombstone' && v && typeof v === 'object') out[k] = normalise({ ...(v as Record<string, unknown>), by: typeof (v as Record<string, unknown>)['by'] }, dirs);
      else out[k] = normalise(v, dirs);
    }
    return out;
  }
  return value;
}

describe('every facade method, local and remote', () => {
  it('gives the same answer to every method of Kioku through LocalKioku and RemoteKioku (a method not called here fails)', async () => {
    const server = await startTestServer();
    const dir = tempDir();
    const local = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
    const remote = new RemoteKioku(server.url);
    try {
      // every public method of both implementations is a key of `calls`, and every key is called
      const publicOf = (proto: object, helpers: Set<string>) => Object.getOwnPropertyNames(proto).filter((m) => !helpers.has(m));
      expect(publicOf(RemoteKioku.prototype, REMOTE_HELPERS).sort()).toEqual(Object.keys(calls).sort());
      expect(publicOf(Object.getPrototypeOf(local) as object, LOCAL_HELPERS).sort()).toEqual(Object.keys(calls).sort());
      const dirs = [dir.path, server.dir];
      const seenHere: Seen = {};
      const seenThere: Seen = {};
      for (const [method, call] of Object.entries(calls) as [keyof Methods, Methods[keyof Methods]][]) {
        // a refusal compares by its code and message (a remote one also names the url and status it came from)
        const refused = (e: unknown) => ({ error: e instanceof KiokuError ? { code: e.code, message: e.message } : String(e) });
        const here = await call(local, seenHere).catch(refused);
        const there = await call(remote, seenThere).catch(refused);
        expect({ method, answer: normalise(there, dirs) }).toEqual({ method, answer: normalise(here, dirs) });
        expect({ method, failed: (here as { error?: unknown } | undefined)?.error }).toEqual({ method, failed: undefined });
      }
    } finally {
      await server.stop();
      dir.cleanup();
    }
  }, 60_000);
});
