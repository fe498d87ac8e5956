// kioku ask: recall through the core, then a model (an OpenAI-compatible endpoint on
// loopback here) answers from the delivered evidence only; refusals when no model is set,
// and a clear error when the model fails after recall.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKioku } from '../src/kioku.js';
import { runCli, tempDir } from './helpers.js';

describe('kioku ask', () => {
  let llm: Server;
  let llmUrl: string;
  const seen: { messages: { role: string; content: string }[] }[] = [];
  const data = tempDir();

  beforeAll(async () => {
    llm = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; messages: { role: string; content: string }[] };
        seen.push(body);
        if (body.model === 'broken') return void res.writeHead(500).end();
        const key = /\[(ev1:[^\]]+)\]/.exec(body.messages[1]?.content ?? '')?.[1];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [{ message: { content: key ? `Use scripts/rollback.sh [${key}].` : 'The evidence does not say.' } }],
            usage: { prompt_tokens: 10, completion_tokens: 5 },
          }),
        );
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
    llmUrl = `http://127.0.0.1:${(llm.address() as { port: number }).port}`;
    const k = await openKioku({ data: data.path });
    await k.writeMemories({ memories: [{ id: 'rollback', kind: 'procedure', text: 'Roll back the billing service with scripts/rollback.sh billing.' }] });
    await k.close();
  });
  afterAll(async () => {
    await new Promise((r) => llm.close(r));
    data.cleanup();
  });

  const env = (model: string) => ({ KIOKU_LLM_URL: llmUrl, KIOKU_LLM_MODEL: model, KIOKU_EMBEDDER: 'hash' });

  it('answers from the delivered evidence and returns its keys, and the whole packet with --json', async () => {
    const r = await runCli(['ask', 'how do I roll back the billing service?', '--data', data.path, '--json'], env('tiny'));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      answer: 'Use scripts/rollback.sh [ev1:private:memory:rollback].',
      evidence_refs: ['ev1:private:memory:rollback'],
      packet: { retrieval_mode: 'keyword' },
    });
    // the model saw the question and the evidence, under instructions to use nothing else
    const last = seen.at(-1);
    expect(last?.messages[0]?.content).toMatch(/from nothing else/);
    expect(last?.messages[1]?.content).toContain('scripts/rollback.sh billing');
  }, 60_000);

  it('refuses without a model, and reports a failing model after recall', async () => {
    const none = await runCli(['ask', 'anything', '--data', data.path], { KIOKU_EMBEDDER: 'hash' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/KIOKU_LLM_URL/);
    const broken = await runCli(['ask', 'how do I roll back?', '--data', data.path], env('broken'));
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/KIOKU_LLM_FAILED/);
  }, 60_000);
});
