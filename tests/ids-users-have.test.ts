// Ids users already have (`D1:3`, `notes/2024-05-01.md#setup`, URLs, titles with spaces):
// accepted up to MAX_ID_LENGTH, escaped in evidence keys, and round-tripping through write,
// recall, evidence lookup, forget and rebuild. Ids earlier versions accepted keep their keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceKey, keyIdPart, MAX_ID_LENGTH, parseEvidenceKey } from '../src/knowledge/evidence.js';
import { memoryStore } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const IDS = [
  'D1:3',
  'notes/2024-05-01.md#setup',
  'https://wiki.example.com/Release plan?x=1#top',
  'has space',
  '100%:done',
  'タスク：一',
  'x'.repeat(MAX_ID_LENGTH),
];

describe('evidence keys of any id', () => {
  it('keeps the key of every id earlier versions accepted, byte for byte', () => {
    for (const id of ['rollback', 'a%20b', 'notes/2024-05-01.md', 'x.y_z-1', 'π', '%3A'])
      expect(evidenceKey({ ns: 'private', layer: 'memory', id })).toBe(`ev1:private:memory:${id}`);
  });

  it('escapes ids with reserved characters into a form no verbatim id takes, and parses them back', () => {
    for (const id of IDS) {
      const key = evidenceKey({ ns: 'team', layer: 'card', id, section: 'intro' });
      expect(key).not.toMatch(/\s/);
      expect(parseEvidenceKey(key)).toEqual({ ns: 'team', layer: 'card', id, section: 'intro' });
    }
    // `a:b` and the verbatim id `a%3Ab` are two items, never one
    expect(keyIdPart('a:b')).not.toBe(keyIdPart('a%3Ab'));
    expect(parseEvidenceKey('ev1:p:memory::a%3Ab')?.id).toBe('a:b');
    expect(parseEvidenceKey('ev1:p:memory:a%3Ab')?.id).toBe('a%3Ab');
    // a non-canonical escape is not a key
    expect(parseEvidenceKey('ev1:p:memory::plain')).toBeUndefined();
  });

  it('rebuilds an old log (ids of the old rules) to the same keys', async () => {
    const s = await memoryStore();
    try {
      await s.log.appendAll([
        { type: 'memory.written', ns: 'private', actor: 'v0', data: { id: 'a%20b', kind: 'fact', text: 'percent id from an old client' } },
        { type: 'memory.written', ns: 'private', actor: 'v0', data: { id: 'notes/2024-05-01.md', kind: 'fact', text: 'slash id' } },
      ]);
      await s.projections.waitFor(s.log.head().seq);
      const before = [...s.projections.views.records.all()].map((e) => e.key).sort();
      await s.projections.rebuild();
      const after = [...s.projections.views.records.all()].map((e) => e.key).sort();
      expect(before).toEqual(['ev1:private:memory:a%20b', 'ev1:private:memory:notes/2024-05-01.md']);
      expect(after).toEqual(before);
    } finally {
      await s.close();
    }
  });
});

describe('ids through the HTTP API', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.stop());

  it('round-trips ids with ":", "#", "/" and spaces through write, recall, lookup, supersede, forget and rebuild', async () => {
    const memories = IDS.map((id, i) => ({ id, kind: 'fact', text: `Zebra fact number ${i}: the quokka ledger ${i} lives in vault ${i}.` }));
    const w = await s.call('POST', '/v1/memories', { memories });
    expect(w.status).toBe(200);
    expect(w.body['ids']).toEqual(IDS);
    // an identical retry is idempotent
    expect((await s.call('POST', '/v1/memories', { memories })).body).toMatchObject({ ids: IDS, written: [] });

    const r = await s.call('POST', '/v1/recall', { query: 'where does the quokka ledger live?', limit: 20 });
    const found = (r.body['records'] as { id: string; evidence_key: string }[]).filter((x) => IDS.includes(x.id));
    expect(found.map((x) => x.id).sort()).toEqual([...IDS].sort());

    for (const { id, evidence_key } of found) {
      const e = await s.call('GET', `/v1/evidence/${encodeURIComponent(evidence_key)}`);
      expect(e.status).toBe(200);
      expect(e.body).toMatchObject({ id, key: evidence_key });
    }
    const [first, second, ...rest] = IDS as [string, string, ...string[]];
    const sup = await s.call('POST', `/v1/memories/${encodeURIComponent(second)}/supersede`, { superseded_ids: [first] });
    expect(sup.status).toBe(200);
    for (const id of rest) expect((await s.call('POST', `/v1/memories/${encodeURIComponent(id)}/forget`, {})).status).toBe(200);

    const status = (): Record<string, string> =>
      Object.fromEntries(
        [...s.state.store!.projections.views.records.all({ includeRetired: true })].filter((e) => IDS.includes(e.id)).map((e) => [e.key, e.status]),
      );
    const live = status();
    expect(Object.values(live).sort()).toEqual([...rest.map(() => 'forgotten'), 'active', 'superseded'].sort());
    await s.state.store!.projections.rebuild();
    expect(status()).toEqual(live);
  });

  it('refuses only ids that cannot be stored: blank, too long, control characters, lone surrogates', async () => {
    const head = s.state.store!.log.head().seq;
    for (const id of ['', '   ', 'x'.repeat(MAX_ID_LENGTH + 1), 'a\u0000b', 'cut \udc00 here']) {
      const r = await s.call('POST', '/v1/memories', { memories: [{ id, kind: 'fact', text: 'x' }] });
      expect(r.status).toBe(400);
      // named where it fails: the core names the path, the JSON edge (lone surrogates) the key
      expect((r.body['error'] as { details: { field: string } }).details.field).toMatch(/^(memories\.0\.)?id$/);
    }
    expect(s.state.store!.log.head().seq).toBe(head);
  });

  it('refuses a lone surrogate in any text rather than acknowledging one text and storing another', async () => {
    const head = s.state.store!.log.head().seq;
    const r = await s.call('POST', '/v1/memories', '{"memories":[{"id":"surtext","kind":"fact","text":"broken \\udc00 text"}]}');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field: 'text' } } });
    expect(s.state.store!.log.head().seq).toBe(head);
    // a whole emoji (a surrogate pair) is fine
    expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'emoji', kind: 'fact', text: 'ship it 🚀' }] })).status).toBe(200);
  });
});
