// The records snapshot (format 2) stores repeated strings once and leaves out what equals
// another field; loading it must give back every entry exactly, and format 1 must still load.
import { describe, expect, it } from 'vitest';
import { RecordsProjection } from '../projections/records.js';
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
  { type: 'memory.forgotten', ns: 'team', data: { id: 'm2' } },
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
    },
  },
  { type: 'turn.started', data: { turn_id: 't1', session_id: 'chat-1', query: 'where is the staging database?' } },
  { type: 'turn.completed', data: { turn_id: 't1', session_id: 'chat-1', answer: 'On pg-staging-2.' } },
  { type: 'asset.registered', data: { id: 'a1', path: '/srv/diagram.png', description: 'deploy diagram', size: 10, sha256: hash, tags: ['deploy'] } },
];

function fold(): RecordsProjection {
  const records = new RecordsProjection();
  events.forEach((input, i) => {
    const e = validateEvent(input);
    const record: LogRecord = { seq: i + 1, ts: 1_764_000_000_000 + i * 1000, type: e.type, v: e.v, ns: e.ns, actor: e.actor, data: e.data, hash, bytes: 0 };
    records.apply(record);
  });
  return records;
}

const entriesOf = (r: RecordsProjection): unknown[] =>
  (r.snapshot().entries as { key: string }[]).map((row) => r.get(row.key)).sort((a, b) => ((a?.key ?? '') < (b?.key ?? '') ? -1 : 1));

describe('records snapshot format 2', () => {
  it('loads back every entry exactly, lookups included', () => {
    const records = fold();
    const snap = records.snapshot();
    expect(snap).toMatchObject({ format: 2 });
    const loaded = new RecordsProjection();
    loaded.load(unpackState({ ...packState(snap), format: 2, name: 'records', version: 1, seq: 8, hash }));
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

  it('still loads format 1 (plain entries), and says so so that the runner rewrites it', () => {
    const records = fold();
    const plain = { fold: records.snapshot().fold, entries: entriesOf(records) };
    const loaded = new RecordsProjection();
    loaded.load(structuredClone(plain));
    expect(loaded.loadedOlderFormat).toBe(true);
    expect(loaded.digest()).toBe(records.digest());
  });
});
