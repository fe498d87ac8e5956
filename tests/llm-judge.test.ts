// The LLM judge speaks the OpenAI chat protocol (checked against a protocol server on
// loopback): batches of ≤ 32 KiB, one shared deadline, missing or malformed verdicts
// unknown — never negative.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LlmJudge, MAX_REQUEST_BYTES, parseVerdicts, type JudgeRequest } from '../src/recall/index.js';

let server: Server;
let base: string;
const bodies: number[] = [];
let mode: 'all' | 'skip-odd' | 'slow' | 'garbage' = 'all';

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      bodies.push(Buffer.byteLength(raw));
      const body = JSON.parse(raw) as { messages: { content: string }[] };
      const items = (JSON.parse(body.messages[1]?.content ?? '{}') as { items: { id: string; text: string }[] }).items;
      const reply = (content: string): void => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { content } }], usage: { prompt_tokens: 100, completion_tokens: 10 } }));
      };
      if (mode === 'slow') return void setTimeout(() => reply('{"verdicts":[]}'), 1_000);
      if (mode === 'garbage') return reply('I think they are all great!');
      const verdicts = items.filter((_, i) => mode === 'all' || i % 2 === 0).map((it) => ({ id: it.id, score: it.text.includes('rollback') ? 0.9 : 0.2 }));
      reply('```json\n' + JSON.stringify({ verdicts }) + '\n```');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const request = (n: number, textChars = 100, deadlineMs = 5_000): JudgeRequest => ({
  utterance: 'how do I roll back?',
  dialogue: [{ role: 'user', content: 'x'.repeat(10_000) }],
  candidates: Array.from({ length: n }, (_, i) => ({
    key: `ev1:p:memory:m${i}`,
    title: `t${i}`,
    text: `${i % 3 === 0 ? 'rollback' : 'other'} ${'y'.repeat(textChars)}`,
  })),
  deadline: Date.now() + deadlineMs,
});

it('batches candidates so every request stays within 32 KiB, with the dialogue capped', async () => {
  mode = 'all';
  bodies.length = 0;
  const judge = new LlmJudge({ url: base, model: 'judge-model' });
  const r = await judge.judge(request(40, 1_900));
  expect(r.status).toBe('complete');
  expect(r.calls).toBeGreaterThan(1);
  expect(Math.max(...bodies)).toBeLessThanOrEqual(MAX_REQUEST_BYTES);
  expect(r.tokens).toEqual({ prompt: 100 * r.calls, completion: 10 * r.calls });
  expect(r.verdicts.get('ev1:p:memory:m0')).toBe(0.9);
  expect(r.verdicts.get('ev1:p:memory:m1')).toBe(0.2);
});

it('leaves missing verdicts unknown and reports partial', async () => {
  mode = 'skip-odd';
  const r = await new LlmJudge({ url: base, model: 'm' }).judge(request(4));
  expect(r.status).toBe('partial');
  expect(r.verdicts.get('ev1:p:memory:m1')).toBeNull();
});

it('fails (all unknown) on an unparseable reply or when the shared deadline passes', async () => {
  mode = 'garbage';
  expect((await new LlmJudge({ url: base, model: 'm' }).judge(request(3))).status).toBe('failed');
  mode = 'slow';
  const started = Date.now();
  const r = await new LlmJudge({ url: base, model: 'm' }).judge(request(3, 100, 200));
  expect(r.status).toBe('failed');
  expect(r.error).toMatch(/timeout/);
  expect(Date.now() - started).toBeLessThan(900);
});

it('accepts only scores in [0, 1]', () => {
  expect([...parseVerdicts('{"verdicts":[{"id":"c0","score":1.5},{"id":"c1","score":0.4},{"id":"c2","score":"high"}]}')]).toEqual([['c1', 0.4]]);
});
