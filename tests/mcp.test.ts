// `kioku mcp` driven over stdio by the SDK's own client, as Claude Code or Codex would:
// the handshake, tool discovery, every tool's happy path and refusals, supersede chains and
// forget, parity with HTTP, the service started on first use (once, for several clients),
// and remote mode against a dead service.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFile } from '../src/run-file.js';
import { tempDir } from './helpers.js';
import { callTool as call, mcpClient } from './support/mcp-client.js';

function stopService(dataDir: string): void {
  const info = readRunFile(dataDir);
  if (info) process.kill(info.pid, 'SIGTERM');
}

describe('kioku mcp over stdio', () => {
  let data: ReturnType<typeof tempDir>;
  let client: Client;

  let assets: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    data = tempDir();
    assets = tempDir();
    client = await mcpClient(data.path, { KIOKU_ASSET_ROOTS: `private=${assets.path}` });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    stopService(data.path);
    await new Promise((r) => setTimeout(r, 500));
    data.cleanup();
    assets?.cleanup();
  });

  it('answers the handshake and lists its tools at once, before any service runs', async () => {
    const started = performance.now();
    const { tools } = await client.listTools();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        ...['ack', 'forget', 'get_asset', 'get_memory', 'get_related', 'inbox', 'list_members', 'list_memories', 'list_spaces', 'log_episodes', 'notify', 'outbox', 'purge', 'recall'],
        ...['recall_constraints', 'recall_directives', 'recall_episodes', 'recall_session', 'recall_timeline', 'recall_topic'],
        ...['register_asset', 'reveal_secret', 'search_memory', 'set_memory_audience', 'stats', 'supersede', 'write_memory'],
      ].sort(),
    );
    for (const t of tools) expect(t.description?.length ?? 0).toBeGreaterThan(40);
    // the rhythm of a session comes with initialize: which tool when
    const instructions = client.getInstructions() ?? '';
    for (const tool of ['recall_directives', 'search_memory', 'write_memory', 'recall_timeline', 'recall_topic', 'recall_episodes', 'get_related'])
      expect(instructions).toContain(tool);
    expect(readRunFile(data.path)).toBeUndefined();
  });

  it('writes, recalls, reads back, supersedes and forgets through the service it started', async () => {
    const written = await call(client, 'write_memory', {
      memories: [
        { id: 'db-old', kind: 'fact', text: 'The staging database is pg-staging-1.', entities: ['staging'], terms: ['staging database'] },
        { id: 'rollback', kind: 'procedure', text: 'Roll back the billing service with scripts/rollback.sh billing.', entities: ['billing'] },
        { id: 'tabs', kind: 'directive', text: 'Always answer in English, even to Chinese questions.' },
        { id: 'no-prod', kind: 'constraint', text: 'Never run migrations against production on Fridays.', tags: ['deploys'] },
      ],
    });
    expect(written.isError).toBeFalsy();
    expect(written.structuredContent).toMatchObject({ written: ['db-old', 'rollback', 'tabs', 'no-prod'] });
    const run = readRunFile(data.path);
    expect(run?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const newer = await call(client, 'write_memory', {
      memories: [{ id: 'db-new', kind: 'fact', text: 'The staging database is pg-staging-2.', terms: ['staging database'] }],
    });
    expect(newer.structuredContent).toMatchObject({ supersede_candidates: { 'db-new': [{ id: 'db-old' }] } });
    expect((await call(client, 'supersede', { id: 'db-new', superseded_ids: ['db-old'] })).isError).toBeFalsy();
    const old = await call(client, 'get_memory', { evidence_key: 'ev1:private:memory:db-old' });
    expect(old.structuredContent).toMatchObject({ status: 'superseded', head_id: 'db-new' });
    // the supersede edge, both ways
    expect((await call(client, 'get_related', { evidence_key: 'ev1:private:memory:db-new' })).structuredContent).toMatchObject({
      edges: [{ evidence_key: 'ev1:private:memory:db-old', relation: 'supersedes', status: 'superseded' }],
    });
    expect((await call(client, 'get_related', { evidence_key: 'ev1:private:memory:db-old' })).structuredContent).toMatchObject({
      edges: [{ evidence_key: 'ev1:private:memory:db-new', relation: 'superseded_by' }],
    });

    // the parity below compares two recalls: the embedding job settled first, so the vector lane
    // does not gain records between them (flaky on a loaded machine: 1 record by MCP, 4 by HTTP)
    const deadline = Date.now() + 60_000;
    for (;;) {
      const st = (await (await fetch(`${run?.url}/v1/ingest/status`)).json()) as { indexing: { running: boolean; pending: number } };
      if (st.indexing.pending === 0 && !st.indexing.running) break;
      if (Date.now() > deadline) throw new Error('the embedding job did not settle in 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const recalled = await call(client, 'recall', { message: 'how do I roll back the billing service?' });
    expect(recalled.isError).toBeFalsy();
    const keys = ((recalled.structuredContent?.['records'] as { evidence_key: string }[]) ?? []).map((r) => r.evidence_key);
    expect(keys[0]).toBe('ev1:private:memory:rollback');
    expect(recalled.content[0]?.text).toContain('ev1:private:memory:rollback');

    // HTTP parity: the same request through the service's HTTP API gives the same records
    const http = (await (
      await fetch(`${run?.url}/v1/candidates/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'how do I roll back the billing service?' }),
      })
    ).json()) as { records: { evidence_key: string }[] };
    expect(http.records.map((r) => r.evidence_key)).toEqual(keys);

    expect((await call(client, 'forget', { id: 'rollback', reason: 'replaced by the runbook' })).isError).toBeFalsy();
    const after = await call(client, 'recall', { message: 'how do I roll back the billing service?' });
    expect(((after.structuredContent?.['records'] as { evidence_key: string }[]) ?? []).map((r) => r.evidence_key)).not.toContain(
      'ev1:private:memory:rollback',
    );
  });

  it('gives directives with the authoritative now, constraints by domain, a topic, a timeline and a session', async () => {
    const directives = await call(client, 'recall_directives', {});
    expect(directives.structuredContent).toMatchObject({ now: '2026-11-29T12:00:00.000Z', items: [{ id: 'tabs', kind: 'directive' }] });
    const constraints = await call(client, 'recall_constraints', { domain: 'deploys' });
    expect(constraints.structuredContent).toMatchObject({ items: [{ id: 'no-prod' }] });
    expect((await call(client, 'recall_constraints', { domain: 'cooking' })).structuredContent).toMatchObject({ items: [] });
    // the superseded memory is history: marked with what replaced it, and only when asked for
    expect((await call(client, 'recall_topic', { entity: 'staging' })).structuredContent).toMatchObject({ items: [] });
    const topic = await call(client, 'recall_topic', { entity: 'staging', include_history: true });
    expect(topic.structuredContent).toMatchObject({ items: [{ id: 'db-old', status: 'superseded', current: 'db-new' }] });
    const timeline = await call(client, 'recall_timeline', { from: '2000-01-01T00:00:00Z', layers: ['memory'] });
    // the memories still current: the superseded and the forgotten ones are history
    expect((timeline.structuredContent?.['items'] as { id: string }[]).map((i) => i.id).sort()).toEqual(['db-new', 'no-prod', 'tabs']);
    const session = await call(client, 'recall_session', { session_id: 'no-such-session' });
    expect(session.structuredContent).toMatchObject({ items: [], total: 0 });
  });

  it('searches with the sentence and the expansion terms kept apart', async () => {
    await call(client, 'write_memory', {
      memories: [{ id: 'pgbouncer', kind: 'fact', text: 'Connection pooling for the ledger runs through pgbouncer on port 6432.', terms: ['PGB-7'] }],
    });
    // a literal id only the terms carry: found by the lexical lanes though the sentence never says it
    const byTerm = await call(client, 'search_memory', { sentence: 'how do we pool database connections', terms: ['PGB-7'], semantic: false });
    expect((byTerm.structuredContent?.['records'] as { evidence_key: string }[])[0]?.evidence_key).toBe('ev1:private:memory:pgbouncer');
    // the terms replace the sentence for the lexical lanes: a term nothing has finds nothing without the model
    const miss = await call(client, 'search_memory', { sentence: 'pgbouncer port ledger', terms: ['zzqx'], semantic: false });
    expect(miss.structuredContent).toMatchObject({ records: [] });
    const plain = await call(client, 'search_memory', { sentence: 'pgbouncer port ledger', semantic: false, layers: ['memories'] });
    expect((plain.structuredContent?.['records'] as { evidence_key: string }[])[0]?.evidence_key).toBe('ev1:private:memory:pgbouncer');
  });

  it('keeps episodes cold, and finds them only when asked', async () => {
    await call(client, 'log_episodes', {
      episode_id: 'vendor-call',
      messages: [
        { role: 'user', text: 'The vendor agreed to a 12 percent discount on the zebrafish licence.' },
        { role: 'assistant', text: 'Noted: 12 percent on the zebrafish licence.' },
      ],
    });
    const ordinary = await call(client, 'recall', { message: 'zebrafish licence discount' });
    expect(JSON.stringify(ordinary.structuredContent?.['records'])).not.toContain('vendor-call');
    const episodes = await call(client, 'recall_episodes', { message: 'zebrafish licence discount' });
    expect((episodes.structuredContent?.['records'] as { evidence_key: string }[])[0]?.evidence_key).toMatch(/^ev1:private:episode:vendor-call/);
  });

  it('hands out an asset ticket whose status follows the file: ok, changed, missing; content inline on request', async () => {
    const { writeFileSync, rmSync } = await import('node:fs');
    // a file under the namespace's asset root (KIOKU_ASSET_ROOTS, given to the service this client started)
    const file = join(assets.path, 'diagram.txt');
    writeFileSync(file, 'boxes and arrows');
    const reg = await call(client, 'register_asset', { id: 'diagram', path: file, description: 'The billing architecture diagram', mime: 'text/plain' });
    expect(reg.structuredContent).toMatchObject({ id: 'diagram', size: 16 });
    expect((await call(client, 'get_asset', { id: 'diagram', include_content: true })).structuredContent).toMatchObject({
      status: 'ok',
      bytes: 16,
      content: { encoding: 'utf8', data: 'boxes and arrows', truncated: false },
    });
    expect((await call(client, 'get_asset', { id: 'diagram', include_content: true, max_bytes: 5 })).structuredContent).toMatchObject({
      content: { data: 'boxes', truncated: true },
    });
    writeFileSync(file, 'boxes and arrows, redrawn');
    expect((await call(client, 'get_asset', { id: 'diagram' })).structuredContent).toMatchObject({ status: 'changed' });
    rmSync(file);
    expect((await call(client, 'get_asset', { id: 'diagram' })).structuredContent).toMatchObject({ status: 'missing' });
    expect((await call(client, 'stats', {})).structuredContent).toMatchObject({ namespace: 'private', items: { by_layer: { asset: 1 } } });
  });

  it('answers the org tools empty in single-user mode, and refuses what would need another member', async () => {
    expect((await call(client, 'inbox', {})).structuredContent).toMatchObject({ notices: [], single_user: true });
    expect((await call(client, 'list_members', {})).structuredContent).toMatchObject({ members: [] });
    expect(await call(client, 'notify', { to: 'bob', text: 'hi' })).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SINGLE_USER' } } });
    expect(await call(client, 'ack', { notice_id: 'n1' })).toMatchObject({ isError: true });
  });

  it('refuses bad input with a clear error the agent can act on, and changes nothing', async () => {
    const unknown = await call(client, 'get_memory', { evidence_key: 'ev1:private:memory:nope' });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_NOT_FOUND' } } });
    const conflict = await call(client, 'write_memory', { memories: [{ id: 'tabs', kind: 'directive', text: 'Something else entirely.' }] });
    expect(conflict).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_ID_CONFLICT' } } });
    const phrase = await call(client, 'recall_timeline', { from: 'the day the moon fell' });
    expect(phrase).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    const missing = await call(client, 'forget', { id: 'never-written' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_NOT_FOUND' } } });
    // schema refusals come from the SDK before the tool runs
    const bad = await call(client, 'write_memory', { memories: [{ kind: 'gossip', text: 'x' }] });
    expect(bad.isError).toBe(true);
  });
});

describe('several MCP clients on one data dir', () => {
  it('4 clients × 100 concurrent writes with no service running: exactly one service starts, no acknowledged write is lost', async () => {
    const data = tempDir();
    const clients = await Promise.all([1, 2, 3, 4].map(() => mcpClient(data.path)));
    try {
      const acknowledged = await Promise.all(
        clients.map(async (c, n) => {
          const ids: string[] = [];
          await Promise.all(
            Array.from({ length: 100 }, async (_, i) => {
              const r = await call(c, 'write_memory', { memories: [{ id: `c${n}-m${i}`, kind: 'fact', text: `Client ${n} fact ${i}.` }] });
              if (!r.isError) ids.push(...((r.structuredContent?.['written'] as string[]) ?? []));
            }),
          );
          return ids;
        }),
      );
      expect(acknowledged.flat()).toHaveLength(400);
      // every client may have started a service; exactly one listens, the others found the store locked
      const { readFileSync } = await import('node:fs');
      const log = readFileSync(join(data.path, 'kioku-serve.log'), 'utf8');
      expect(log.match(/listening on/g)).toHaveLength(1);
      const run = readRunFile(data.path);
      for (const id of acknowledged.flat()) {
        const r = await fetch(`${run?.url}/v1/evidence/${encodeURIComponent(`ev1:private:memory:${id}`)}`);
        expect(r.status).toBe(200);
      }
      const stats = (await (await fetch(`${run?.url}/v1/stats`)).json()) as { items: { by_layer: { memory: number } } };
      expect(stats.items.by_layer.memory).toBe(400);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      stopService(data.path);
      await new Promise((r) => setTimeout(r, 500));
      data.cleanup();
    }
  }, 120_000);
});

describe('kioku doctor', () => {
  it('reports a working connection (degraded without vectors) and fails a broken one', async () => {
    const { runCli: runCliFrom } = await import('./helpers.js');
    // as installed (bin/kioku.js → dist/, as the MCP client above), not through tsx
    const runCli = (args: string[], env: Record<string, string>) => runCliFrom(args, env, 'installed');
    const data = tempDir();
    try {
      const ok = await runCli(['doctor', '--data', data.path, '--json'], { KIOKU_EMBEDDER: 'hash', HOME: data.path });
      expect(ok.code).toBe(0);
      expect(ok.json).toMatchObject({
        status: 'degraded',
        service: { mode: 'local', started_by_this_check: true },
        checks: [
          { name: 'initialize', ok: true },
          { name: 'tools', ok: true },
          { name: 'recall', ok: true },
        ],
      });
      const expecting = await runCli(['doctor', '--data', data.path, '--expect-id', 'nothing-here', '--json'], { KIOKU_EMBEDDER: 'hash', HOME: data.path });
      expect(expecting.code).toBe(1);
      expect(expecting.json).toMatchObject({ status: 'failed', problems: ['expected nothing-here among the results'] });
      // a short wait for the dead service: what waiting does is tests/mcp-waits-once-per-outage's (30 s by default)
      const broken = await runCli(['doctor', '--json'], { KIOKU_URL: 'http://127.0.0.1:9', KIOKU_READY_WAIT_MS: '1000', HOME: data.path });
      expect(broken.code).toBe(1);
      expect(broken.json).toMatchObject({ status: 'failed', service: { mode: 'remote' }, checks: [{ ok: true }, { ok: true }, { name: 'recall', ok: false }] });
    } finally {
      stopService(data.path);
      await new Promise((r) => setTimeout(r, 500));
      data.cleanup();
    }
  }, 120_000);
});

describe('remote mode, refusals', () => {
  it('names a missing token, a forbidden namespace, a redirect and a service that ignores options', async () => {
    const { createServer } = await import('node:http');
    const { startTestServer } = await import('./server-helpers.js');
    const token = 'mcp-remote-token-0123456789';
    const server = await startTestServer({ tokens: { tokens: [{ name: 'agent', token, namespace: 'team', scopes: ['memory:read', 'memory:write'] }] } });
    // a redirector (never followed: it could carry the token elsewhere) and a service that answers without echoing
    const other = createServer((req, res) => {
      if (req.url?.startsWith('/redirect')) return void res.writeHead(302, { location: `${server.url}${req.url.slice('/redirect'.length)}` }).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ records: [], delivery: [] }));
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const data = tempDir();
    const ask = async (env: Record<string, string>, args: Record<string, unknown> = { message: 'anything', options: { wiki: false } }) => {
      const c = await mcpClient(data.path, env);
      try {
        return await call(c, 'recall', args);
      } finally {
        await c.close();
      }
    };
    try {
      expect(await ask({ KIOKU_URL: server.url })).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_UNAUTHORIZED' } } });
      expect(await ask({ KIOKU_URL: server.url, KIOKU_TOKEN: token, KIOKU_NAMESPACE: 'private' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'KIOKU_FORBIDDEN' } },
      });
      expect((await ask({ KIOKU_URL: server.url, KIOKU_TOKEN: token })).isError).toBeFalsy();
      expect(await ask({ KIOKU_URL: `${otherUrl}/redirect`, KIOKU_TOKEN: token })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } },
      });
      const ignored = await ask({ KIOKU_URL: otherUrl, KIOKU_TOKEN: token });
      expect(ignored).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
      expect(ignored.content[0]?.text).toMatch(/did not echo the options/);
      expect(readRunFile(data.path)).toBeUndefined();
    } finally {
      await new Promise((r) => other.close(r));
      await server.stop();
      data.cleanup();
    }
  }, 120_000);
});

describe('remote mode', () => {
  it('talks only to KIOKU_URL and says so when it does not answer', async () => {
    const data = tempDir();
    // a short wait for the dead service: what waiting does is tests/mcp-waits-once-per-outage's (30 s by default)
    const client = await mcpClient(data.path, { KIOKU_URL: 'http://127.0.0.1:9', KIOKU_READY_WAIT_MS: '1000' });
    try {
      const r = await call(client, 'recall', { message: 'anything' });
      expect(r).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_SERVICE_UNAVAILABLE' } } });
      expect(readRunFile(data.path)).toBeUndefined();
    } finally {
      await client.close();
      data.cleanup();
    }
  }, 60_000);
});
