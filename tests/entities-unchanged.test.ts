// extractEntities (src/text/entities.ts) is folded over every item by the graph projection, so a
// change that makes it cheaper (issue 35's rebuild cost, bench:log) must leave its output as it
// was: the graph's digest and every snapshot depend on it. The cases below and, when
// ../shared/evals is present, the digest of its output over the development corpora (LoCoMo turns
// with and without their speaker, questions; CMRC contexts and questions; the real docs' sections
// and paragraphs) were taken from the extractor at d6b3763, before it was made cheaper.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_EVALS } from '../evals/docs/labels.js';
import { extractEntities } from '../src/text/entities.js';

const names40 = Array.from({ length: 40 }, (_, i) => `Name${String.fromCharCode(65 + (i % 26))}${i}x`).join(', ');

/** [text, max (undefined: the default), the entities d6b3763 extracted] */
const CASES: [string, number | undefined, string[]][] = [
  ['Caroline: I went to the LGBTQ support group yesterday. It was great!', undefined, ["caroline", "lgbtq"]],
  ['Action Item: call Bob about the New York trip on Monday.', undefined, ["bob", "new york", "new", "york"]],
  ['Note: the fooBar handler in src/server/routes/knowledge.ts calls store.projections.rebuild() on db.internal:5432', undefined, ["foobar", "store.projections.rebuild(", "src/server/routes/knowledge.ts", "db.internal:5432"]],
  ['We moved from Vue 2.7 to Vue 3.4 and Node 20; see ~/work/app/README.md and ../shared/evals.', undefined, ["vue", "node", "readme", "~/work/app/readme.md", "../shared/evals", "vue 2.7", "vue 3.4", "node 20"]],
  ["Melanie's kids love Ｐｏｋéｍｏｎ Ｇｏ and Caroline’s painting, John's guitar.", undefined, ["pokémon go", "pokémon", "go", "caroline", "john"]],
  ['我们在北京大学的图书馆里学习人工智能和机器学习。', undefined, ["北京大学", "图书", "书馆", "馆里", "里学", "学习", "习人", "人工", "工智", "机器学习"]],
  ['東京タワーに行きました。서울에서 만났어요', undefined, ["東京タワ", "に行", "行き", "きま", "まし", "した", "서울에서", "만났어요"]],
  ['The quick brown fox. When Alice met Bob Smith-Jones, they talked about snake_case_names and camelCase.', undefined, ["alice", "bob smith-jones", "bob", "smith-jones", "snake_case_names", "camelcase"]],
  ['Run scripts/rollback.sh 12 then re-apply the migration.', undefined, ["scripts/rollback.sh"]],
  ['Hey Mel! Good to see you!   New   Year plans?\nNext Steps: ship it', undefined, ["mel", "new year", "new", "year"]],
  ['Meet at 10:30 by the door; the API listens on localhost:8080 and api.example.com:443 (see "docs/setup.md").', undefined, ["api", "docs/setup.md", "localhost:8080", "api.example.com:443"]],
  [`Invited: ${names40}.`, undefined, ["invited", "namea0x", "nameb1x", "namec2x", "named3x", "namee4x", "namef5x", "nameg6x", "nameh7x", "namei8x", "namej9x", "namek10x", "namel11x", "namem12x", "namen13x", "nameo14x", "namep15x", "nameq16x", "namer17x", "names18x", "namet19x", "nameu20x", "namev21x", "namew22x", "namex23x", "namey24x", "namez25x", "namea26x", "nameb27x", "namec28x", "named29x", "namee30x"]],
  [`Invited: ${names40}.`, 3, ["invited", "namea0x", "nameb1x"]],
  ['New\u00a0York and San\u3000Francisco, Los\u2003Angeles; x.Foo and (a.b.c())', undefined, ["new york", "new", "york", "san francisco", "san", "francisco", "los angeles", "los", "angeles", "a.b.c("]],
  ['i think ABC-123 and iPhone 15 Pro and Windows-11 are fine', undefined, ["abc-123", "pro", "windows-11", "iphone"]],
  ['', undefined, []],
  ['  ', undefined, []],
  ['Hello', undefined, []],
];

/** The development texts in a fixed order (files sorted), as the items a rebuild folds hold them. */
function corpusTexts(): string[] {
  const out: string[] = [];
  const locomo = JSON.parse(readFileSync(join(SHARED_EVALS, 'locomo/locomo-dev.json'), 'utf8')) as {
    conversation: Record<string, unknown>;
    qa: { question: string }[];
  }[];
  for (const conv of locomo) {
    for (const [k, v] of Object.entries(conv.conversation))
      if (/^session_\d+$/.test(k)) for (const turn of v as { speaker: string; text: string }[]) out.push(turn.text, `${turn.speaker}: ${turn.text}`);
    for (const q of conv.qa) out.push(q.question);
  }
  const cmrc = JSON.parse(readFileSync(join(SHARED_EVALS, 'cmrc2018/cmrc2018-dev.json'), 'utf8')) as {
    data: { paragraphs: { context: string; qas: { question: string }[] }[] }[];
  };
  for (const a of cmrc.data) for (const p of a.paragraphs) out.push(p.context, ...p.qas.map((q) => q.question));
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir).sort()) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.md')) {
        const md = readFileSync(p, 'utf8');
        out.push(...md.split(/\n(?=#)/), ...md.split(/\n\n+/));
      }
    }
  };
  walk(join(SHARED_EVALS, 'realdocs-vitest/docs'));
  walk(join(SHARED_EVALS, 'realdocs-vue-zh/docs'));
  return out;
}

const CORPUS_FILES = ['locomo/locomo-dev.json', 'cmrc2018/cmrc2018-dev.json', 'realdocs-vitest/docs', 'realdocs-vue-zh/docs'];
const corpusPresent = CORPUS_FILES.every((f) => existsSync(join(SHARED_EVALS, f)));

describe('extractEntities: output unchanged', () => {
  it.each(CASES.map((c, i) => [i, ...c] as const))('case %i', (_i, text, max, expected) => {
    expect(max === undefined ? extractEntities(text) : extractEntities(text, max)).toEqual(expected);
  });

  describe.skipIf(!corpusPresent)('over the development corpora (../shared/evals present)', () => {
    it('the digest of every text\'s entities is the one d6b3763 gave', () => {
      const texts = corpusTexts();
      expect(texts.length).toBeGreaterThan(30_000);
      const digest = createHash('sha256').update(JSON.stringify(texts.map((t) => extractEntities(t)))).digest('hex');
      expect(digest).toBe('1ef011311ad981c73502f6c4202131ca9696720a3a01d50f0b6859b37dd393c9');
    });
  });
});
