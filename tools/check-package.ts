// npm run check:package -- [--json] [--repo DIR] [--keep] [--ignore-scripts]
// The package as a user gets it: `npm pack` (prepack empties dist/, prepare builds it) in a copy
// of the checkout (the working tree's files, node_modules linked: packing never touches the
// checkout's own dist/), then `npm install -g` of the tarball into an empty prefix, and from
// there, with a fresh HOME: `kioku serve` answering a recall over HTTP, `kioku mcp` answering a
// tool call over stdio, `kioku doctor`, `kioku hook install` and one `kioku hook run`. Minutes,
// not seconds (the install builds hnswlib-node), so CI runs it as a script, not in `npm test`.
// With --ignore-scripts npm runs no install script: hnswlib-node stays unbuilt and every step
// must pass on the exact vector scan (projections/vector/graph.ts), doctor saying so.
// Prints a table, then one JSON object; exit 0 when every step passed, 1 otherwise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isRuntimeFile, MAX_PACKED_BYTES, REQUIRED_FILES } from './package-files.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    repo: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'ignore-scripts': { type: 'boolean', default: false },
  },
});
const repo = resolve(values.repo ?? join(import.meta.dirname, '..'));
const work = mkdtempSync(join(tmpdir(), 'kioku-package-'));
const prefix = join(work, 'prefix');
const home = join(work, 'home');
const data = join(home, 'data');
mkdirSync(data, { recursive: true });
/** The flags a global install needs on npm 11: allowScripts in package.json does not reach a global install. */
const INSTALL_SCRIPTS = 'hnswlib-node,classic-level,msgpackr-extract';
const noScripts = values['ignore-scripts'];
const scriptFlag = noScripts ? '--ignore-scripts' : `--allow-scripts=${INSTALL_SCRIPTS}`;

interface Step {
  name: string;
  ok: boolean;
  ms: number;
  detail: string;
}
const steps: Step[] = [];
const log = (m: string): void => void process.stderr.write(`${m}\n`);

async function step(name: string, run: () => Promise<string> | string): Promise<boolean> {
  const t0 = performance.now();
  try {
    const detail = await run();
    steps.push({ name, ok: true, ms: Math.round(performance.now() - t0), detail });
    return true;
  } catch (err) {
    steps.push({ name, ok: false, ms: Math.round(performance.now() - t0), detail: (err as Error).message.slice(0, 2_000) });
    return false;
  }
}

