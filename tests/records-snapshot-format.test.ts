// The records snapshot (format 3) packs every entry on its own, stores repeated strings once and
// leaves out what equals another field; a load keeps the rows packed and unpacks each entry when
// first needed. Loading must give back every entry exactly — whether it is asked for, changed
// or snapshotted again while still packed — and formats 2 and 1 must still load.
import { describe, expect, it } from 'vitest';
import { RecordsProjection } from '../projections/records/index.js';
import { unpackStringChunk } from '../projections/packed-strings.js';
import { entryOfRow, KEYS_PER_CHUNK, PackedRows, ROW_FIELDS, ROWS_PER_CHUNK } from '../projections/records/rows.js';
import { packState, unpackState } from '../projections/snapshot-file.js';
import { validateEvent, type AppendInput, type LogRecord } from '../src/events/index.js';

const hash = 'b'.repeat(64);
const events: AppendInput[] = [
  {
    type: 'memory.written',
    data: {
      id: 'm1',
      kind: 'fact',
      text: 'Caroline: the staging database moved to pg-staging-2',
      terms: ['db', 'postgres'],
      entities: ['pg-staging-2'],
      tags: ['infra'],
      attachments: ['/srv/notes/db.md'],
      session_id: 'chat-1',
      owner: 'alice',
      audience: ['ops'],
    },
  },
  { type: 'memory.written', ns: 'team', data: { id: 'm2', kind: 'procedure', text: 'Roll back with scripts/rollback.sh\nthen tell #ops' } },
  { type: 'memory.written', data: { id: 'm3', kind: 'fact', text: 'rollback now needs the previous tag', supersedes: ['m1'] } },
  {
    type: 'card.upserted',
    data: {
      id: 'billing',
      title: 'Billing',
      sections: [
        { id: 'cache', heading: 'Cache', body: 'The cache lives five minutes.' },
        { id: 'owners', heading: 'Owners', body: 'Billing belongs to the payments team.' },
      ],
      tags: ['billing'],
      content_hash: hash,
      source_path: '/srv/cards/billing.md',
      relations: ['payments'],
    },
  },
  {
    type: 'card.upserted',
    data: { id: 'payments', title: 'Payments', sections: [{ id: 'meta', heading: 'Metadata', body: 'owner: payments', meta: true }], content_hash: hash },
  },
  { type: 'turn.started', data: { turn_id: 't1', session_id: 'chat-1', query: 'where is the staging database?' } },
  { type: 'asset.registered', data: { id: 'a1', path: '/srv/diagram.png', description: 'deploy diagram', size: 10, sha256: hash, tags: ['deploy'] } },
  // the last four change items written before them (see 'applies changes to entries still packed')
  { type: 'turn.completed', data: { turn_id: 't1', session_id: 'chat-1', answer: 'On pg-staging-2.' } },
  { type: 'memory.forgotten', ns: 'team', data: { id: 'm2' } },
  { type: 'memory.audience_set', data: { id: 'm3', audience: ['ops', 'dev'] } },
  { type: 'memory.written', data: { id: 'm4', kind: 'fact', text: 'rollback needs the previous two tags', supersedes: ['m3'] } },
];

/** events[from, to) applied in order, seq = position + 1 */
function applyEvents(records: RecordsProjection, from: number, to = events.length): void {
  events.slice(from, to).forEach((input, j) => {
    const i = from + j;
    const e = validateEvent(input);
    const record: LogRecord = { seq: i + 1, ts: 1_764_000_000_000 + i * 1000, type: e.type, v: e.v, ns: e.ns, actor: e.actor, data: e.data, hash, bytes: 0 };
    records.apply(record);
  });
}

/** A projection with the first `count` events applied. */
function fold(count = events.length): RecordsProjection {
  const records = new RecordsProjection();
  applyEvents(records, 0, count);
  return records;
}

const entriesOf = (r: RecordsProjection): unknown[] => [...r.all({ includeRetired: true })].sort((a, b) => (a.key < b.key ? -1 : 1));

/** The projection's state through a snapshot file's packing, loaded into a fresh projection. */
function reload(snap: unknown): RecordsProjection {
  const loaded = new RecordsProjection();
  loaded.load(unpackState({ ...packState(snap), format: 2, name: 'records', version: 1, seq: 8, hash }));
  return loaded;
}

