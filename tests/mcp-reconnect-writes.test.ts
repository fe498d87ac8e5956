// What a client of a local service (kioku mcp, the hook) sends again after the service died
// under a call: a read always, a write only when a repeat cannot write twice (ids on every
// memory, or the connection was refused before anything was sent). The dying service is a real
// socket that reads the request and drops the connection without an answer, as a SIGKILLed
// server does; the one found next is a real Kioku server.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isKiokuError } from '../src/errors.js';
import { RemoteKioku } from '../src/remote.js';
import { freePort } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

/** Reads each request, then drops the connection unanswered; counts what it was sent. */
async function dyingService(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => {
      received += 1;
      socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('a call whose service died under it', () => {
  let next: TestServer;
  let dying: Awaited<ReturnType<typeof dyingService>>;
  beforeEach(async () => {
    next = await startTestServer();
    dying = await dyingService();
  });
  afterEach(async () => {
    await dying.close();
    await next.stop();
  });
  const client = () => new RemoteKioku(dying.url, { relocate: async () => next.url });
  const memories = async (): Promise<number> => ((await next.call('GET', '/v1/stats')).body['items'] as { by_layer: { memory?: number } }).by_layer.memory ?? 0;

  it('is not sent again when it is a write a repeat could double, and says the outcome is unknown', async () => {
    const kioku = client();
    const err = await kioku.writeMemories({ memories: [{ kind: 'fact', text: 'no id: a repeat would write it twice' }] }).catch((e: unknown) => e);
    expect(isKiokuError(err, 'KIOKU_SERVICE_UNAVAILABLE')).toBe(true);
    expect((err as { details: Record<string, unknown> }).details).toMatchObject({ outcome: 'unknown' });
    expect(dying.received()).toBe(1);
    expect(await memories()).toBe(0);
    // the client now talks to the service it found
    expect(kioku.url).toBe(next.url);
  });

  it('is sent again when every memory names its id, and when it is a read', async () => {
    const kioku = client();
    const written = await kioku.writeMemories({ memories: [{ id: 'safe', kind: 'fact', text: 'with an id, a repeat appends nothing' }] });
    expect(written.ids).toEqual(['safe']);
    expect(dying.received()).toBe(1);
    expect(await memories()).toBe(1);
    const reader = client();
    expect((await reader.recall({ query: 'what repeats safely?' })).records.length).toBeGreaterThanOrEqual(0);
    expect(dying.received()).toBe(2);
  });

  it('is sent again when the connection was refused (nothing reached a server)', async () => {
    const refused = `http://127.0.0.1:${await freePort()}`;
    const kioku = new RemoteKioku(refused, { relocate: async () => next.url });
    await kioku.writeMemories({ memories: [{ kind: 'fact', text: 'refused, then sent to the service found' }] });
    expect(await memories()).toBe(1);
  });

  it('without relocate (KIOKU_URL), is reported and never sent anywhere else', async () => {
    const kioku = new RemoteKioku(dying.url);
    await expect(kioku.recall({ query: 'anything' })).rejects.toMatchObject({ code: 'KIOKU_SERVICE_UNAVAILABLE' });
    expect(kioku.url).toBe(dying.url);
    expect(await memories()).toBe(0);
  });
});
