// The HTTP client Kioku's own tools use: with keep-alive (kioku mcp), a request that goes out on a
// kept socket the server has just dropped is sent again on a new connection — nothing reached the
// server — while any other failure is reported, never retried.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAliveAgent, requestKioku, TransportError } from '../src/client.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', () => done()));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

describe('requestKioku', () => {
  it('sends a request again once when the kept-alive socket it went out on was reset', async () => {
    const seen = new Map<Socket, number>();
    let answered = 0;
    const url = await listen((req, res) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      if (n === 2) return req.socket.destroy(); // the second request on a kept socket: dropped unanswered
      answered += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: answered }));
    });
    const agent = keepAliveAgent();
    try {
      expect(await requestKioku(url, '/a', { method: 'GET', agent })).toEqual({ ok: 1 });
      expect(await requestKioku(url, '/b', { method: 'POST', body: { x: 1 }, agent })).toEqual({ ok: 2 });
      expect(seen.size).toBe(2); // the retry came on a new connection
    } finally {
      agent.destroy();
    }
  });

  it('does not retry a reset on a fresh connection', async () => {
    let requests = 0;
    const url = await listen((req) => {
      requests += 1;
      req.socket.destroy();
    });
    await expect(requestKioku(url, '/a', { method: 'POST', body: {} })).rejects.toBeInstanceOf(TransportError);
    expect(requests).toBe(1);
  });
});
