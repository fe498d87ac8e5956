// Issue 30: an excerpt never ends inside a code fence, a container, a list or a table, at any
// limit; a section longer than the excerpt delivers the passage that matches the query, and says
// which. The hook's injected text is cut by the same rule.
import { describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { DEFAULT_HOOK_MAX_CHARS, HOST_CONTEXT_LIMIT, hookMaxChars, renderDelivery } from '../src/hook/render.js';
import { recall } from '../src/recall/index.js';
import { fenceLeftOpen, markdownBlocks } from '../src/text/blocks.js';
import { excerpt } from '../src/text/excerpt.js';
import { describePassage, passageFor, passages } from '../src/text/passage.js';
import { DoubleJudge } from './doubles/judge.js';
import { memoryStore } from './helpers.js';

// code has blank lines, and so has a loose list: a cut at blank lines alone ends inside them
const fence = ['```ts', ...Array.from({ length: 30 }, (_, i) => `server.route('/r${i}', handler${i})${i % 5 === 4 ? '\n' : ''}`), '```'].join('\n');
const list = Array.from({ length: 12 }, (_, i) => `- item ${i}: set \`option${i}\` before the server starts\n  and keep it for the whole run`).join('\n\n');
const table = ['| option | default |', '| --- | --- |', ...Array.from({ length: 20 }, (_, i) => `| option${i} | ${i * 100} |`)].join('\n');
const container = `::: warning\nClose waits for open connections.\n\n\`\`\`ts\nawait server.close()\n\`\`\`\n\nThen it destroys the rest.\n:::`;
const doc = ['Intro paragraph about the server.', fence, 'A paragraph between.', list, table, container, 'The last paragraph.'].join('\n\n');

/** Well formed: fences balanced, containers closed, a list item whole (each is two lines), a table past its header. */
function wellFormed(text: string): boolean {
  const fences = text.split('\n').filter((l) => /^\s*```/.test(l)).length;
  const opens = text.split('\n').filter((l) => /^:::\s*\S/.test(l)).length;
  const closes = text.split('\n').filter((l) => /^:::\s*$/.test(l)).length;
  const last = text.split('\n').at(-1) ?? '';
  const tableCut = text.includes('| option |') && /^\|/.test(last) && /\| --- \| --- \|$/.test(last);
  const itemCut = /^- item \d+: .*starts$/.test(last);
  return fences % 2 === 0 && opens === closes && !tableCut && !itemCut;
}

describe('excerpt', () => {
  it('ends well formed at every limit, never longer than the limit', () => {
    for (let max = 20; max <= doc.length + 10; max += 7) {
      const cut = excerpt(doc, max);
      expect(cut.text.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(wellFormed(cut.text), `max ${max}: ${JSON.stringify(cut.text.slice(-80))}`).toBe(true);
    }
  });

  it('closes a fence cut at a safe line with its own marker when the fence is the next block and room is left', () => {
    const cut = excerpt(`Before.\n\n${fence}`, 300);
    expect(cut.text).toMatch(/^Before\.\n\n```ts\n[\s\S]*handler\d+\)\n```$/);
    expect(cut.excerpt).toBe(true);
  });

  it('ends a list between items and a table between rows, its header kept', () => {
    expect(excerpt(list, 200).text).toMatch(/and keep it for the whole run$/);
    expect(excerpt(table, 120).text).toMatch(/^\| option \| default \|\n\| --- \| --- \|\n\| option0 \| 0 \|[\s\S]*\|$/);
  });

  it('reads blocks: a container with a fence and blank lines inside is one block', () => {
    expect(markdownBlocks(doc).map((b) => b.kind)).toEqual(['paragraph', 'fence', 'paragraph', 'list', 'table', 'container', 'paragraph']);
  });
});

describe('the passage that matches', () => {
  const section = [
    'close',
    'The close method stops the server.',
    ...Array.from({ length: 6 }, (_, i) => `Paragraph ${i} talks about routing tables and handlers in general, ${'with filler words '.repeat(20)}`),
    'The drain timeout is 30 seconds: open connections get that long before they are destroyed.',
    ...Array.from({ length: 3 }, (_, i) => `Closing remark ${i} ${'more filler text '.repeat(20)}`),
  ].join('\n\n');

  it('picks the passage holding the query terms, with the heading in front, and says which', () => {
    const p = passageFor(section, 1_000, 'how long is the drain timeout?');
    expect(p.text.startsWith('close\n\n')).toBe(true);
    expect(p.text).toContain('The drain timeout is 30 seconds');
    expect(p.text.length).toBeLessThanOrEqual(1_000);
    const all = passages(section, 1_000 - 'close'.length - 2);
    expect(p.passage).toMatchObject({ count: all.length });
    expect(p.passage?.index).toBeGreaterThan(1);
    expect(describePassage(p.passage!)).toMatch(/^passage \d+\/\d+ \(chars \d+–\d+\)$/);
    expect(section.slice(p.passage!.start, p.passage!.end)).toContain('drain timeout');
  });

  it('takes the first passage when no term matches, and the whole text when it fits', () => {
    expect(passageFor(section, 1_000, 'unrelated zebra')).toMatchObject({ passage: { index: 1 } });
    expect(passageFor('short text', 1_000, 'drain')).toEqual({ text: 'short text', excerpt: false });
  });

  it('matches Chinese by bigrams', () => {
    const zh = [
      '数据处理',
      ...Array.from({ length: 5 }, (_, i) => `第${i}段介绍接口和路由的一般用法。${'这里是填充的文字内容。'.repeat(12)}`),
      '清洗分三步：先去掉重复的行，再统一日期格式，最后检查金额字段。',
      ...Array.from({ length: 3 }, (_, i) => `结尾第${i}段。${'其他说明文字。'.repeat(15)}`),
    ].join('\n\n');
    const p = passageFor(zh, 400, '数据清洗有几步？');
    expect(p.text).toContain('清洗分三步');
    expect(p.passage?.index).toBeGreaterThan(1);
  });
});

describe('the hook', () => {
  it('injects well-formed text when an item is cut to the room it has', () => {
    const out = renderDelivery(
      {
        delivery: [
          { evidence_key: 'ev1:private:wiki:server#close', layer: 'wiki', kind: 'knowledge', title: 'Server › close', text: doc, excerpt: false, verdict: 0.9 },
        ],
      },
      900,
    );
    expect(out).toContain('(excerpt)');
    const body = out.slice(out.indexOf('[ev1:private:wiki:server#close]\n') + '[ev1:private:wiki:server#close]\n'.length, out.lastIndexOf('\n(excerpt)'));
    expect(wellFormed(body)).toBe(true);
  });
});

describe('the hook’s bound', () => {
  it('shows every delivered item it has room for: one that must be cut keeps space for its excerpt mark (defect: the last item needing a cut overran the bound by the mark and was left out whole)', () => {
    const text = Array.from({ length: 20 }, (_, i) => `Line ${i} of the release notes, ${'with words '.repeat(8)}`).join('\n').slice(0, 2_000);
    const delivery = [1, 2, 3].map((i) => ({ evidence_key: `ev1:private:memory:m${i}`, layer: 'memory', kind: 'knowledge' as const, title: `Notes ${i}`, text, excerpt: false, verdict: 0.9 }));
    const out = renderDelivery({ delivery }, 6_000);
    expect(out.length).toBeLessThanOrEqual(6_000);
    for (const d of delivery) expect(out).toContain(`[${d.evidence_key}]`);
    expect(out.match(/\n\(excerpt\)/g)).toHaveLength(3);
  });
});

describe('the hook’s default bound', () => {
  it('holds three whole windows of one excerpt each: no turn a delivery recorded as handed over is cut from what the agent is shown (defect: at 6,000 the third window lost its last turns)', () => {
    const window = (i: number): string[] => Array.from({ length: 5 }, (_, t) => `${t % 2 ? 'Melanie' : 'Caroline'}: turn ${t} of chat ${i}, ${'and what was said '.repeat(24)}`.slice(0, 399));
    const delivery = [1, 2, 3].map((i) => ({
      evidence_key: `ev1:team:memory:chat-${i}-0f3c9a7e-5b21-4d8e-9c4a-2e7f1b6d8a90`,
      layer: 'memory',
      kind: 'knowledge' as const,
      title: `Caroline: turn 2 of chat ${i}, ${'and what was said '.repeat(6)}`.slice(0, 120),
      text: window(i).join('\n'),
      excerpt: false,
      verdict: 0.9,
      owner: 'alice',
      mine: false,
    }));
    for (const d of delivery) expect(d.text.length).toBe(1_999);
    const out = renderDelivery({ delivery }, DEFAULT_HOOK_MAX_CHARS);
    expect(out.length).toBeLessThanOrEqual(DEFAULT_HOOK_MAX_CHARS);
    expect(out).not.toContain('(excerpt)');
    for (const i of [1, 2, 3]) for (const line of window(i)) expect(out).toContain(line);
  });
});

describe('the hook’s items', () => {
  it('an item leaving a code fence open has it closed: the next item’s heading and evidence key do not read as code (defect: they sat inside the first item’s fence)', () => {
    const delivery = [
      { evidence_key: 'ev1:private:memory:config', layer: 'memory', kind: 'knowledge' as const, title: 'Config', text: 'The staging config:\n```yaml\nport: 8080', excerpt: false, verdict: 0.9 },
      { evidence_key: 'ev1:private:memory:deploy', layer: 'memory', kind: 'knowledge' as const, title: 'Deploy', text: 'Deploy with scripts/deploy.sh.', excerpt: false, verdict: 0.8 },
    ];
    const out = renderDelivery({ delivery }, 6_000);
    const before = out.slice(0, out.indexOf('\n\n### Deploy'));
    expect(before.endsWith('port: 8080\n```')).toBe(true);
    expect(fenceLeftOpen(before)).toBeUndefined();
    expect(out).toContain('[ev1:private:memory:deploy]');
  });
});