const env = { PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`, HOME: home };
const kioku = join(prefix, 'bin', 'kioku');
const run = (args: string[], input?: string): string =>
  execFileSync(kioku, args, { env, encoding: 'utf8', timeout: 120_000, ...(input !== undefined ? { input } : {}), stdio: ['pipe', 'pipe', 'pipe'] });
const lastJson = (out: string): Record<string, unknown> => JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let tarball = '';
let contents: { entries: number; bytes: number; unpacked: number; top: Record<string, number> } | undefined;
let serve: ChildProcess | undefined;
try {
  await step('pack', () => {
    const copy = join(work, 'src');
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const f of files) if (f !== 'node_modules' && existsSync(join(repo, f))) cpSync(join(repo, f), join(copy, f), { recursive: true });
    symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: copy, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const packed = (JSON.parse(out.slice(out.indexOf('['))) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[])[0];
    if (!packed) throw new Error('npm pack printed no tarball');
    tarball = join(work, packed.filename);
    const top: Record<string, number> = {};
    for (const f of packed.files) {
      const head = f.path.split('/').slice(0, f.path.startsWith('dist/') ? 2 : 1).join('/');
      top[head] = (top[head] ?? 0) + 1;
    }
    contents = { entries: packed.files.length, bytes: packed.size, unpacked: packed.unpackedSize, top };
    const stray = packed.files.filter((f) => !isRuntimeFile(f.path));
    if (stray.length) throw new Error(`not runtime files: ${stray.map((f) => f.path).slice(0, 5).join(', ')}`);
    for (const need of REQUIRED_FILES)
      if (!packed.files.some((f) => f.path === need)) throw new Error(`${need} is not in the tarball`);
    if (packed.size > MAX_PACKED_BYTES) throw new Error(`the tarball is ${packed.size} bytes, above ${MAX_PACKED_BYTES}`);
    return `${packed.filename}: ${packed.files.length} files, ${packed.size} bytes (${packed.unpackedSize} unpacked)`;
  });
  const installed = tarball !== '' && await step('install', () => {
    execFileSync('npm', ['install', '-g', '--prefix', prefix, scriptFlag, '--no-audit', '--no-fund', tarball], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    const root = join(prefix, 'lib', 'node_modules', 'kioku');
    const built = existsSync(join(root, 'node_modules', 'hnswlib-node', 'build', 'Release', 'addon.node'));
    if (built === noScripts) throw new Error(`hnswlib-node ${built ? 'built though no script was to run' : 'not built'}`);
    return `npm install -g --prefix <empty> ${scriptFlag} ./${tarball.split('/').at(-1)}; hnswlib-node ${built ? 'built' : 'not built'}`;
  });
  if (installed) {
    await step('kioku --version', () => run(['--version']).trim());
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await step('kioku serve: a recall over HTTP', async () => {
      serve = spawn(kioku, ['serve', '--data', data, '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let said = '';
      serve.stdout?.on('data', (d: Buffer) => (said += d.toString()));
      serve.stderr?.on('data', (d: Buffer) => (said += d.toString()));
      await until('the service', 60_000, async () => ((await fetch(`${url}/v1/health`)).ok ? true : undefined)).catch((err: Error) => {
        throw new Error(`${err.message}: ${said.slice(0, 1_000)}`);
      });
      const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
        const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
        return (await r.json()) as Record<string, unknown>;
      };
      await post('/v1/memories', {
        memories: [{ id: 'rollback', kind: 'procedure', text: 'To roll back a release run scripts/rollback.sh with the previous tag.', terms: ['revert'] }],
      });
      // the vector lane (the bundled model, hnswlib-node) joins once the memory is embedded
      const packet = await until('a hybrid recall (the memory embedded)', 60_000, async () => {
        const p = await post('/v1/recall', { query: 'how do I roll back the release?' });
        return p['retrieval_mode'] === 'hybrid' ? p : undefined;
      });
      const keys = (packet['records'] as { evidence_key: string }[]).map((r) => r.evidence_key);
      if (!keys.includes('ev1:private:memory:rollback')) throw new Error(`recall did not find the memory: ${JSON.stringify(keys)}`);
      return `${said.trim().split('\n')[0] ?? ''} | recall: ${keys.length} record(s), mode ${String(packet['retrieval_mode'])}`;
    });
    // the web page's files are read from the installed package (src/ui/static), not from a checkout
    await step('kioku serve: the web page at /ui', async () => {
      const sizes: string[] = [];
      for (const file of ['/ui', '/ui/app.js', '/ui/overview.js', '/ui/style.css']) {
        const r = await fetch(`${url}${file}`);
        if (!r.ok) throw new Error(`${file}: ${r.status}`);
        sizes.push(`${file} ${(await r.text()).length} B`);
      }
      return sizes.join(', ');
    });
    await step('kioku mcp: one tool call over stdio', async () => {
      const client = new Client({ name: 'kioku-check-package', version: '1' });
      await client.connect(new StdioClientTransport({ command: kioku, args: ['mcp', '--data', data], env, stderr: 'pipe' }));
      try {
        const tools = await client.listTools();
        const answer = (await client.callTool({ name: 'recall', arguments: { message: 'roll back the release' } })) as { content: { text: string }[]; isError?: boolean };
        const text = answer.content.map((c) => c.text).join('\n');
        if (answer.isError || !text.includes('rollback')) throw new Error(`recall over MCP: ${text.slice(0, 500)}`);
        return `${tools.tools.length} tools; recall answered (${text.length} chars)`;
      } finally {
        await client.close();
      }
    });
    await step('kioku doctor', () => {
      const report = lastJson(run(['doctor', '--data', data, '--query', 'roll back the release', '--expect-id', 'rollback', '--json']));
      if (report['status'] === 'failed') throw new Error(JSON.stringify(report).slice(0, 1_000));
      const index = (report['store'] as { vector_index?: { kind: string } } | null)?.vector_index?.kind;
      if (index !== (noScripts ? 'exact' : 'hnsw')) throw new Error(`vector index ${String(index)}`);
      return `status ${String(report['status'])}, ${(report['checks'] as unknown[]).length} checks, warnings ${JSON.stringify(report['warnings'])}`;
    });
    await step('kioku eval says its cases stay in a checkout', () => {
      try {
        run(['eval', '--json']);
      } catch (err) {
        const e = err as { status?: number; stderr?: string };
        if (e.status === 2 && e.stderr?.includes('ship with a checkout')) return 'exit 2, names the missing cases';
        throw new Error(`exit ${String(e.status)}: ${String(e.stderr).slice(0, 500)}`);
      }
      throw new Error('kioku eval ran without its cases');
    });
    await step('kioku hook install (fresh HOME) and one hook run', () => {
      run(['hook', 'install', '--data', data, '--json']);
      const settings = readFileSync(join(home, '.claude', 'settings.json'), 'utf8');
      const bin = join(prefix, 'lib', 'node_modules', 'kioku', 'bin', 'kioku.js');
      if (!settings.includes(bin)) throw new Error(`settings.json does not run the installed kioku: ${settings.slice(0, 500)}`);
      const out = run(['hook', 'run', '--data', data], JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'pkg-check', prompt: 'how do I roll back the release?', cwd: home }));
      if (!out.includes('rollback')) throw new Error(`the hook injected no recall: ${out.slice(0, 500)}`);
      return `~/.claude/settings.json runs ${bin}; UserPromptSubmit injected ${out.length} chars`;
    });
  }
} finally {
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((r) => serve?.once('exit', r));
  }
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}

for (const s of steps) process.stdout.write(`${s.ok ? 'ok  ' : 'FAIL'} ${s.name.padEnd(44)} ${String(s.ms).padStart(7)} ms  ${s.detail}\n`);
const ok = steps.length > 0 && steps.every((s) => s.ok);
if (values.json) process.stdout.write(`${JSON.stringify({ ok, tarball: contents, install_command: `npm install -g ${scriptFlag} ./kioku-<version>.tgz`, steps })}\n`);
process.exitCode = ok ? 0 : 1;
