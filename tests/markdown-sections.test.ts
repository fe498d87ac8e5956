// Issue 30: wiki pages split at every heading level down to about one excerpt, titled by their
// heading path, with junk kept out and blocks never cut; keys that an unrelated edit does not
// move; the card-metadata filter limited to the seed's three sections.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCardMetadataHeading, sectionSlug, splitSections } from '../src/knowledge/index.js';
import { cleanHeading, documentSections, isJunkBody, PART_OVER, SECTION_BOUND, splitDocument } from '../src/knowledge/sections.js';
import { sectionSuccession } from '../src/knowledge/succession.js';
import { markdownBlocks } from '../src/text/blocks.js';
import { REPO } from './helpers.js';

const DOCS = join(REPO, 'tests/fixtures/docs-small');
const read = (rel: string): string => readFileSync(join(DOCS, rel), 'utf8');
const words = (n: number, word = 'lorem'): string => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ') + '.';

describe('a reference page', () => {
  const doc = documentSections(read('reference/server.md'), 'reference/server');

  it('is cut below the top level where a section is longer than one excerpt, each part titled by its heading path', () => {
    expect(doc.title).toBe('Server');
    expect(doc.sections.map((s) => [s.id, s.title])).toEqual([
      ['intro', 'Server'],
      ['instance', 'Server › Instance'],
      ['instance/listen', 'Server › Instance › listen'],
      ['instance/close', 'Server › Instance › close'],
      ['instance/events', 'Server › Instance › Events'],
      ['options', 'Server › Options'],
    ]);
    for (const s of doc.sections) expect(s.body.length).toBeLessThanOrEqual(SECTION_BOUND);
  });

  it('keeps front matter, the logo and a section of links out, and reads no heading inside a fence', () => {
    const all = doc.sections.map((s) => s.body).join('\n');
    expect(all).not.toMatch(/outline: deep|logo\.svg|See also|client\.md/);
    expect(doc.sections.find((s) => s.id === 'instance/listen')?.body).toContain('# a comment in the shell example, not a heading');
    expect(doc.sections.some((s) => /comment/.test(s.title))).toBe(false);
  });

  it('never cuts a fence, a container or a table: each is whole in one section', () => {
    const source = read('reference/server.md');
    const whole = markdownBlocks(source).filter((b) => ['fence', 'container', 'table'].includes(b.kind));
    expect(whole.map((b) => b.kind)).toEqual(['fence', 'container', 'table']);
    for (const b of whole) expect(doc.sections.filter((s) => s.body.includes(source.slice(b.start, b.end)))).toHaveLength(1);
  });
});

describe('a guide page with no H1', () => {
  const doc = documentSections(read('guide/index.md'), 'guide/index');

  it('is titled by its first heading, not its path; the HTML-only logo is no section; the code group is whole', () => {
    expect(doc).toMatchObject({ title: 'Getting started', titleFromPath: false });
    expect(doc.sections.map((s) => s.id)).toEqual(['getting-started', 'source-control-workflow']);
    expect(doc.sections[0]?.body).toMatch(/::: code-group\n\n```sh \[npm\][\s\S]*pnpm add example-server\n```\n\n:::$/);
  });

  it('a page without any heading or title is titled by its path', () => {
    expect(splitDocument('Just a paragraph of text with no heading at all.', 'notes/loose')).toMatchObject({ title: 'notes/loose', titleFromPath: true });
  });
});