describe('KIOKU_HOOK_MAX_CHARS', () => {
  it('a bound that is not a whole number of characters is the default, and none exceeds what the host shows whole (defect: "abc" read as NaN and bounded nothing)', () => {
    expect(hookMaxChars('450')).toBe(450);
    for (const bad of [undefined, '', ' ', 'abc', '1.5', '0', '-200', 'Infinity']) expect(hookMaxChars(bad)).toBe(DEFAULT_HOOK_MAX_CHARS);
    expect(hookMaxChars('50000')).toBe(HOST_CONTEXT_LIMIT);
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of the runbook, ${'with words '.repeat(12)}`).join('\n\n');
    const delivery = [1, 2, 3].map((i) => ({ evidence_key: `ev1:private:wiki:runbook#s${i}`, layer: 'wiki', kind: 'knowledge' as const, title: `Runbook ${i}`, text, excerpt: false, verdict: 0.9 }));
    expect(renderDelivery({ delivery }, hookMaxChars('abc')).length).toBeLessThanOrEqual(DEFAULT_HOOK_MAX_CHARS);
  });
});

describe('through recall', () => {
  it('delivers the matching passage of a long section, and the record says which', async () => {
    const store = await memoryStore();
    try {
      const filler = (i: number): string => `Paragraph ${i} is about handlers and routes in general, ${'with words that fill the page '.repeat(9)}`;
      const body = [
        ...Array.from({ length: 6 }, (_, i) => filler(i)),
        'The drain timeout is 30 seconds before open connections are destroyed.',
        filler(7),
      ].join('\n\n');
      // one leaf section between one excerpt (2,000) and the part limit (4,000): kept whole, delivered in part
      await store.knowledge.upsertWiki({ id: 'server', markdown: `# Server\n\n## Shutdown\n\n${body}` });
      const core = { log: store.log, projections: store.projections, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9) };
      const p = await recall(core, { query: 'what is the drain timeout?' });
      const record = p.records.find((r) => r.evidence_key === 'ev1:private:wiki:server#shutdown');
      expect(record?.why.passage).toMatch(/^passage [2-9]\/\d \(chars \d+–\d+\)$/);
      expect(record?.excerpt).toContain('The drain timeout is 30 seconds');
      const delivered = p.delivery.find((d) => d.evidence_key === 'ev1:private:wiki:server#shutdown');
      expect(delivered).toMatchObject({ title: 'Server › Shutdown', excerpt: true });
      expect(delivered?.text.startsWith('Shutdown\n\n')).toBe(true);
      expect(delivered?.text).toContain('The drain timeout is 30 seconds');
    } finally {
      await store.close();
    }
  });
});
