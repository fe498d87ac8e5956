// Issue 31: verify, log stats, log show and log export work while the service owns the library
// (LevelDB's lock keeps them off the store itself): the CLI goes through the service, which reads
// up to its head in chunks between writes. Shown with 8 writers writing through HTTP the whole
// time: no write refused, the chain verified, the export complete up to the head it reports.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChainFile } from '../src/log/transfer.js';
import { runCli } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  // a chain long enough that a walk of it spans many chunks
  for (let b = 0; b < 6; b++) {
    const memories = Array.from({ length: 500 }, (_, i) => ({ id: `seed-${b}-${i}`, kind: 'fact', text: `seed fact ${b}-${i} about the deploy pipeline` }));
    expect((await server.call('POST', '/v1/memories', { memories })).status).toBe(200);
  }
}, 60_000);
afterAll(async () => server.stop());

describe('operations while 8 writers write through HTTP', () => {
  it('verify, log stats and log export answer through the service; no write is refused', async () => {
    let stop = false;
    const refused: string[] = [];
    let writes = 0;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const r = await server.call('POST', '/v1/memories', { memories: [{ id: `w${w}-${i}`, kind: 'fact', text: `writer ${w} wrote fact ${i}` }] });
        if (r.status !== 200) refused.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        else writes += 1;
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    const out = join(server.dir, 'export.kchain');
    try {
      const [verify, stats, exported, show] = await Promise.all([
        runCli(['verify', '--data', server.dir, '--json']),
        runCli(['log', 'stats', '--data', server.dir, '--json']),
        runCli(['log', 'export', '--data', server.dir, '--out', out, '--json']),
        runCli(['log', 'show', '3', '--data', server.dir, '--json']),
      ]);
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.json).toMatchObject({ ok: true });
      expect(String(verify.json?.['via'])).toMatch(/http:\/\/127\.0\.0\.1:\d+/);
      expect(verify.json?.['checked']).toBe((verify.json?.['head'] as { seq: number }).seq);
      expect((verify.json?.['head'] as { seq: number }).seq).toBeGreaterThan(6);

      expect(stats.code, stats.stderr).toBe(0);
      const head = stats.json?.['head'] as { seq: number };
      expect(stats.json?.['total']).toBe(head.seq);
      expect(String(stats.json?.['via'])).toMatch(/http:/);

      expect(exported.code, exported.stderr).toBe(0);
      const exportHead = exported.json?.['head'] as { seq: number; hash: string };
      expect(exported.json).toMatchObject({ ok: true, records: exportHead.seq });
      // the file holds every record up to the head it reports, each link checked on reading
      const { header, frames } = await readChainFile(out);
      let n = 0;
      for await (const _ of frames) n += 1;
      expect(header.head).toEqual(exportHead);
      expect(n).toBe(exportHead.seq);
      // and that head is the library's own record there
      const record = await server.call('GET', `/v1/log/records/${exportHead.seq}`);
      expect(record.body['hash']).toBe(exportHead.hash);

      expect(show.code, show.stderr).toBe(0);
      expect(show.json).toMatchObject({ seq: 3, type: 'memory.written' });
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(refused).toEqual([]);
    expect(writes).toBeGreaterThan(8);
  }, 120_000);

  it('verify --write-anchor signs the head through the service; the next verify checks it', async () => {
    const signed = await runCli(['verify', '--data', server.dir, '--write-anchor', '--json']);
    expect(signed.code, signed.stderr).toBe(0);
    const written = (signed.json?.['anchors'] as { written?: { seq: number } }).written;
    expect(written?.seq).toBe((signed.json?.['head'] as { seq: number }).seq);
    const again = await runCli(['verify', '--data', server.dir, '--json']);
    expect(again.json).toMatchObject({ ok: true, anchors: { total: 1, checked: 1, trusted_key: true } });
    // the library's own key and anchors: files the caller names are not read through the service
    expect((await runCli(['verify', '--data', server.dir, '--key', '/etc/passwd'])).code).toBe(2);
  }, 60_000);

  it('the routes need the service:read scope; a bad seq or page is refused', async () => {
    expect((await server.call('GET', '/v1/log/records/0')).status).toBe(400);
    expect((await server.call('GET', '/v1/log/records/99999999')).body).toMatchObject({ error: { code: 'KIOKU_RECORD_NOT_FOUND' } });
    expect((await server.call('GET', '/v1/log/frames?from=1&limit=6000')).status).toBe(400);
    const page = await server.call('GET', '/v1/log/frames?from=2&limit=3');
    expect((page.body['frames'] as string[]).length).toBe(3);
    expect(page.body['from']).toBe(2);
  });
});

describe('operations need the operator', () => {
  let scoped: TestServer;
  const reader = 'ops-reader-token-0123456789';
  const operator = 'ops-operator-token-0123456789';
  const archivist = 'ops-archivist-token-0123456789';
  const other = 'ops-other-ns-token-0123456789';
  beforeAll(async () => {
    scoped = await startTestServer({
      tokens: {
        tokens: [
          { name: 'reader', token: reader, namespace: 'private', scopes: ['memory:read', 'memory:write'] },
          { name: 'operator', token: operator, namespace: 'private', scopes: ['memory:read', 'service:read'] },
          { name: 'archivist', token: archivist, namespace: 'private', scopes: ['memory:read', 'service:read', 'log:read'] },
          { name: 'other', token: other, namespace: 'other', scopes: ['memory:read', 'memory:write'] },
        ],
      },
    });
  }, 60_000);
  afterAll(async () => scoped.stop());

  it('a namespaced token without service:read gets 403 for every route of the whole log', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/log/stats'],
      ['GET', '/v1/log/records/1'],
      ['GET', '/v1/log/frames?from=1'],
      ['GET', '/v1/log/backup-point'],
      ['POST', '/v1/log/verify', {}],
    ] as const) {
      const r = await scoped.call(method, path, body, reader);
      expect(r.status, path).toBe(403);
      expect(r.body).toMatchObject({ error: { code: 'KIOKU_FORBIDDEN' } });
    }
    expect((await scoped.call('POST', '/v1/log/verify', {}, operator)).body).toMatchObject({ ok: true });
    // signing an anchor writes beside the log: memory:write as well
    expect((await scoped.call('POST', '/v1/log/verify', { write_anchor: true }, operator)).status).toBe(403);
  });

  it("service:read alone never hands out the log's content (another namespace's text): records, frames and backups need log:read", async () => {
    const secret = 'other namespace secret swordfish 4471';
    expect((await scoped.call('POST', '/v1/memories', { memories: [{ id: 'm-other', kind: 'fact', text: secret }] }, other)).status).toBe(200);
    const before = (await scoped.call('GET', '/v1/log/stats', undefined, operator)).body as { head: { seq: number } };
    for (const path of ['/v1/log/records/1', `/v1/log/records/${before.head.seq}`, '/v1/log/frames?from=1', '/v1/log/backup-point']) {
      const r = await scoped.call('GET', path, undefined, operator);
      expect(r.status, path).toBe(403);
      expect(r.body).toMatchObject({ error: { code: 'KIOKU_FORBIDDEN' } });
      expect(JSON.stringify(r.body)).not.toContain('swordfish');
    }
    const record = await scoped.call('GET', `/v1/log/records/${before.head.seq}`, undefined, archivist);
    expect(record.status).toBe(200);
    expect(JSON.stringify(record.body)).toContain('swordfish');
    expect((await scoped.call('GET', '/v1/log/frames?from=1', undefined, archivist)).status).toBe(200);
  });
});
