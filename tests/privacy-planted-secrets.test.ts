// Issue 33's must-show: 20 fake secrets of different kinds planted through every write path — HTTP
// memories, turns/start (query and conversation) and turns/complete (answer and tool data), MCP
// write_memory and log_episodes (kioku mcp over stdio), the hook (a prompt and a captured answer),
// `kioku import` (a child process) — and then: no file under the data dir but the vault holds any of
// them (LevelDB .log/.ldb, projection snapshots, the hook's files), recall shows placeholders, and
// reveal_secret (and kioku secret reveal) give every value back to this machine. A real server on a loopback port.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHook } from '../src/hook/run.js';
import { SecretVault, vaultDir } from '../src/privacy/index.js';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';
import { callTool, mcpClient } from './support/mcp-client.js';

// fake, made for this test (never valid anywhere)
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1Zx2Cv3Bn4Mm5Ll6K',
  'k7Jj8Hh9Gg0Ff1Dd2Ss3Aa4Qq5Ww6Ee7Rr8Tt9Yy0Uu1Ii2Oo3Pp4Zz5Xx6Cc7Vv8Bb',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const S = {
  awsKey: 'AKIAZ7QW3ERT5YUI9OPA',
  awsSecret: 'q8Zr2Vx5Lm9Tn3Wb6Ks1Hd7Fg4Jy0AeQw2Zx5Cv8',
  gcpKey: 'AIzaSyD4k8Lm2Np6Qr0St3Uv7Wx1Yz5Ab9Cd2Ef6',
  openai: 'sk-proj-Hq7Kd2Lm9Xv4Tn6Wb1Ks8Zr3Fg5Jy0AeQw1',
  pgPassword: 'Pg-Secr3t!7x',
  cnPassword: 'Mima2026xyz',
  anthropic: 'sk-ant-api03-Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1Zx2Cv3Bn4Mm5',
  slackBot: 'xoxb-2718281828-3141592653-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8',
  stripe: 'sk_live_51Hq7Kd2Lm9Xv4Tn6Wb1Ks8Zr',
  slackHook: 'https://hooks.slack.com/services/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J',
  npm: 'npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y',
  huggingface: 'hf_Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ.Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1Zx2Cv3',
  gitlab: 'glpat-Zr8vQ2mXc4Lp9Tn6Wb1K',
  pem: PEM,
  mysqlPassword: 'My5ql#Root99',
  apiKey: 'k3y-Zr8vQ2mXc4Lp9Tn6Wb1Ks7H',
  sendgrid: 'SG.Zr8vQ2mXc4Lp9Tn6Wb1Ks7.Hd3Fg5Jy0AeQw1Zx2Cv3Bn4Mm5Ll6Kk7Jj8Hh9Gg0Ff1D',
  github: 'ghp_Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1',
  telegram: '7012345678:AAZr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw',
} as const;

/** Every file under `dir` but those under `skip`, with its path. */
function filesUnder(dir: string, skip: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === skip) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
    else out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

