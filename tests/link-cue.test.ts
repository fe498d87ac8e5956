// Issue 30: documentation pages link to the page that holds the facts. On the Vitest docs the
// answer to "What's the default timeout for beforeAll and afterEach hooks?" is the reference
// section `hookTimeout | Config` (Type, Default); the hooks page ranked above it, and it links
// there from every hook. The link cue (cue_weights.link, src/recall/link-cue.ts) lifts the
// sections the best-ranked ones link to, more when sections of two documents do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordEntry } from '../src/knowledge/item.js';
import { DEFAULT_RECALL_CONFIG } from '../src/recall/index.js';
import { LINK_FULL, linkBoosts, linkedKeys, type LinkLookup } from '../src/recall/link-cue.js';
import { cueRank, docsLibrary } from './cue-rank.js';
import { tempDir } from './helpers.js';

const section = (id: string, slug: string, text = '', heading = ''): RecordEntry =>
  ({ key: `ev1:private:wiki:${id}#${slug}`, ns: 'private', layer: 'wiki', id, section: slug, heading, text, status: 'active', title: id }) as unknown as RecordEntry;

const library = [
  section('config/pool', 'intro'),
  section('config/typecheck', 'intro'),
  section('config/typecheck', 'typecheck.enabled-typecheck-enabled', '', 'typecheck.enabled'),
  section('config/typecheck', 'typecheck.include', '', 'typecheck.include'),
  section('guide/index', 'intro'),
];
const lookup: LinkLookup = { document: (_ns, _layer, id) => library.filter((s) => s.id === id) };

describe('which sections a section links to', () => {
  it.each([
    ['an absolute path', 'The [`pool`](/config/pool) in which it runs.', ['ev1:private:wiki:config/pool#intro']],
    ['a relative path with .md', 'See [pool](../config/pool.md).', ['ev1:private:wiki:config/pool#intro']],
    ['an anchor by its heading slug', 'Run [typecheck](/config/typecheck#typecheck-include).', ['ev1:private:wiki:config/typecheck#typecheck.include']],
    ['an anchor written on the heading', '[on](/config/typecheck#typecheck-enabled)', ['ev1:private:wiki:config/typecheck#typecheck.enabled-typecheck-enabled']],
    ['an unknown anchor: the opening section', '[x](/config/typecheck#nowhere)', ['ev1:private:wiki:config/typecheck#intro']],
    ['a folder: its index', '[guide](/guide/)', ['ev1:private:wiki:guide/index#intro']],
    ['another site, an in-page anchor, a page not in the library', '[a](https://vitest.dev/config/pool) [b](#usage) [c](/config/missing)', []],
    ['the same target twice, once', '[a](/config/pool) and [b](/config/pool#intro)', ['ev1:private:wiki:config/pool#intro']],
  ])('%s', (_what, text, keys) => {
    expect(linkedKeys(section('guide/parallelism', 'workers', text), lookup)).toEqual(keys);
  });

  it('a memory or a turn links nowhere (only wiki and card sections are read)', () => {
    const memory = { ...section('m1', 'x', 'see [pool](/config/pool)'), layer: 'memory' } as RecordEntry;
    expect(linkedKeys(memory, lookup)).toEqual([]);
  });
});

describe('the boost', () => {
  it('grows with the documents that link, up to the full weight', () => {
    const a = section('guide/a', 's1', '[p](/config/pool)');
    const a2 = section('guide/a', 's2', '[p](/config/pool)');
    const b = section('guide/b', 's1', '[p](/config/pool)');
    const key = 'ev1:private:wiki:config/pool#intro';
    expect(LINK_FULL).toBe(2);
    expect(linkBoosts([a], lookup, 0.4).get(key)).toBeCloseTo(0.2);
    expect(linkBoosts([a, a2], lookup, 0.4).get(key)).toBeCloseTo(0.2); // two sections of one page: one document
    expect(linkBoosts([a, b], lookup, 0.4).get(key)).toBeCloseTo(0.4);
  });
});

describe('the link cue in recall', () => {
  const dir = tempDir();
  let lib: Awaited<ReturnType<typeof docsLibrary>>;
  const question = 'What is the default timeout for beforeAll and afterEach hooks?';
  const optionKey = 'ev1:private:wiki:config/hooktimeout#intro';

  beforeAll(async () => {
    lib = await docsLibrary(dir.path, {
      'config/hooktimeout.md': '---\ntitle: hookTimeout | Config\n---\n\n# hookTimeout\n\n- **Type:** `number`\n- **Default:** `10_000`\n',
      'config/other.md': '---\ntitle: other | Config\n---\n\n# other\n\n- **Type:** `number`\n',
      'api/hooks.md':
        '# Hooks\n\n## beforeAll\n\nRuns once before all tests. The hook fails after the [timeout](/config/hooktimeout) for hooks.\n\n' +
        '## afterEach\n\nRuns after each test. The hook fails after the [timeout](/config/hooktimeout) for hooks.\n',
      // sections that repeat the question's words more often, linking nowhere
      'guide/timeouts.md':
        '# Timeouts\n\n## Test timeouts\n\nThe default timeout of tests: a test that runs past its timeout fails; hooks and tests share the default.\n\n' +
        '## Slow hooks\n\nSlow beforeAll and afterEach hooks make the default timeout of tests too short; raise the timeout.\n',
      'guide/reporting.md': '# Reporting\n\n## Hook events\n\nReporters hear when beforeAll and afterEach hooks start and end, and when a hook runs past its timeout.\n',
      'guide/lifecycle.md': '# Lifecycle\n\n## Hooks\n\nbeforeAll and afterEach hooks run around tests; see the [hook timeout](../config/hooktimeout.md).\n',
    });
  });
  afterAll(async () => {
    await lib.close();
    dir.cleanup();
  });

  const rankOf = (link: number) => cueRank(lib.core, question, optionKey, { heading: 0, link }, 'link_cue');

  it('lifts the page the best sections link to above them', async () => {
    const off = await rankOf(0);
    const on = await rankOf(DEFAULT_RECALL_CONFIG.cue_weights.link ?? 0);
    expect(DEFAULT_RECALL_CONFIG.cue_weights.link).toBeGreaterThan(0);
    expect(off.cue).toBeUndefined();
    expect(on.rank).toBeGreaterThanOrEqual(0);
    expect(on.rank).toBeLessThan(off.rank === -1 ? Infinity : off.rank);
    expect(on.cue).toBeCloseTo(DEFAULT_RECALL_CONFIG.cue_weights.link ?? 0); // two documents link to it
  });
});
