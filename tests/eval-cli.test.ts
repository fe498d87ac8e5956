// The evaluation harness through the CLI (`kioku eval`): a real server process, a running service
// with a token, the LLM judge's settings handed to the server process. Child processes only, so
// the mutation suite (vitest.mutate.config.ts) leaves this file out: a mutant in the parent
// process is invisible to them, and they are the slowest tests of the harness.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';
import { startTestServer } from './server-helpers.js';
import { useEvalCases } from './support/eval-cases.js';

const cases = useEvalCases();

it('evaluates a running token-protected service with KIOKU_TOKEN, and refuses to start without one', async () => {
  const token = 'eval-token-0123456789';
  const live = await startTestServer({ tokens: { tokens: [{ name: 'eval', token, namespace: 'private', scopes: ['memory:read', 'memory:write'] }] } });
  try {
    await live.call('POST', '/v1/memories', { memories: [{ id: 'staging-db', kind: 'fact', text: 'The staging database is pg-staging-2.' }] }, token);
    const without = await runCli(['eval', '--cases', cases.file, '--url', live.url, '--live']);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/requires a token: set KIOKU_TOKEN/);
    const withToken = await runCli(['eval', '--cases', cases.file, '--url', live.url, '--live', '--json'], { KIOKU_TOKEN: token });
    expect(withToken.code).toBe(1); // the wrong label still fails
    expect(withToken.json).toMatchObject({ summary: { cases: 3, passed: 2, failed: 1, transport_failures: 0 } });
  } finally {
    await live.stop();
  }
}, 60_000);

it('runs a real server process over HTTP from the CLI and exits 1 when a case fails', async () => {
  const r = await runCli(['eval', '--cases', cases.file, '--embedder', 'hash', '--judge', 'disabled', '--json']);
  expect(r.code).toBe(1);
  expect(r.json).toMatchObject({ transport: 'http', summary: { cases: 3, passed: 2, failed: 1 } });
  // other case files share no case with the shipped baseline: no made-up regression
  expect(r.json?.['comparison']).toBeNull();
  const one = await runCli([
    'eval',
    '--cases',
    cases.file,
    '--only',
    'right-label',
    '--embedder',
    'hash',
    '--judge',
    'disabled',
    '--transport',
    'inproc',
    '--json',
  ]);
  expect(one.code).toBe(0);
  expect(one.json).toMatchObject({ summary: { cases: 1, passed: 1 } });
  const ghost = await runCli(['eval', '--cases', cases.file, '--only', 'right-label,no-such-case']);
  expect(ghost.code).toBe(2);
  expect(ghost.stderr).toMatch(/no case with id no-such-case/);
}, 60_000);

describe('evaluating the LLM judge', () => {
  let llm: Server;
  let llmUrl: string;
  beforeAll(async () => {
    // an OpenAI-compatible judge on loopback: anything about staging is relevant
    llm = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { messages: { content: string }[] };
        const items = (JSON.parse(body.messages[1]?.content ?? '{}') as { items: { id: string; text: string }[] }).items;
        const verdicts = items.map((it) => ({ id: it.id, score: /staging database/i.test(it.text) ? 0.95 : 0.05 }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { content: JSON.stringify({ verdicts }) } }] }));
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
    llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => llm.close(() => r())));

  it("passes the judge's endpoint settings to the evaluated server process, and nothing else", async () => {
    const r = await runCli(['eval', '--cases', cases.file, '--embedder', 'hash', '--judge', 'llm', '--json'], {
      KIOKU_JUDGE_URL: llmUrl,
      KIOKU_JUDGE_MODEL: 'judge-model',
    });
    expect(r.json).toMatchObject({ transport: 'http', judge: 'llm', summary: { transport_failures: 0 } });
    const right = (r.json?.['results'] as { id: string; delivered: string[]; judge_status: string }[]).find((x) => x.id === 'right-label');
    expect(right).toMatchObject({ delivered: ['staging-db'], judge_status: 'complete' });
  }, 60_000);

  it('refuses an LLM judge without its endpoint before starting anything (exit 2)', async () => {
    const r = await runCli(['eval', '--cases', cases.file, '--embedder', 'hash', '--judge', 'llm'], { KIOKU_JUDGE_URL: '', KIOKU_JUDGE_MODEL: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/KIOKU_JUDGE_URL/);
    const unknown = await runCli(['eval', '--cases', cases.file, '--judge', 'magic']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--judge must be local, llm or disabled/);
  });
});
