// The catalog covers every event architecture.md §events names, and each type has a valid example.
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, CURRENT_VERSION, validateEvent, upcast, type AppendInput } from '../src/events/index.js';

const hash = 'a'.repeat(64);
const key = 'ev1:private:memory:m1';
const examples: Record<string, AppendInput['data']> = {
  'session.opened': { session_id: 's1', agent: 'claude-code' },
  'turn.started': { turn_id: 't1', session_id: 's1', query: '怎么回滚 v2?', conversation: [{ role: 'user', text: 'hi' }] },
  'recall.performed': {
    recall_id: 'r1',
    retrieval_mode: 'hybrid',
    queries: [{ kind: 'utterance', text: 'rollback' }],
    key_prefix: 'ev1:private:',
    keys: ['memory:m1'],
    scores: [700_000],
    flags: [3],
    lanes: { keyword: [0, 1, 3_200_000] },
    backends: { vector: ['used', 1, 1] },
  },
  'verdict.recorded': { recall_id: 'r1', judge: 'local', status: 'partial', key_prefix: 'ev1:private:', keys: ['memory:m1'], scores: [null] },
  'delivery.made': { recall_id: 'r1', items: [{ evidence_key: key, verdict: 0.8 }] },
  'turn.completed': { turn_id: 't1', session_id: 's1', answer: 'use scripts/rollback.sh', delivery_outcomes: [{ evidence_key: key, term_overlap: 0.5 }] },
  'memory.written': { id: 'm1', kind: 'procedure', text: 'roll back with scripts/rollback.sh', terms: ['revert'] },
  'memory.superseded': { id: 'm1', by: 'm2' },
  'memory.forgotten': { id: 'm1' },
  'memory.audience_set': { id: 'm1', audience: ['team'] },
  'card.upserted': { id: 'c1', title: 'Deploys', content_hash: hash, sections: [{ id: '1', heading: 'Rollback', body: '…' }] },
  'card.removed': { id: 'c1' },
  'wiki.upserted': { topic_id: 'w1', title: '部署', content_hash: hash, sections: [{ id: 's1', heading: '回滚', body: '…', fingerprint: hash }] },
  'wiki.removed': { topic_id: 'w1' },
  'note.upserted': { date: '2026-11-29', content_hash: hash, sections: [{ id: 'am', heading: 'Morning', body: 'shipped v2' }] },
  'note.removed': { date: '2026-11-29' },
  'episode.logged': { episode_id: 'e1', messages: [{ role: 'user', text: 'hello' }] },
  'asset.registered': { id: 'a1', path: '/srv/diagram.png', description: 'deploy diagram', size: 10, sha256: hash },
  'embedding.computed': { evidence_key: key, model: 'use-lite', lane: 'text', dim: 2, vector: new Uint8Array(8) },
  'job.event': { job_id: 'j1', stage: 'embed', status: 'succeeded', progress: { done: 3, total: 3 } },
  'lifecycle.transitioned': { evidence_key: key, from: 'active', to: 'archived', reason: 'confidence below 0.2' },
  'org.space_added': { space: 'eng', parent: 'acme', title: 'Engineering' },
  'org.space_moved': { space: 'eng' },
  'org.space_removed': { space: 'eng' },
  'org.member_added': { member: 'alice', tokens: ['alice-laptop'] },
  'org.member_removed': { member: 'alice' },
  'org.member_joined': { member: 'alice', space: 'eng' },
  'org.member_left': { member: 'alice', space: 'eng' },
  'notice.sent': { notice_id: 'n-0123456789abcdef', from: 'alice', to: ['bob'], kind: 'assignment', text: 'Move the cutover to May.', evidence_key: key },
  'notice.arrived': { member: 'bob', notice_ids: ['n-0123456789abcdef'] },
  'notice.acked': { member: 'bob', notice_id: 'n-0123456789abcdef', note: 'will do' },
  'evidence.fetched': { evidence_keys: [key] },
  'item.forgotten': { layer: 'trace', id: 't1', reason: 'asked to' },
  purged: { scope: 'memory', target: 'm1', keys: [key], units: 1 },
  'secret.redacted': { id: '0a1b2c3d4e5f', kind: 'openai-key', event_type: 'memory.written', fields: ['text'] },
};

describe('event catalog', () => {
  it('names every type the design lists', () => {
    expect([...EVENT_TYPES].sort()).toEqual(Object.keys(examples).sort());
  });

  it.each(Object.entries(examples))('accepts a valid %s at its current version', (type, data) => {
    const event = validateEvent({ type, data });
    expect(event).toMatchObject({ type, v: CURRENT_VERSION[type as keyof typeof CURRENT_VERSION], ns: 'private', actor: 'system' });
  });

  it('applies defaults so readers see complete shapes', () => {
    expect(validateEvent({ type: 'memory.written', data: { id: 'm', kind: 'fact', text: 't' } }).data).toMatchObject({
      terms: [],
      entities: [],
      tags: [],
      attachments: [],
    });
  });

  it('passes unknown types through upcast untouched', () => {
    const e = { seq: 1, ts: 0, type: 'future.type', v: 9, ns: 'p', actor: 'a', data: { x: 1 } };
    expect(upcast(e)).toBe(e);
  });

  it('takes a window with one version per key, and refuses versions that do not match its keys', () => {
    const item = { evidence_key: key, verdict: 0.8, window: [key, 'ev1:private:memory:m2'] };
    expect(validateEvent({ type: 'delivery.made', data: { recall_id: 'r1', items: [{ ...item, window_fingerprints: [hash, null] }] } }).data).toMatchObject({
      items: [{ window_fingerprints: [hash, null] }],
    });
    expect(() => validateEvent({ type: 'delivery.made', data: { recall_id: 'r1', items: [{ ...item, window_fingerprints: [hash, hash, null] }] } })).toThrow(/one version per window key/);
    expect(() => validateEvent({ type: 'delivery.made', data: { recall_id: 'r1', items: [{ evidence_key: key, verdict: 0.8, window_fingerprints: [hash, null] }] } })).toThrow(/one version per window key/);
  });

  it('refuses an asset path that is not absolute', () => {
    expect(() => validateEvent({ type: 'asset.registered', data: { ...examples['asset.registered'], path: 'rel/x.png' } })).toThrow(/absolute/);
  });
});
