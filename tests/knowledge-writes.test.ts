// Knowledge writes are validated commands that append events; the records and
// keyword projections answer from them.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeywordProjection, RecordsProjection } from '../projections/index.js';
import { evidenceKey, Knowledge } from '../src/knowledge/index.js';
import { AssetPolicy } from '../src/knowledge/asset-policy.js';
import { memoryStore, recordsOfType, tempDir } from './helpers.js';

let store: Awaited<ReturnType<typeof memoryStore>>;
const records = (): RecordsProjection => store.projections.views.records;
const keyword = (): KeywordProjection => store.projections.views.keyword;
const search = (q: string, ns = ['private']): string[] =>
  keyword()
    .search(q, { namespaces: ns })
    .map((h) => h.key);
const mem = (id: string, ns = 'private'): string => evidenceKey({ ns, layer: 'memory', id });

beforeEach(async () => {
  store = await memoryStore();
});
afterEach(async () => store.close());

describe('memory writes', () => {
  it('writes a batch of typed memories and makes them searchable at once', async () => {
    const r = await store.knowledge.writeMemories({
      memories: [
        { id: 'quote-currency', kind: 'decision', text: 'Quotes for client A are in euros.', terms: ['pricing', 'currency'], entities: ['Client A'] },
        { kind: 'procedure', text: 'Roll back with scripts/rollback.sh', tags: ['ops'] },
      ],
    });
    expect(r.ids).toHaveLength(2);
    expect(r.ids[0]).toBe('quote-currency');
    expect(r.ids[1]).toMatch(/^m-[0-9a-f]{12}$/);
    expect(search('euros')).toEqual([mem('quote-currency')]);
    expect(records().get(mem('quote-currency'))).toMatchObject({ kind: 'decision', status: 'active', entities: ['Client A'] });
    expect(
      keyword()
        .search('currency', { namespaces: ['private'], lane: 'terms' })
        .map((h) => h.key),
    ).toEqual([mem('quote-currency')]);
  });

  it.each([
    [{ memories: [] }, 'memories'],
    [{ memories: [{ kind: 'fact', text: '' }] }, 'memories.0.text'],
    [{ memories: [{ kind: 'rumour', text: 'x' }] }, 'memories.0.kind'],
    [{ memories: [{ kind: 'fact', text: 'x', id: '   ' }] }, 'memories.0.id'],
    [{ memories: [{ kind: 'fact', text: 'x', id: 'nul\u0000id' }] }, 'memories.0.id'],
    [{ memories: [{ kind: 'fact', text: 'x', id: 'cut \udc00 emoji' }] }, 'memories.0.id'],
    [{ memories: [{ kind: 'fact', text: 'x', id: 'x'.repeat(513) }] }, 'memories.0.id'],
    [{ memories: [{ kind: 'fact', text: 'x', colour: 'red' }] }, 'memories.0.colour'],
    [{ ns: 'Bad NS', memories: [{ kind: 'fact', text: 'x' }] }, 'ns'],
    [{ memories: [{ kind: 'fact', text: 'x', occurred_at: 'yesterday' }] }, 'memories.0.occurred_at'],
  ])('refuses invalid input %j naming %s, and appends nothing', async (input, field) => {
    await expect(store.knowledge.writeMemories(input)).rejects.toMatchObject({ code: 'KIOKU_INPUT_INVALID', details: { field } });
    expect(store.log.head().seq).toBe(0);
  });

  it('refuses the whole batch when one memory supersedes an unknown id', async () => {
    await expect(
      store.knowledge.writeMemories({
        memories: [
          { kind: 'fact', text: 'ok' },
          { kind: 'fact', text: 'new', supersede_ids: ['nope'] },
        ],
      }),
    ).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND', details: { field: 'memories.1.supersede_ids.0' } });
    expect(store.log.head().seq).toBe(0);
  });

  it('treats a repeated write with the same id and body as idempotent, and a different body as a conflict', async () => {
    const m = { id: 'm1', kind: 'fact', text: 'The staging DB is pg-2.' } as const;
    await store.knowledge.writeMemories({ memories: [m] });
    const head = store.log.head().seq;
    const again = await store.knowledge.writeMemories({ memories: [m] });
    expect(again).toMatchObject({ ids: ['m1'], written: [] });
    expect(store.log.head().seq).toBe(head);
    await expect(store.knowledge.writeMemories({ memories: [{ ...m, text: 'The staging DB is pg-3.' }] })).rejects.toMatchObject({ code: 'KIOKU_ID_CONFLICT' });
  });

  it('supersede: search for the current value returns the head only, and the history stays readable', async () => {
    await store.knowledge.writeMemories({
      memories: [{ id: 'q1', kind: 'decision', text: 'Client A quotes are priced in yen, current policy.', terms: ['pricing'] }],
    });
    await store.knowledge.writeMemories({
      memories: [{ id: 'q2', kind: 'decision', text: 'Client A quotes are priced in dollars, current policy.', terms: ['pricing'], supersede_ids: ['q1'] }],
    });
    expect(search('current policy client quotes')).toEqual([mem('q2')]);
    const chain = records().memoryChain('private', 'q1');
    expect(chain.head?.id).toBe('q2');
    expect(chain.history.map((e) => [e.id, e.status])).toEqual([
      ['q1', 'superseded'],
      ['q2', 'active'],
    ]);
    expect(records().get(mem('q1'))).toMatchObject({ status: 'superseded', superseded_by: 'q2', text: expect.stringContaining('yen') });
  });

  it('links existing memories with supersede, refusing retired or unknown ones', async () => {
    await store.knowledge.writeMemories({
      memories: [
        { id: 'old', kind: 'fact', text: 'Deploys happen on Fridays.' },
        { id: 'new', kind: 'fact', text: 'Deploys happen on Tuesdays.' },
      ],
    });
    await store.knowledge.supersede({ head_id: 'new', superseded_ids: ['old'] });
    expect(search('deploys happen')).toEqual([mem('new')]);
    expect(
      records()
        .memoryChain('private', 'new')
        .history.map((e) => e.id),
    ).toEqual(['old', 'new']);
    await expect(store.knowledge.supersede({ head_id: 'old', superseded_ids: ['new'] })).rejects.toMatchObject({
      code: 'KIOKU_RETIRED',
      details: { field: 'head_id' },
    });
    await expect(store.knowledge.supersede({ head_id: 'new', superseded_ids: ['ghost'] })).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND' });
  });

  it('forget: gone from search, present in the log, and forgetting twice is a no-op', async () => {
    await store.knowledge.writeMemories({ memories: [{ id: 'secret', kind: 'fact', text: 'The door code is 4711.' }] });
    expect(await store.knowledge.forget({ id: 'secret', reason: 'asked to' })).toEqual({ id: 'secret', forgotten: true });
    expect(search('door code')).toEqual([]);
    expect(records().get(mem('secret'))?.status).toBe('forgotten');
    expect(records().memoryChain('private', 'secret').head).toBeUndefined();
    const written = await recordsOfType(store.log, 'memory.written');
    expect(written[0]?.data).toMatchObject({ text: 'The door code is 4711.' });
    expect(await recordsOfType(store.log, 'memory.forgotten')).toHaveLength(1);
    expect(await store.knowledge.forget({ id: 'secret' })).toEqual({ id: 'secret', forgotten: false });
    expect(await recordsOfType(store.log, 'memory.forgotten')).toHaveLength(1);
    await expect(store.knowledge.forget({ id: 'never' })).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND' });
  });

  it('suggests supersede candidates for a new memory whose term group overlaps an old one', async () => {
    await store.knowledge.writeMemories({ memories: [{ id: 'p1', kind: 'preference', text: 'Use tabs.', terms: ['indent', 'tabs', 'style'] }] });
    const r = await store.knowledge.writeMemories({
      memories: [{ id: 'p2', kind: 'preference', text: 'Use two spaces.', terms: ['indent', 'spaces', 'style'] }],
    });
    expect(r.supersede_candidates).toEqual({ p2: [{ id: 'p1', overlap: 0.5 }] });
  });

  it('keeps namespaces apart', async () => {
    await store.knowledge.writeMemories({ ns: 'team', memories: [{ id: 'x', kind: 'fact', text: 'The team wiki lives on confluence.' }] });
    expect(search('confluence')).toEqual([]);
    expect(search('confluence', ['team'])).toEqual([mem('x', 'team')]);
  });

  it('answers lookups by entity, session, kind and time range', async () => {
    await store.knowledge.writeMemories({
      memories: [
        { id: 'e1', kind: 'event', text: 'Met Alice about the launch.', entities: ['Alice'], session_id: 's1', occurred_at: '2026-09-03T10:00:00Z' },
        { id: 'e2', kind: 'event', text: 'Alice approved the budget.', entities: ['alice'], session_id: 's2', occurred_at: '2026-10-01T10:00:00Z' },
        { id: 'd1', kind: 'decision', text: 'Launch moves to Q1.', session_id: 's1', occurred_at: '2026-09-20T10:00:00Z' },
      ],
    });
    expect(
      records()
        .byEntityName('private', 'ALICE')
        .map((e) => e.id)
        .sort(),
    ).toEqual(['e1', 'e2']);
    expect(
      records()
        .bySessionId('s1')
        .map((e) => e.id),
    ).toEqual(['e1', 'd1']);
    expect(
      records()
        .byKindName('private', 'decision')
        .map((e) => e.id),
    ).toEqual(['d1']);
    expect(
      records()
        .byTimeRange('private', '2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z')
        .map((e) => e.id),
    ).toEqual(['e1', 'd1']);
  });
});

