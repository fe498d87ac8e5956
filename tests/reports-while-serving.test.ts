// LevelDB lets one process own a store. While a server runs, the read-only commands
// (report cold, report delivery, replay, recall) ask it over HTTP — the same core functions
// behind GET /v1/reports/delivery and POST /v1/replay — and say so. The routes keep to one
// namespace and append nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runCliFrom } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

// the CLI as installed (bin/kioku.js -> dist/, rebuilt by tests/global-setup.ts when a source is newer): each process spared tsx's start-up
const runCli = (args: string[], env: Record<string, string> = {}): ReturnType<typeof runCliFrom> => runCliFrom(args, env, 'installed');

const token = 'reports-token-0123456789';
const teamToken = 'reports-team-token-0123456789';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    tokens: {
      tokens: [
        // service:read: the shared log's head is shown only to a token that may see the whole service
        { name: 'me', token, namespace: 'private', scopes: ['memory:read', 'memory:write', 'service:read'] },
        { name: 'team', token: teamToken, namespace: 'team', scopes: ['memory:read'] },
      ],
    },
  });
  await server.call(
    'POST',
    '/v1/memories',
    { memories: [{ id: 'rb', kind: 'procedure', text: 'Roll back a release with scripts/rollback.sh and the previous tag.' }] },
    token,
  );
  const { body: session } = await server.call('POST', '/v1/sessions/open', { agent: 'test' }, token);
  for (const query of ['how do I roll back a release?', 'roll back the release script']) {
    const { body: turn } = await server.call('POST', '/v1/turns/start', { session_id: session['session_id'], query }, token);
    await server.call('POST', `/v1/turns/${String(turn['turn_id'])}/complete`, { answer: 'Run scripts/rollback.sh with the previous tag.' }, token);
  }
}, 60_000);
afterAll(async () => server.stop());

describe('report routes', () => {
  it('GET /v1/reports/delivery reports the token’s namespace only, and validates days', async () => {
    const mine = await server.call('GET', '/v1/reports/delivery?days=7', undefined, token);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ days: 7, namespace: 'private', turns: 2 });
    const theirs = await server.call('GET', '/v1/reports/delivery', undefined, teamToken);
    expect(theirs.body).toMatchObject({ namespace: 'team', turns: 0 });
    expect((await server.call('GET', '/v1/reports/delivery?namespace=private', undefined, teamToken)).status).toBe(403);
    expect((await server.call('GET', '/v1/reports/delivery?days=-1', undefined, token)).body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID' } });
  });

  it('POST /v1/replay re-runs the recorded turns under changed rules and appends nothing', async () => {
    // with auth on, only a service:read token sees the log head
    const head = (await server.call('GET', '/v1/health', undefined, token)).body;
    expect(head['head']).toBeDefined();
    const same = await server.call('POST', '/v1/replay', {}, token);
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ totals: { turns: 2, changed_turns: 0 } });
    const none = await server.call('POST', '/v1/replay', { rules: { max_items: 0 } }, token);
    expect(none.body).toMatchObject({ rules: { max_items: 0, max_history: 0 }, totals: { after: { items: 0 } } });
    expect((await server.call('POST', '/v1/replay', {}, teamToken)).body).toMatchObject({ totals: { turns: 0 } });
    expect((await server.call('GET', '/v1/health', undefined, token)).body['head']).toEqual(head['head']);
    for (const bad of [
      { rules: { floor: 2 } },
      { rules: { max_items: 1, max_history: 2 } },
      { from: 'yesterday' },
      { from: '2026-12-02', to: '2026-12-01' },
      { colour: 'red' },
    ]) {
      const r = await server.call('POST', '/v1/replay', bad, token);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
  });
});

