import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HashedEmbedder } from '../src/embed/index.js';
import { LocalJudge } from '../src/recall/index.js';
import { startServer, type RunningServer, type ServeOptions } from '../src/server/index.js';
import { tempDir } from './helpers.js';

export interface TestServer extends RunningServer {
  dir: string;
  call: (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  stop: () => Promise<void>;
}

/** A real server on an ephemeral loopback port, over a fresh data dir. */
export async function startTestServer(options: { tokens?: unknown; dir?: string } & Partial<ServeOptions> = {}): Promise<TestServer> {
  const dir = options.dir ? { path: options.dir, cleanup: () => undefined } : tempDir();
  let authFile = join(dir.path, 'no-auth.json');
  if (options.tokens !== undefined) {
    authFile = join(dir.path, 'auth.json');
    writeFileSync(authFile, typeof options.tokens === 'string' ? options.tokens : JSON.stringify(options.tokens));
  }
  const server = await startServer({
    data: dir.path,
    port: 0,
    authFile,
    embedder: new HashedEmbedder(32),
    judge: new LocalJudge(),
    backgroundIndexing: false,
    ...options,
  });
  await server.ready;
  return {
    ...server,
    dir: dir.path,
    async call(method, path, body, token) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body !== undefined ? { body: typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { raw: text };
      }
      return { status: res.status, body: parsed };
    },
    async stop() {
      await server.close();
      dir.cleanup();
    },
  };
}