describe('20 secrets through every write path', () => {
  let server: TestServer;
  let mcp: Client;
  const docs = tempDir();

  beforeAll(async () => {
    server = await startTestServer();
    mcp = await mcpClient(server.dir);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
    docs.cleanup();
  });

  async function plant(): Promise<void> {
    const ok = (r: { status: number; body: unknown }) => expect(r.status, JSON.stringify(r.body)).toBe(200);
    // HTTP memories
    ok(
      await server.call('POST', '/v1/memories', {
        memories: [
          { id: 'aws', kind: 'fact', text: `staging AWS: AWS_ACCESS_KEY_ID=${S.awsKey} aws_secret_access_key=${S.awsSecret}` },
          { id: 'keys', kind: 'fact', text: `maps key ${S.gcpKey}; the OpenAI key for evals is ${S.openai}` },
        ],
      }),
    );
    // turns/start (query and conversation) and turns/complete (answer and tool data)
    const session = await server.call('POST', '/v1/sessions/open', { agent: 'planted' });
    const turn = await server.call('POST', '/v1/turns/start', {
      session_id: session.body['session_id'],
      query: `why does postgres://app:${S.pgPassword}@db.internal:5432/app refuse the connection?`,
      conversation: [{ role: 'user', content: `服务器的登录密码是 ${S.cnPassword}` }],
    });
    ok(turn);
    ok(
      await server.call('POST', `/v1/turns/${String(turn.body['turn_id'])}/complete`, {
        answer: `Use ANTHROPIC_API_KEY=${S.anthropic} for the judge.`,
        tool_data: { stdout: `SLACK_BOT_TOKEN=${S.slackBot}` },
      }),
    );
    // MCP write_memory and log_episodes
    const wrote = await callTool(mcp, 'write_memory', {
      memories: [{ kind: 'fact', text: `billing uses Stripe secret ${S.stripe} and posts alerts to ${S.slackHook}` }],
    });
    expect(wrote.isError, wrote.content[0]?.text).toBeFalsy();
    const logged = await callTool(mcp, 'log_episodes', {
      messages: [
        { role: 'user', text: `publish with //registry.npmjs.org/:_authToken=${S.npm}` },
        { role: 'assistant', text: `and pull the model with HF token ${S.huggingface}` },
      ],
    });
    expect(logged.isError, logged.content[0]?.text).toBeFalsy();
    // the hook: a prompt (UserPromptSubmit) and the answer it captures (Stop), Codex's shape
    const hook = (name: string, extra: Record<string, unknown>) =>
      JSON.stringify({ hook_event_name: name, session_id: 'cx-planted', turn_id: 't-1', cwd: '/repo', model: 'gpt-5', permission_mode: 'default', transcript_path: null, ...extra });
    const opts = { data: server.dir, host: 'codex' as const, env: { PATH: process.env['PATH'] ?? '', HOME: server.dir } };
    await runHook(hook('UserPromptSubmit', { prompt: `the API answers 401 to Authorization: Bearer ${S.jwt}, why?` }), opts);
    expect(await runHook(hook('Stop', { last_assistant_message: `Rotate it with glab and the token ${S.gitlab}.`, stop_hook_active: false }), opts)).toEqual({ stdout: '' });
    // kioku import (a child process, through the running service)
    mkdirSync(join(docs.path, 'wiki'), { recursive: true });
    writeFileSync(
      join(docs.path, 'wiki', 'ops.md'),
      [
        '# Ops credentials',
        '',
        '## Deploy key',
        '',
        PEM,
        '',
        '## Services',
        '',
        `DATABASE_URL=mysql://root:${S.mysqlPassword}@db:3306/app`,
        `config: {"api_key": "${S.apiKey}", "sendgrid": "${S.sendgrid}"}`,
        `GitHub automation uses ${S.github} and the bot ${S.telegram}.`,
        '',
      ].join('\n'),
    );
    const imported = await runCli(['import', 'wiki', join(docs.path, 'wiki'), '--data', server.dir, '--no-embed', '--json'], { HOME: server.dir });
    expect(imported.code, imported.stderr).toBe(0);
  }

  it('stores none of them, recalls placeholders, and reveals each one locally', async () => {
    expect(Object.keys(S)).toHaveLength(20);
    await plant();

    // recall and lookups show placeholders, never the values
    const recalled = await server.call('POST', '/v1/recall', { query: 'Stripe secret billing alerts OpenAI key maps staging AWS', limit: 10 });
    const shown = JSON.stringify(recalled.body);
    expect(shown).toContain('⟦secret:');
    const evidence = await server.call('GET', '/v1/evidence/ev1:private:memory:aws');
    expect(String(evidence.body['text'])).toMatch(/^staging AWS: AWS_ACCESS_KEY_ID=⟦secret:aws-access-key:[a-z0-9]+⟧ aws_secret_access_key=⟦secret:aws-secret-key:[a-z0-9]+⟧$/);
    for (const [name, value] of Object.entries(S)) expect(shown.includes(value), name).toBe(false);

    // reveal_secret (kioku mcp → the local service) gives every value back
    const vault = new SecretVault(vaultDir(server.dir));
    for (const [name, value] of Object.entries(S)) {
      const r = await callTool(mcp, 'reveal_secret', { id: vault.idOf('private', value) });
      expect({ name, error: r.isError ? r.content[0]?.text : undefined, value: r.structuredContent?.['value'] }).toEqual({ name, error: undefined, value });
    }

    // and `kioku secret reveal` (a child process, through the running service): the value alone on stdout
    const cli = await runCli(['secret', 'reveal', `⟦secret:private-key:${vault.idOf('private', S.pem)}⟧`, '--data', server.dir], { HOME: server.dir });
    expect({ code: cli.code, stdout: cli.stdout }).toEqual({ code: 0, stdout: `${S.pem}\n` });

    // every file under the data dir but the vault, after the service wrote its snapshots and closed
    await mcp.close();
    await server.close();
    const files = filesUnder(server.dir, vaultDir(server.dir));
    expect(files.some((f) => f.path.includes('projections'))).toBe(true);
    expect(files.some((f) => /\.(log|ldb)$/.test(f.path))).toBe(true);
    const leaks = files.flatMap((f) => Object.entries(S).filter(([, value]) => f.bytes.includes(value)).map(([name]) => `${name} in ${f.path}`));
    expect(leaks).toEqual([]);
    // the PEM body, not only the block whole
    expect(files.filter((f) => f.bytes.includes('k7Jj8Hh9Gg0Ff1Dd2Ss3Aa4Qq5Ww6Ee7Rr8Tt9Yy0Uu1Ii2Oo3Pp4Zz5Xx6Cc7Vv8Bb')).map((f) => f.path)).toEqual([]);
  }, 60_000);
});
