// Issue 30: an existing library split the old way (top-level sections only) migrates through the
// log. Re-importing the same folder with `kioku import wiki` appends one event per changed page and
// rewrites nothing: sections that no longer exist are superseded by the sections that hold their
// text now (removed when nothing does), the chain verifies, recall finds the new sections, and a
// second import appends nothing. Cards: only the seed's three metadata sections are held back.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import {
  contentHash,
  fingerprint,
  importDirectory,
  parseFrontMatter,
  readMarkdownFiles,
  idFromPath,
  sectionSlug,
  splitSections,
} from '../src/knowledge/index.js';
import { deliver } from '../src/recall/delivery.js';
import { LocalJudge } from '../src/recall/index.js';
import { REPO, memoryStore, runCli, tempDir } from './helpers.js';

const DOCS = join(REPO, 'tests/fixtures/docs-small');
const key = (doc: string, section: string): string => `ev1:private:wiki:${doc}#${section}`;
const open = (data: string): Promise<LocalKioku> => openKioku({ data, embedder: new HashedEmbedder(32), judge: new LocalJudge() });

/** What an earlier Kioku appended for a page: its top-level sections, slugged by heading, titled by the page. */
function oldEvent(root: string, file: { path: string; markdown: string }) {
  const id = idFromPath(root, file.path);
  const { meta, body } = parseFrontMatter(file.markdown);
  const split = splitSections(body);
  const taken = new Set<string>();
  const title = typeof meta['title'] === 'string' ? meta['title'] : (split.title ?? id);
  const sections = split.sections.map((s) => ({ id: sectionSlug(s.heading, taken), heading: s.heading, body: s.body, fingerprint: fingerprint(s.body) }));
  return {
    type: 'wiki.upserted' as const,
    ns: 'private',
    actor: 'kioku-before-issue-30',
    data: { topic_id: id, title, content_hash: contentHash(file.markdown), sections, source_path: file.path },
  };
}

describe('re-importing a library split the old way', () => {
  const dir = tempDir();
  const data = join(dir.path, 'data');
  let before: { seq: number; hash: string }[] = [];
  let imported: Awaited<ReturnType<typeof runCli>>;
  let kioku: LocalKioku;

  beforeAll(async () => {
    const old = await open(data);
    const { root, files } = readMarkdownFiles(DOCS);
    await old.log.appendAll(files.map((f) => oldEvent(root, f)));
    await old.projections.waitFor(old.log.head().seq);
    expect(old.projections.views.records.get(key('reference/client', 'methods'))?.status).toBe('active');
    for await (const r of old.log.read({})) before.push({ seq: r.seq, hash: r.hash });
    await old.store.close();
    imported = await runCli(['import', 'wiki', DOCS, '--data', data, '--no-embed', '--json']);
    kioku = await open(data);
  }, 60_000);
  afterAll(async () => {
    await kioku?.store.close();
    dir.cleanup();
  });

  it('appends one event per page the new splitter changes, and the records before stay byte for byte', async () => {
    expect(imported.code).toBe(0);
    expect(imported.json).toMatchObject({ changed: ['guide/index', 'guide/数据', 'reference/client', 'reference/server'], added: [], unchanged: 0 });
    expect(kioku.log.head().seq).toBe((before.at(-1)?.seq ?? 0) + 4);
    const now: { seq: number; hash: string }[] = [];
    for await (const r of kioku.log.read({})) now.push({ seq: r.seq, hash: r.hash });
    expect(now.slice(0, before.length)).toEqual(before);
  });

  it('supersedes a section that was split by the sections that hold its text now', async () => {
    const records = kioku.projections.views.records;
    expect(records.get(key('reference/client', 'methods'))).toMatchObject({ status: 'superseded', superseded_by: key('reference/client', 'methods/get') });
    const events: unknown[] = [];
    for await (const r of kioku.log.read({ types: ['wiki.upserted'] })) if (r.actor !== 'kioku-before-issue-30') events.push(r.data);
    expect(events.find((d) => (d as { topic_id: string }).topic_id === 'reference/client')).toMatchObject({
      supersedes: [{ section: 'methods', by: ['methods/get', 'methods/post', 'methods/head'] }],
    });
    // nothing holds a list of links or a logo: removed, as a deleted section always was
    expect(records.get(key('reference/server', 'see-also'))?.status).toBe('removed');
    expect(records.get(key('guide/index', 'intro'))?.status).toBe('removed');
    // a section whose heading and text are unchanged keeps its key, now titled by its path
    expect(records.get(key('reference/server', 'options'))).toMatchObject({ status: 'active', title: 'Server › Options' });
    expect(records.get(key('reference/server', 'instance/close'))).toMatchObject({ status: 'active', title: 'Server › Instance › close' });
  });

  it('recall finds the new sections, never a retired one', async () => {
    const packet = await kioku.recall({ query: 'how long does close wait for open connections to drain?' });
    expect(packet.records[0]?.evidence_key).toBe(key('reference/server', 'instance/close'));
    const post = await kioku.recall({ query: 'is a POST retried with an idempotency key?' });
    expect(post.records[0]?.evidence_key).toBe(key('reference/client', 'methods/post'));
    const retired = new Set([key('reference/client', 'methods'), key('reference/server', 'see-also')]);
    expect([...packet.records, ...post.records].filter((r) => retired.has(r.evidence_key))).toEqual([]);
  });

  it('imports again without appending, and the chain verifies', async () => {
    const head = kioku.log.head().seq;
    const again = await importDirectory(kioku.knowledge, kioku.projections.views.records, { kind: 'wiki', dir: DOCS });
    expect(again).toMatchObject({ changed: [], added: [], unchanged: 4 });
    expect(kioku.log.head().seq).toBe(head);
    await kioku.store.close();
    const verified = await runCli(['verify', '--data', data, '--json']);
    expect(verified.code).toBe(0);
    kioku = await open(data);
  }, 30_000);
});