describe('CLI commands while the server holds the store', () => {
  const env = (): Record<string, string> => ({ KIOKU_URL: server.url, KIOKU_TOKEN: token });

  it('report delivery, report cold, replay and recall ask the server, and say so', async () => {
    const delivery = await runCli(['report', 'delivery', '--data', server.dir], env());
    expect(delivery.code).toBe(0);
    expect(delivery.stdout).toMatch(/in private \(from the service at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)\): 2 completed turn/);
    const cold = await runCli(['report', 'cold', '--data', server.dir, '--min-considered', '1', '--json'], env());
    expect(cold.json).toMatchObject({ namespace: 'private', min_considered: 1 });
    const replayed = await runCli(['replay', '--data', server.dir, '--max-items', '0', '--json'], env());
    expect(replayed.json).toMatchObject({ rules: { max_items: 0 }, totals: { turns: 2, after: { items: 0 } } });
    const recalled = await runCli(['recall', 'roll back a release', '--data', server.dir, '--json'], env());
    expect(recalled.code).toBe(0);
    expect((recalled.json?.['records'] as { evidence_key: string }[]).map((r) => r.evidence_key)).toContain('ev1:private:memory:rb');
    const plain = await runCli(['recall', 'roll back a release', '--data', server.dir], env());
    expect(plain.stdout).toMatch(/from the service at http:\/\/127\.0\.0\.1:\d+/);
  }, 60_000);

  it('imports through the running server: the CLI reads the files, the server writes them, --prune removes what is gone', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'kioku-import-remote-'));
    try {
      writeFileSync(join(dir, 'ops.md'), '# Ops\n\n## Pager\nThe pager rotation changes on Mondays.\n');
      writeFileSync(join(dir, 'deploy.md'), '# Deploy\n\n## Steps\nDeploy with the blue-green script.\n');
      const first = await runCli(['import', 'wiki', dir, '--data', server.dir, '--json'], env());
      expect(first.code).toBe(0);
      expect(first.json).toMatchObject({ ok: true, via: server.url, added: ['deploy', 'ops'], files: 2 });
      const again = await runCli(['import', 'wiki', dir, '--data', server.dir, '--json'], env());
      expect(again.json).toMatchObject({ added: [], changed: [], unchanged: 2 });
      rmSync(join(dir, 'ops.md'));
      const kept = await runCli(['import', 'wiki', dir, '--data', server.dir, '--json'], env());
      expect(kept.json).toMatchObject({ missing_not_pruned: ['ops'], removed: [] });
      const pruned = await runCli(['import', 'wiki', dir, '--data', server.dir, '--prune', '--json'], env());
      expect(pruned.json).toMatchObject({ removed: ['ops'] });
      const lookup = await server.call('GET', '/v1/wiki/topics/deploy', undefined, token);
      expect(lookup.status).toBe(200);
      expect((await server.call('GET', '/v1/wiki/topics/ops', undefined, token)).status).toBe(404);
      // a read-only token cannot import
      const denied = await runCli(['import', 'wiki', dir, '--data', server.dir], { KIOKU_URL: server.url, KIOKU_TOKEN: teamToken });
      expect(denied.code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('fails clearly when the store is held and no server answers, or the token is missing', async () => {
    // KIOKU_URL names the service (no --data on the command line): that one only, never the store
    const nobody = await runCli(['report', 'delivery'], { KIOKU_URL: 'http://127.0.0.1:1', KIOKU_DATA_DIR: server.dir });
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/no Kioku service answers at http:\/\/127\.0\.0\.1:1 \(KIOKU_URL\).*KIOKU_SERVICE_UNAVAILABLE/);
    // --data names the library: its own service (the run file), here without the token it wants
    const anonymous = await runCli(['replay', '--data', server.dir], { KIOKU_URL: 'http://127.0.0.1:1' });
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/requires a token .*set KIOKU_TOKEN to a token from the service's auth file .*KIOKU_UNAUTHORIZED/);
    expect(anonymous.stderr).not.toMatch(/http:\/\//); // no transport prefix
    const wrong = await runCli(['recall', 'roll back', '--data', server.dir], { KIOKU_TOKEN: 'not-a-token-0123456789' });
    expect(wrong.stderr).toMatch(/refused the token in KIOKU_TOKEN/);
  }, 30_000);
});
