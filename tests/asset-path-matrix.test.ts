// Issue 29 item 1: asset registration read any file the server could read, across namespaces
// (another namespace's memory text in log/*.ldb, auth.json with its tokens, /proc/self/environ,
// /etc/shadow). The matrix: every path an attacker names is refused over HTTP and over MCP (a
// real `kioku mcp` process on stdio talking to a real service) with 403 KIOKU_ASSET_PATH_REFUSED
// or a 4xx naming the field, and nothing is appended; the legitimate uses still work.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const TOKENS = {
  alpha: 'alpha-token-0123456789abcdef',
  beta: 'beta-token-0123456789abcdef',
  gamma: 'gamma-token-0123456789abcdef',
  delta: 'delta-token-0123456789abcdef',
};
const SECRET = 'alpha-memory-the-vault-code-is-7731';

let base: ReturnType<typeof tempDir>;
let s: TestServer;
let data: string;
const root = (ns: string) => join(base.path, 'roots', ns);

beforeAll(async () => {
  base = tempDir('kioku-asset-matrix-');
  data = join(base.path, 'data');
  for (const ns of ['alpha', 'beta', 'gamma']) mkdirSync(root(ns), { recursive: true });
  mkdirSync(join(data, 'keys'), { recursive: true });
  writeFileSync(join(root('alpha'), 'notes.txt'), 'alpha only');
  writeFileSync(join(root('beta'), 'ok.txt'), 'a diagram of beta');
  writeFileSync(join(root('gamma'), 'own.txt'), 'gamma file');
  writeFileSync(join(data, 'keys', 'anchor-ed25519.pem'), '-----BEGIN PRIVATE KEY-----\nnot a real key\n');
  writeFileSync(join(data, 'anchors.jsonl'), '{}\n');
  symlinkSync('/etc/passwd', join(root('beta'), 'escape'));
  symlinkSync(join(root('alpha'), 'notes.txt'), join(root('beta'), 'to-alpha'));
  symlinkSync(join(data, 'auth.json'), join(root('beta'), 'to-auth'));
  symlinkSync(data, join(root('beta'), 'datadir'));
  s = await startTestServer({
    dir: data,
    tokens: {
      tokens: Object.entries(TOKENS).map(([ns, token]) => ({ name: ns, token, namespace: ns, scopes: ['memory:read', 'memory:write'] })),
    },
    // gamma's root holds the data dir and the other namespaces' roots: neither is gamma's content
    assetRoots: { alpha: [root('alpha')], beta: [root('beta')], gamma: [base.path] },
    rateLimitPerMinute: 1_000_000,
  });
  const w = await s.call('POST', '/v1/memories', { memories: [{ id: 'vault', kind: 'fact', text: SECRET }] }, TOKENS.alpha);
  expect(w.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  base?.cleanup();
});

const head = () => s.state.store!.log.head().seq;

/** Every path the attack named, and the namespace asking. */
function attacks(): { ns: keyof typeof TOKENS; path: string; what: string }[] {
  const logFiles = readdirSync(join(data, 'log')).map((f) => join(data, 'log', f));
  expect(logFiles.some((f) => /\.(ldb|log)$/.test(f))).toBe(true);
  const dataFiles = [...logFiles, join(data, 'auth.json'), join(data, 'keys', 'anchor-ed25519.pem'), join(data, 'anchors.jsonl'), join(data, 'kioku.run.json')];
  return [
    ...dataFiles.flatMap((path) => [
      { ns: 'beta' as const, path, what: 'data dir file, no root over it' },
      { ns: 'gamma' as const, path, what: 'data dir file inside the root' },
    ]),
    ...['/etc/shadow', '/etc/passwd', '/proc/self/environ', '/proc/self/cmdline', '/dev/zero', '/sys/kernel/hostname'].flatMap((path) => [
      { ns: 'beta' as const, path, what: 'system file' },
      { ns: 'delta' as const, path, what: 'system file, no root at all' },
    ]),
    { ns: 'beta', path: join(root('beta'), 'escape'), what: 'symlink out of the root' },
    { ns: 'beta', path: join(root('beta'), 'to-alpha'), what: "symlink into another namespace's root" },
    { ns: 'beta', path: join(root('beta'), 'to-auth'), what: 'symlink to the auth file' },
    { ns: 'beta', path: join(root('beta'), 'datadir', 'auth.json'), what: 'directory symlink into the data dir' },
    { ns: 'beta', path: `${root('beta')}/../alpha/notes.txt`, what: '.. escape' },
    { ns: 'beta', path: `${root('beta')}/../../../../../../etc/shadow`, what: '.. escape to /etc' },
    { ns: 'beta', path: `${root('beta')}/./sub/../../../data/auth.json`, what: '.. escape to the data dir' },
    { ns: 'beta', path: join(root('alpha'), 'notes.txt'), what: "another namespace's root" },
    { ns: 'gamma', path: join(root('alpha'), 'notes.txt'), what: "another namespace's root inside this one's" },
    { ns: 'gamma', path: join(root('beta'), 'escape'), what: "symlink under another namespace's root" },
    { ns: 'delta', path: join(root('beta'), 'ok.txt'), what: 'a namespace with no root' },
    { ns: 'beta', path: join(data, 'assets', 'alpha', 'x', 'content'), what: "another namespace's uploads" },
  ];
}

describe('over HTTP', () => {
  it('refuses every attack path with 403 KIOKU_ASSET_PATH_REFUSED and appends nothing', async () => {
    const before = head();
    for (const a of attacks()) {
      const r = await s.call('POST', '/v1/assets', { id: 'x', path: a.path, description: 'x' }, TOKENS[a.ns]);
      expect({ what: a.what, path: a.path, ns: a.ns, status: r.status, code: (r.body['error'] as { code: string })?.code }).toEqual({
        what: a.what,
        path: a.path,
        ns: a.ns,
        status: 403,
        code: 'KIOKU_ASSET_PATH_REFUSED',
      });
      expect(JSON.stringify(r.body)).not.toContain(SECRET);
      expect(JSON.stringify(r.body)).not.toContain(TOKENS.alpha);
    }
    expect(head()).toBe(before);
    expect((await s.call('GET', '/v1/assets/x?include_content=1', undefined, TOKENS.beta)).status).toBe(404);
  });

  it('tells a namespace with no root how to configure one, or to send the content', async () => {
    const r = await s.call('POST', '/v1/assets', { path: join(root('beta'), 'ok.txt'), description: 'x' }, TOKENS.delta);
    expect(r.status).toBe(403);
    expect(r.body['error']).toMatchObject({ code: 'KIOKU_ASSET_PATH_REFUSED', details: { field: 'path', reason: 'no_root' } });
    expect((r.body['error'] as { message: string }).message).toMatch(/KIOKU_ASSET_ROOTS="delta=.*content/);
  });

  it('registers a file under the namespace root and reads it back; refuses it once it becomes a symlink out', async () => {
    const file = join(root('beta'), 'ok.txt');
    const reg = await s.call('POST', '/v1/assets', { id: 'diagram', path: file, description: 'beta diagram', mime: 'text/plain' }, TOKENS.beta);
    expect(reg).toMatchObject({ status: 200, body: { id: 'diagram', size: 17, changed: true } });
    expect((await s.call('GET', '/v1/assets/diagram?include_content=1', undefined, TOKENS.beta)).body).toMatchObject({
      status: 'ok',
      content: { data: 'a diagram of beta' },
    });
    // alpha cannot see it (its own namespace has no asset "diagram")
    expect((await s.call('GET', '/v1/assets/diagram?include_content=1', undefined, TOKENS.alpha)).status).toBe(404);
    // swapped for a symlink to the auth file since registration: the read is checked again
    rmSync(file);
    symlinkSync(join(data, 'auth.json'), file);
    const swapped = await s.call('GET', '/v1/assets/diagram?include_content=1', undefined, TOKENS.beta);
    expect(swapped).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_ASSET_PATH_REFUSED' } } });
    expect(JSON.stringify(swapped.body)).not.toContain(TOKENS.alpha);
    expect((await s.call('GET', '/v1/assets/diagram', undefined, TOKENS.beta)).body).toMatchObject({ status: 'refused' });
    rmSync(file);
    writeFileSync(file, 'a diagram of beta');
  });

  it('refuses to read an asset a log from before the fix registered at /etc/passwd or in the data dir', async () => {
    for (const [id, path] of [
      ['old-passwd', '/etc/passwd'],
      ['old-auth', join(data, 'auth.json')],
    ] as const) {
      const { seq } = await s.state.store!.log.append({
        type: 'asset.registered',
        ns: 'beta',
        actor: 'test',
        data: { id, path, description: 'old', tags: [], size: 1, sha256: '0'.repeat(64) },
      });
      await s.state.store!.projections.waitFor(seq);
      const r = await s.call('GET', `/v1/assets/${id}?include_content=1`, undefined, TOKENS.beta);
      expect(r).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_ASSET_PATH_REFUSED' } } });
      expect((await s.call('GET', `/v1/assets/${id}`, undefined, TOKENS.beta)).body).toMatchObject({ status: 'refused' });
    }
  });

  it('keeps uploaded content per namespace, bounded, and serves it back', async () => {
    const up = await s.call('POST', '/v1/assets', { id: 'up', content: 'uploaded text', name: 'notes.md', description: 'uploaded notes' }, TOKENS.delta);
    expect(up).toMatchObject({ status: 200, body: { id: 'up', size: 13 } });
    expect((await s.call('GET', '/v1/assets/up?include_content=1', undefined, TOKENS.delta)).body).toMatchObject({
      status: 'ok',
      content: { data: 'uploaded text' },
    });
    const bin = await s.call(
      'POST',
      '/v1/assets',
      { id: 'bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64', description: 'bytes' },
      TOKENS.delta,
    );
    expect(bin).toMatchObject({ status: 200, body: { size: 4 } });
    const before = head();
    for (const body of [
      { content: 'x'.repeat(1024 * 1024 + 1), description: 'too big' },
      { content: 'not base64!', encoding: 'base64', description: 'x' },
      { content: 'x', name: '../../auth.json', description: 'x' },
      { content: 'x', path: join(root('beta'), 'ok.txt'), description: 'both' },
      { description: 'neither' },
    ]) {
      const r = await s.call('POST', '/v1/assets', body, TOKENS.delta);
      expect(r.status).toBe(400);
      expect(r.body['error']).toMatchObject({ code: 'KIOKU_INPUT_INVALID' });
    }
    // delta's upload is not beta's content: beta naming its path is refused
    const other = await s.call('GET', '/v1/assets/up', undefined, TOKENS.delta);
    const r = await s.call('POST', '/v1/assets', { path: other.body['path'], description: 'x' }, TOKENS.beta);
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'KIOKU_ASSET_PATH_REFUSED' } } });
    expect(head()).toBe(before);
  });

  it('never reads a directory an import names: the client sends the files', async () => {
    const before = head();
    const r = await s.call('POST', '/v1/import', { kind: 'wiki', root: data, files: [] }, TOKENS.beta);
    expect(r).toMatchObject({ status: 200, body: { files: 0, added: [] } });
    const outside = await s.call('POST', '/v1/import', { kind: 'wiki', root: '/etc', files: [{ path: '/etc/shadow', markdown: '# mine' }] }, TOKENS.beta);
    // the markdown stored is what the client sent, never the file the path names
    expect(outside.status).toBe(200);
    expect(JSON.stringify((await s.call('POST', '/v1/items/query', { layers: ['wiki'] }, TOKENS.beta)).body)).not.toMatch(/root:/);
    expect(head()).toBeGreaterThanOrEqual(before);
  });
});

