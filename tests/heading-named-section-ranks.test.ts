// Issue 30: a documentation section whose own heading the question names in full is about what was
// asked. On the Vitest docs the option's reference section ("pool | Config": Type, Default, CLI)
// ranked 22nd for "Which pool runs my test files if I don't configure one?", below guide pages
// naming the pool many times; the heading cue (cue_weights.heading) lifts it. Questions written
// mainly in CJK and headings in CJK never take part (heading-cue.ts says why).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headingCueTerms, headingNamed, ownHeading } from '../src/recall/heading-cue.js';
import { DEFAULT_RECALL_CONFIG } from '../src/recall/index.js';
import { cueRank, docsLibrary } from './cue-rank.js';
import { tempDir } from './helpers.js';

const terms = (q: string): ReadonlySet<string> => headingCueTerms(q) ?? new Set();

describe('which headings a question names', () => {
  it('a section heading, or a page opening section by the first part of its title', () => {
    expect(ownHeading({ layer: 'wiki', heading: 'coverage.provider', title: 'coverage | Config › coverage.provider' })).toBe('coverage.provider');
    expect(ownHeading({ layer: 'wiki', heading: '', title: 'pool | Config' })).toBe('pool');
    expect(ownHeading({ layer: 'card', title: 'Deploy runbook' })).toBe('Deploy runbook');
    expect(ownHeading({ layer: 'memory', title: 'pool' })).toBe('');
  });

  it.each([
    ['pool', "Which pool runs my test files if I don't configure one?", true],
    ['hookTimeout', "What's the default timeout for beforeAll and afterEach hooks?", true], // an identifier by its parts
    ['coverage.provider', "Which coverage provider is used when I don't pick one?", true],
    ['coverage.reportsDirectory', 'In which folder do coverage reports end up by default?', false], // "directory" is not asked
    ['isolate', 'How do I turn off per-file isolation?', true], // Porter2: isolation and isolate meet (vt-007)
    ['The', 'What is the pool?', false], // no word of its own
  ])('%s named by %j: %s', (heading, question, named) => {
    expect(headingNamed(heading, terms(question))).toBe(named);
  });

  it('never for a CJK heading or a question written mainly in CJK', () => {
    expect(headingNamed('文本插值', new Set(['文本', '插值']))).toBe(false);
    expect(headingCueTerms('移动端不想用 Teleport 把弹窗挪到 body 上，可以按条件禁用吗？')).toBeUndefined();
    expect(headingCueTerms('Which pool runs my tests?')).toBeDefined();
  });
});

describe('the heading cue in recall', () => {
  const dir = tempDir();
  let lib: Awaited<ReturnType<typeof docsLibrary>>;
  const question = "Which pool runs my test files if I don't configure one?";
  const optionKey = 'ev1:private:wiki:config/pool#intro';

  beforeAll(async () => {
    lib = await docsLibrary(dir.path, {
      'config/pool.md': "---\ntitle: pool | Config\n---\n\n# pool\n\n- **Type:** `'threads' | 'forks'`\n- **Default:** `'forks'`\n\nPool used to run tests in.\n",
      // guide sections that say "pool", "test", "run" and "files" more often, under headings of their own
      'guide/parallelism.md': '# Parallelism\n\n## Workers\n\nThe pool runs test files in workers: each worker of the pool runs test files one by one.\n',
      'guide/performance.md': '# Performance\n\n## Threads\n\nA smaller pool runs test files in fewer threads; the pool reuses them for the next test files.\n',
      'guide/lifecycle.md': '# Lifecycle\n\n## Setup\n\nBefore the test files run, the setup files run once.\n',
      'guide/debugging.md': '# Debugging\n\n## Inspector\n\nOne test can be debugged at a time.\n',
    });
  });
  afterAll(async () => {
    await lib.close();
    dir.cleanup();
  });

  const rankOf = (heading: number) => cueRank(lib.core, question, optionKey, { heading }, 'heading_cue');

  it('lifts the section the question names above sections that only repeat its words', async () => {
    const off = await rankOf(0);
    const on = await rankOf(DEFAULT_RECALL_CONFIG.cue_weights.heading ?? 0);
    expect(DEFAULT_RECALL_CONFIG.cue_weights.heading).toBeGreaterThan(0);
    expect(off.cue).toBeUndefined();
    expect(on.rank).toBeGreaterThanOrEqual(0);
    expect(on.rank).toBeLessThan(off.rank === -1 ? Infinity : off.rank);
    expect(on.cue).toBe(DEFAULT_RECALL_CONFIG.cue_weights.heading);
  });
});