describe('records snapshot format 3', () => {
  it('covers every field an entry can have (so the checks below see each one round-trip)', () => {
    const present = new Set(entriesOf(fold()).flatMap((e) => Object.keys(e as object)));
    expect(ROW_FIELDS.filter((f) => !present.has(f))).toEqual([]);
  });

  it('loads back every entry exactly, lookups included', () => {
    const records = fold();
    const snap = records.snapshot();
    expect(snap).toMatchObject({ format: 3 });
    const loaded = reload(snap);
    expect(loaded.loadedOlderFormat).toBe(false);
    expect(loaded.digest()).toBe(records.digest());
    expect(entriesOf(loaded)).toEqual(entriesOf(records));
    expect(loaded.get('ev1:private:memory:m1')).toMatchObject({
      status: 'superseded',
      superseded_by: 'm3',
      entities: ['pg-staging-2', 'Caroline'],
      owner: 'alice',
    });
    expect(loaded.document('private', 'card', 'billing').map((e) => e.section)).toEqual(['cache', 'owners']);
    expect(loaded.bySessionId('chat-1').map((e) => e.key)).toEqual(records.bySessionId('chat-1').map((e) => e.key));
  });

  it('keeps the rows packed at load and unpacks an entry (with its chunk of rows) when it is asked for', () => {
    const records = fold();
    const loaded = reload(records.snapshot());
    const all = entriesOf(records).length;
    expect(loaded.rowsPacked).toBe(all);
    expect(loaded.get('ev1:private:memory:m3')).toEqual(records.get('ev1:private:memory:m3'));
    expect(loaded.get('ev1:private:memory:nope')).toBeUndefined();
    expect(loaded.rowsPacked).toBe(all - Math.min(all, ROWS_PER_CHUNK)); // its chunk: here, every row
    expect(loaded.warm(Infinity)).toBe(true);
    expect(loaded.rowsPacked).toBe(0);
    expect(entriesOf(loaded)).toEqual(entriesOf(records));
  });

  it('applies changes to entries still packed as to unpacked ones', () => {
    const whole = fold();
    const first = fold(events.length - 4); // then: t1 completed, m2 forgotten, m3's audience set, m3 superseded by m4
    const loaded = reload(first.snapshot());
    expect(loaded.rowsPacked).toBeGreaterThan(0);
    applyEvents(loaded, events.length - 4);
    expect(loaded.digest()).toBe(whole.digest());
    expect(entriesOf(loaded)).toEqual(entriesOf(whole));
  });

  it('snapshots again while packed to the very bytes the unpacked state packs to', () => {
    const records = fold();
    const snap = records.snapshot();
    const loaded = reload(snap);
    const again = loaded.snapshot();
    expect(Buffer.from(packState(again).state).equals(Buffer.from(packState(snap).state))).toBe(true);
    expect(loaded.rowsPacked).toBe(0); // a snapshot reads every entry
  });

  it('refuses a file whose keys and rows do not match', () => {
    const snap = fold().snapshot();
    expect(() => reload({ ...snap, count: (snap.count ?? 0) + ROWS_PER_CHUNK })).toThrow(/keys for .* chunks of rows/);
    expect(() => reload({ ...snap, keys: [] })).toThrow(/keys in 0 chunks/);
    // a chunk is read when first needed (the file's checksum has vouched for its bytes by then)
    const badRows = reload({ ...snap, rows: [Uint8Array.of(0x91, 0xc0)] });
    expect(() => badRows.get('ev1:private:memory:m3')).toThrow(/chunk 0 holds 1 rows, expected/);
    const badKeys = reload({ ...snap, keys: [Uint8Array.of(0x91, 0xa1, 0x6b)] });
    expect(() => badKeys.get('ev1:private:memory:m3')).toThrow(/key chunk 0 holds 1 keys, expected/);
  });

  it('still loads format 2 (rows as maps) and format 1 (plain entries), and says so so that the runner rewrites them', () => {
    const records = fold();
    const snap = records.snapshot();
    const keys = unpackStringChunk(snap.keys ?? [], 0, snap.count ?? 0, KEYS_PER_CHUNK);
    const packed = new PackedRows(snap.rows ?? [], keys.length);
    const rows = Array.from({ length: Math.ceil(keys.length / ROWS_PER_CHUNK) }, (_, c) => packed.chunk(c)).flat();
    const format2 = { fold: snap.fold, format: 2, strings: snap.strings, entries: keys.map((k, i) => entryOfRow(k, rows[i] as unknown[])) };
    const plain = { fold: snap.fold, entries: entriesOf(records) };
    for (const older of [format2, plain]) {
      const loaded = new RecordsProjection();
      loaded.load(structuredClone(older));
      expect(loaded.loadedOlderFormat).toBe(true);
      expect(loaded.digest()).toBe(records.digest());
      expect(entriesOf(loaded)).toEqual(entriesOf(records));
    }
  });
});