describe('documents', () => {
  const card = `---\nid: deploy\ntags: [ops]\n---\n# Deploying\n\n## 1. Summary\nRun the deploy pipeline, then watch the error rate.\n\n## 2. Claim 等級\nB\n\n## 6. 與現有知識的關係\n- [[release-checklist]]\n- card:db-migrations\n\n## 9. 原始來源\nOps handbook\n`;

  it('splits a card into numbered sections, flags metadata sections and reads relations', async () => {
    const r = await store.knowledge.upsertCard({ markdown: card });
    expect(r).toMatchObject({ id: 'deploy', changed: true });
    const sections = records().document('private', 'card', 'deploy');
    expect(sections.map((s) => [s.section, s.heading, s.meta ?? false])).toEqual([
      ['1', '1. Summary', false],
      ['2', '2. Claim 等級', true],
      ['3', '6. 與現有知識的關係', true],
      ['4', '9. 原始來源', true],
    ]);
    expect(sections[0]?.title).toBe('Deploying');
    expect(sections[0]?.fingerprint).toBeUndefined(); // cards carry no fingerprint (architecture.md §evidence)
    const [event] = await recordsOfType(store.log, 'card.upserted');
    expect(event?.data).toMatchObject({ relations: ['release-checklist', 'db-migrations'], tags: ['ops'] });
  });

  it('appends nothing for an unchanged card and retires sections that disappear', async () => {
    await store.knowledge.upsertCard({ markdown: card });
    const head = store.log.head().seq;
    expect((await store.knowledge.upsertCard({ markdown: card })).changed).toBe(false);
    expect(store.log.head().seq).toBe(head);
    await store.knowledge.upsertCard({ id: 'deploy', markdown: '## 1. Summary\nRun the deploy pipeline.' });
    expect(
      records()
        .document('private', 'card', 'deploy')
        .map((s) => [s.section, s.status]),
    ).toEqual([
      ['1', 'active'],
      ['2', 'removed'],
      ['3', 'removed'],
      ['4', 'removed'],
    ]);
  });

  it('identifies wiki sections by heading, with fingerprints, and removes topics', async () => {
    await store.knowledge.upsertWiki({ id: 'ops', markdown: '# Ops\n\nIntro text.\n\n## Rollback\nUse rollback.sh\n\n## Rollback\nAgain' });
    expect(
      records()
        .document('private', 'wiki', 'ops')
        .map((s) => s.section),
    ).toEqual(['intro', 'rollback', 'rollback-2']);
    expect(records().get('ev1:private:wiki:ops#rollback')?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    await store.knowledge.removeDocument('wiki', { id: 'ops' });
    expect(search('rollback')).toEqual([]);
    await expect(store.knowledge.removeDocument('wiki', { id: 'ops' })).rejects.toMatchObject({ code: 'KIOKU_NOT_FOUND' });
  });

  it('stores daily notes by date and episodes verbatim', async () => {
    await store.knowledge.upsertNote({ date: '2026-11-28', markdown: '## Morning\nShipped v2.\n\n## Evening\nRolled back v2.' });
    expect(
      records()
        .byTimeRange('private', '2026-11-28T00:00:00Z', '2026-11-29T00:00:00Z', { layers: ['note'] })
        .map((e) => e.key),
    ).toEqual(['ev1:private:note:2026-11-28#morning', 'ev1:private:note:2026-11-28#evening']);
    const ep = await store.knowledge.logEpisode({
      session_id: 's9',
      messages: [
        { role: 'user', text: 'what did we decide about v2?' },
        { role: 'assistant', text: 'to roll it back' },
      ],
    });
    expect(records().get(evidenceKey({ ns: 'private', layer: 'episode', id: ep.episode_id }))?.text).toBe(
      'user: what did we decide about v2?\nassistant: to roll it back',
    );
  });
});

describe('assets', () => {
  let dir: ReturnType<typeof tempDir>;
  // registration reads files only under the namespace's asset root (src/knowledge/asset-policy.ts)
  let knowledge: Knowledge;
  beforeEach(() => {
    dir = tempDir();
    knowledge = new Knowledge({ log: store.log, projections: store.projections }, 'test', new AssetPolicy({ roots: { private: [dir.path] } }));
  });
  afterEach(() => dir.cleanup());

  it('registers a file by reference with size and sha256; the description is its only search text', async () => {
    const file = join(dir.path, 'IMG_0042.png');
    writeFileSync(file, 'not really a png');
    const r = await knowledge.registerAsset({
      path: file,
      description: 'Approval flow diagram from the October review, three levels',
      tags: ['diagram'],
    });
    expect(r).toMatchObject({ changed: true, size: 16, sha256: createHash('sha256').update('not really a png').digest('hex') });
    expect(search('approval flow diagram')).toEqual([evidenceKey({ ns: 'private', layer: 'asset', id: r.id })]);
    expect(search('IMG_0042')).toEqual([]);
    expect(
      (await knowledge.registerAsset({ path: file, description: 'Approval flow diagram from the October review, three levels', tags: ['diagram'] }))
        .changed,
    ).toBe(false);
  });

  it('refuses a relative path, a missing file and an empty description, naming the field', async () => {
    await expect(knowledge.registerAsset({ path: 'rel/x.png', description: 'x' })).rejects.toMatchObject({
      code: 'KIOKU_INPUT_INVALID',
      details: { field: 'path' },
    });
    await expect(knowledge.registerAsset({ path: join(dir.path, 'missing.png'), description: 'x' })).rejects.toMatchObject({
      details: { field: 'path' },
    });
    await expect(knowledge.registerAsset({ path: join(dir.path, 'x'), description: ' ' })).rejects.toMatchObject({ details: { field: 'description' } });
    expect(store.log.head().seq).toBe(0);
  });
});

describe('batches', () => {
  it('lets a memory supersede an earlier one of the same batch', async () => {
    await store.knowledge.writeMemories({
      memories: [
        { id: 'v1', kind: 'fact', text: 'Version one of the rule.' },
        { id: 'v2', kind: 'fact', text: 'Version two of the rule.', supersede_ids: ['v1'] },
      ],
    });
    expect(records().get(mem('v1'))).toMatchObject({ status: 'superseded', superseded_by: 'v2' });
  });
});
