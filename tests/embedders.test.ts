// Embedding providers: the HTTP clients speak Ollama's and the OpenAI embeddings
// protocol (checked against a protocol server on loopback, since no model server runs
// here), time out cleanly, and report errors with their code; the optional ONNX
// provider says how to install what it needs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder, OllamaEmbedder, OnnxEmbedder, OpenAiEmbedder, chunkText, createEmbedder, embedDocuments } from '../src/embed/index.js';
import { isMainlyCjk } from '../src/text/index.js';

let server: Server;
let base: string;
const seen: { url: string; body: unknown; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { input: string[]; model: string };
      seen.push({ url: req.url ?? '', body, auth: req.headers.authorization });
      if (body.model === 'slow') return void setTimeout(() => res.end('{}'), 2_000);
      if (body.model === 'missing') {
        res.statusCode = 404;
        return void res.end('model "missing" not found');
      }
      const vectors = body.input.map((t) => [t.length, 1, 0]);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/embed') return void res.end(JSON.stringify({ embeddings: vectors }));
      if (req.url === '/v1/embeddings') return void res.end(JSON.stringify({ data: vectors.map((embedding, index) => ({ embedding, index })).reverse() }));
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('HTTP embedders', () => {
  it('call Ollama /api/embed and return normalised vectors', async () => {
    const e = new OllamaEmbedder({ url: base, model: 'nomic' });
    const [v] = await e.embed(['abc']);
    expect(seen.at(-1)).toMatchObject({ url: '/api/embed', body: { model: 'nomic', input: ['abc'] } });
    expect(Math.hypot(...(v as Float32Array))).toBeCloseTo(1, 5);
    expect(e.id).toBe('ollama:nomic');
    await e.init();
    expect(e.dim).toBe(3);
  });

  it('call an OpenAI-compatible /v1/embeddings with the bearer key, in input order', async () => {
    const e = new OpenAiEmbedder({ url: `${base}/v1`, model: 'text-embed', apiKey: 'sk-test' });
    const [a, b] = await e.embed(['a', 'bbbb']);
    expect(seen.at(-1)).toMatchObject({ url: '/v1/embeddings', auth: 'Bearer sk-test' });
    expect((a as Float32Array)[0]).toBeLessThan((b as Float32Array)[0] as number);
  });

  it('time out with a clear error', async () => {
    const e = new OllamaEmbedder({ url: base, model: 'slow', timeoutMs: 100 });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'KIOKU_EMBEDDER_FAILED', message: expect.stringMatching(/no answer within 100 ms/) });
  });

  it('report an HTTP error with its status and body', async () => {
    const e = new OllamaEmbedder({ url: base, model: 'missing' });
    await expect(e.embed(['x'])).rejects.toMatchObject({
      code: 'KIOKU_EMBEDDER_FAILED',
      details: { status: 404 },
      message: expect.stringMatching(/not found/),
    });
  });

  it('refuse a provider with no model configured', () => {
    expect(() => createEmbedder({ kind: 'openai', url: base })).toThrow(/KIOKU_EMBED_MODEL/);
    expect(() => createEmbedder({ kind: 'nonsense' as never })).toThrow(/kinds: use-lite, ollama, openai, local-onnx, hash/);
  });
});

describe('local-onnx', () => {
  it('explains how to install its optional package', async () => {
    const e = new OnnxEmbedder(import.meta.dirname);
    await expect(e.embed(['x'])).rejects.toMatchObject({
      code: 'KIOKU_EMBEDDER_UNAVAILABLE',
      message: expect.stringMatching(/ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface\/transformers/),
    });
  });
});

describe('text routing and chunking', () => {
  it('routes mainly-CJK text past an English-only model', () => {
    expect(isMainlyCjk('数据库迁移必须手动重新执行。')).toBe(true);
    expect(isMainlyCjk('部署回滚用 scripts/rollback.sh')).toBe(true);
    expect(isMainlyCjk('use the rollback 脚本 when a deploy fails')).toBe(false);
    expect(isMainlyCjk('plain English')).toBe(false);
  });

  it('embeds long texts in chunks and pools them', async () => {
    const long = Array.from({ length: 450 }, (_, i) => `word${i}`).join(' ');
    expect(chunkText(long)).toHaveLength(3);
    const e = new HashedEmbedder(32);
    const [pooled, short] = await embedDocuments(e, [long, 'short text']);
    expect(pooled).toHaveLength(32);
    expect(Math.hypot(...(pooled as Float32Array))).toBeCloseTo(1, 5);
    expect(short).toEqual((await e.embed(['short text']))[0]);
  });
});