describe('over MCP (kioku mcp on stdio, remote mode)', () => {
  let client: Client;
  type ToolResult = { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] };
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO, 'bin/kioku.js'), 'mcp'],
      cwd: REPO,
      env: { PATH: process.env['PATH'] ?? '', HOME: base.path, KIOKU_URL: s.url, KIOKU_TOKEN: TOKENS.beta },
      stderr: 'pipe',
    });
    client = new Client({ name: 'asset-matrix', version: '0.0.0' });
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => client?.close());

  it('refuses every attack path a beta client names, appending nothing', async () => {
    const before = head();
    for (const a of attacks().filter((x) => x.ns === 'beta')) {
      const r = await call('register_asset', { id: 'm', path: a.path, description: 'x' });
      expect({ what: a.what, isError: r.isError, code: (r.structuredContent?.['error'] as { code?: string })?.code }).toEqual({
        what: a.what,
        isError: true,
        code: 'KIOKU_ASSET_PATH_REFUSED',
      });
      expect(JSON.stringify(r)).not.toContain(SECRET);
    }
    expect(head()).toBe(before);
    const got = await call('get_asset', { id: 'old-auth', include_content: true });
    expect(got).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_ASSET_PATH_REFUSED' } } });
    expect(JSON.stringify(got)).not.toContain(TOKENS.alpha);
  });

  it('registers by path under the root and by content, and says the policy in its tool descriptions', async () => {
    const { tools } = await client.listTools();
    const register = tools.find((t) => t.name === 'register_asset');
    expect(register?.description).toMatch(/asset root.*KIOKU_ASSET_ROOTS.*content/s);
    expect(tools.find((t) => t.name === 'get_asset')?.description).toMatch(/policy/);
    expect((await call('register_asset', { id: 'via-mcp', path: join(root('beta'), 'ok.txt'), description: 'beta diagram' })).isError).toBeFalsy();
    expect((await call('get_asset', { id: 'via-mcp', include_content: true })).structuredContent).toMatchObject({
      status: 'ok',
      content: { data: 'a diagram of beta' },
    });
    expect((await call('register_asset', { id: 'sent', content: 'from another machine', name: 'remote.txt', description: 'sent bytes' })).isError).toBeFalsy();
    expect((await call('get_asset', { id: 'sent', include_content: true })).structuredContent).toMatchObject({
      status: 'ok',
      content: { data: 'from another machine' },
    });
  });
});