describe('cards: the seed three are metadata, other headings naming a source are content', () => {
  it('flags only "Claim 等級", "與現有知識的關係" and "原始來源", and delivers "Source control workflow" and "数据来源与清洗步骤"', async () => {
    const store = await memoryStore();
    try {
      const markdown =
        '# Data pipeline\n\n## 1. Source control workflow\nReview every change to the pipeline in a pull request.\n\n' +
        '## 2. Claim 等級\nB\n\n## 3. 数据来源与清洗步骤\n数据来自上游接口，清洗分三步。\n\n## 6. 與現有知識的關係\n- [[etl]]\n\n## 9. 原始來源\nTeam wiki';
      await store.knowledge.upsertCard({ id: 'pipeline', markdown });
      const sections = store.projections.views.records.document('private', 'card', 'pipeline');
      expect(sections.map((s) => [s.heading, s.meta ?? false])).toEqual([
        ['1. Source control workflow', false],
        ['2. Claim 等級', true],
        ['3. 数据来源与清洗步骤', false],
        ['6. 與現有知識的關係', true],
        ['9. 原始來源', true],
      ]);
      const candidates = sections.map((s, rank) => ({
        key: s.key,
        kind: 'knowledge' as const,
        layer: 'card',
        verdict: 0.9,
        title: s.title,
        text: s.text,
        meta: s.meta,
        occurred_at: s.occurred_at,
        rank,
      }));
      const result = deliver(
        candidates,
        { delivered: new Map(), assistant_texts: [] },
        { floor: 0.5, history_floor: 0.75, max_items: 5, max_history: 1, excerpt_chars: 2_000, hold_partial_matches: false },
      );
      expect(result.items.map((i) => i.key)).toEqual(['ev1:private:card:pipeline#1', 'ev1:private:card:pipeline#3']);
      expect([...result.held.values()]).toEqual(['metadata_section', 'metadata_section', 'metadata_section']);
    } finally {
      await store.close();
    }
  });
});