describe('small sections and long ones', () => {
  it('a section under the floor joins its previous sibling; a first small child joins its parent', () => {
    const page = `# T\n\n## Top\n\nSmall.\n\n## C\n\n### C1\n\nTiny one.\n\n### C2\n\n${words(220, 'cee')}\n\n### C3\n\n${words(220, 'see')}\n\n### C4\n\nShort.`;
    const doc = splitDocument(page, 't');
    // a small top-level section stays as the top-level splitter made it
    expect(doc.sections.map((s) => s.id)).toEqual(['top', 'c', 'c/c2', 'c/c3']);
    expect(doc.sections[1]).toMatchObject({ title: 'T › C', body: '### C1\n\nTiny one.' });
    expect(doc.sections[3]?.body).toMatch(/### C4\n\nShort\.$/);
  });

  it('a section with no subheadings far over the bound is cut into parts between blocks, a fence kept whole', () => {
    const fence = `\`\`\`ts\n${Array.from({ length: 40 }, (_, i) => `const line${i} = ${i}`).join('\n')}\n\`\`\``;
    const paragraphs = Array.from({ length: 8 }, (_, i) => words(110, `p${i}w`));
    const page = `# Big\n\n## Reference\n\n${paragraphs.slice(0, 4).join('\n\n')}\n\n${fence}\n\n${paragraphs.slice(4).join('\n\n')}`;
    expect(page.length).toBeGreaterThan(PART_OVER);
    const doc = splitDocument(page, 'big');
    expect(doc.sections.map((s) => s.id)).toEqual(['reference', 'reference~2', 'reference~3']);
    expect(doc.sections[1]?.title).toBe('Big › Reference (part 2)');
    expect(doc.sections.filter((s) => s.body.includes(fence))).toHaveLength(1);
    for (const s of doc.sections) expect(s.body.length).toBeLessThanOrEqual(SECTION_BOUND);
  });

  it('an edit to one section leaves every other key and body as it was', () => {
    const page = (extra: string): string =>
      `# P\n\n## One\n\n${words(80, 'one')}\n\n## Two\n\n${words(80, 'two')}${extra}\n\n## Three\n\n${words(80, 'three')}`;
    const before = splitDocument(page(''), 'p').sections;
    const after = splitDocument(page(` ${words(30, 'more')}`), 'p').sections;
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(after.filter((s, i) => s.body !== before[i]?.body).map((s) => s.id)).toEqual(['two']);
  });

  it('top-level sections keep the keys the top-level splitter gave them', () => {
    const page = `# P\n\nIntro ${words(60)}\n\n## Setup\n\n${words(60, 'setup')}\n\n## Intro\n\n${words(60, 'intro')}\n\n## Setup\n\n${words(60, 'again')}`;
    const taken = new Set<string>();
    const old = splitSections(page).sections.map((s) => sectionSlug(s.heading, taken));
    expect(old).toEqual(['intro', 'setup', 'intro-2', 'setup-2']);
    expect(splitDocument(page, 'p').sections.map((s) => s.id)).toEqual(old);
  });
});

describe('heading text in a title', () => {
  it.each([
    ['`ref()` \\*\\* {#ref}', 'ref()'],
    ['`<script setup>` \\*\\* {#script-setup}', '<script setup>'],
    ['toBe <Badge type="info">3.0.0+</Badge> {#tobe}', 'toBe 3.0.0+'],
    ['声明响应式状态 \\* {#declaring-reactive-state}', '声明响应式状态'],
  ])('%j is shown as %j', (raw, shown) => {
    expect(cleanHeading(raw)).toBe(shown);
  });
});

describe('junk', () => {
  it.each([
    ['', true],
    ['<p align="center"><img src="logo.png"></p>', true],
    ['- [Guide](/guide)\n- [API](/api)\n\nhttps://example.com', true],
    ['<!-- generated -->\n### Heading only', true],
    ['<script setup>\nimport Demo from "./demo.vue"\n</script>\n<Demo />', true],
    ['See the [guide](/guide) for setup.', false],
    ['<div class="tip">Use a port above 1024.</div>', false],
    ['| a | b |\n| - | - |\n| 1 | 2 |', false],
  ])('%j is junk: %s', (body, junk) => {
    expect(isJunkBody(body)).toBe(junk);
  });
});

describe('the card-metadata filter (seed 000)', () => {
  it.each([
    ['2. Claim 等級', true],
    ['6. 與現有知識的關係', true],
    ['9. 原始來源', true],
    ['原始来源', true],
    ['2. Claim grade', true],
    ['Source control workflow', false],
    ['数据来源与清洗步骤', false],
    ['3. 數據來源與清洗步驟', false],
    ['Useful links', false],
    ['Sources', false],
    ['Relations between services', false],
  ])('%j is metadata: %s', (heading, meta) => {
    expect(isCardMetadataHeading(heading)).toBe(meta);
  });
});

describe('succession: which new sections hold a retired one', () => {
  const next = [
    { id: 'methods/get', body: 'get body' },
    { id: 'methods/post', body: 'post body' },
    { id: 'options', body: `The options are read once, when the instance is created, and never again.\n\nOther.` },
  ];
  it('a split section by its descendants, a merged one by its ancestor, a moved one by its paragraphs; a deleted one by none', () => {
    expect(
      sectionSuccession(
        [
          { id: 'methods', body: 'all methods' },
          { id: 'options/timeout', body: 'x' },
          { id: 'gone', body: 'nothing like it remains anywhere in the page' },
          { id: 'options', body: 'still here' },
        ],
        next,
      ),
    ).toEqual([
      { section: 'methods', by: ['methods/get', 'methods/post'] },
      { section: 'options/timeout', by: ['options'] },
    ]);
  });

  it('a paragraph that moved to another section is followed', () => {
    expect(
      sectionSuccession(
        [{ id: 'settings', body: 'Intro of the old section.\n\nThe options are read once, when the instance is created, and never again.' }],
        next,
      ),
    ).toEqual([{ section: 'settings', by: ['options'] }]);
  });
});
