// npm run bench:sections -- [--before REV] [--json] [DIR ...]
// How markdown folders split into wiki sections: count, size distribution (p50/p95/max
// characters), sections over 10,000 characters, junk (empty, only links or only HTML once
// stripped), and titles (by heading path, or by the file path because the page has no title).
// Defaults to the two real-documentation corpora under ../shared/evals (skipped when absent;
// read at run time, never copied). `--before REV` runs the splitter of that git revision
// (`git show REV:src/knowledge/markdown.ts`, written to a scratch file) the way import used it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readMarkdownFiles, idFromPath } from '../../src/knowledge/importer.js';
import type * as markdown from '../../src/knowledge/markdown.js';
import * as current from '../../src/knowledge/sections.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { before: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const repo = resolve(import.meta.dirname, '..', '..');
const dirs = positionals.length
  ? positionals
  : [resolve(repo, '..', 'shared/evals/realdocs-vitest/docs'), resolve(repo, '..', 'shared/evals/realdocs-vue-zh/docs')];

interface Split {
  title: string;
  /** the title is the file's path (no front-matter title and no page heading) */
  titleFromPath: boolean;
  /** each section's own heading ("" before the first) and the title it is shown with */
  sections: { heading: string; title: string; body: string }[];
}

type Splitter = (markdown: string, id: string) => Split;

/** Today's splitter, as `upsertWiki` calls it. */
const splitNow: Splitter = (markdown, id) => {
  const doc = current.documentSections(markdown, id);
  return { title: doc.title, titleFromPath: doc.titleFromPath, sections: doc.sections.map((s) => ({ heading: s.heading, title: s.title, body: s.body })) };
};

/** An older revision's splitter, with the title rule import applied then (front matter title, a single H1, else the id). */
async function splitAt(rev: string): Promise<Splitter> {
  const scratch = join(repo, 'node_modules', '.cache', 'kioku-bench-sections');
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, `markdown-${rev.replace(/[^\w.-]/g, '_')}.ts`);
  writeFileSync(file, execFileSync('git', ['show', `${rev}:src/knowledge/markdown.ts`], { cwd: repo }));
  const old = (await import(pathToFileURL(file).href)) as typeof markdown;
  return (markdown, id) => {
    const { meta, body } = old.parseFrontMatter(markdown);
    const split = old.splitSections(body);
    const fm = typeof meta['title'] === 'string' && meta['title'].trim() ? meta['title'].trim() : undefined;
    const title = fm ?? split.title ?? id;
    return {
      title,
      titleFromPath: title === id,
      // every section of a page was shown with the page's title
      sections: split.sections.map((s) => ({ heading: s.heading, title, body: s.body })),
    };
  };
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

function measure(dir: string, split: Splitter): Record<string, number> {
  const { root, files } = readMarkdownFiles(dir);
  const sizes: number[] = [];
  let junk = 0;
  let byPath = 0;
  let byHeadingPath = 0;
  for (const f of files) {
    const id = idFromPath(root, f.path);
    let doc: Split;
    try {
      doc = split(f.markdown, id);
    } catch {
      continue; // a page whose front matter does not parse is refused by import too
    }
    for (const s of doc.sections) {
      sizes.push(s.body.length);
      if (current.isJunkBody(s.body)) junk += 1;
      if (doc.titleFromPath) byPath += 1;
      // shown with a title that names the section: its heading path (or the page, for the text before any heading)
      else if (s.heading === '' || s.title.endsWith(current.cleanHeading(s.heading)) || s.title.includes(`${current.cleanHeading(s.heading)} (part`))
        byHeadingPath += 1;
    }
  }
  sizes.sort((a, b) => a - b);
  return {
    files: files.length,
    sections: sizes.length,
    p50: quantile(sizes, 0.5),
    p95: quantile(sizes, 0.95),
    max: sizes.at(-1) ?? 0,
    over_10000: sizes.filter((n) => n > 10_000).length,
    over_4000: sizes.filter((n) => n > 4_000).length,
    junk,
    titled_by_file_path: byPath,
    titled_by_heading_path: byHeadingPath,
  };
}

const split = values.before ? await splitAt(values.before) : splitNow;
const out: Record<string, Record<string, number>> = {};
for (const dir of dirs) {
  if (!existsSync(dir)) {
    process.stderr.write(`skipped (absent): ${dir}\n`);
    continue;
  }
  out[dir] = measure(dir, split);
}
const cols = ['files', 'sections', 'p50', 'p95', 'max', 'over_10000', 'over_4000', 'junk', 'titled_by_file_path', 'titled_by_heading_path'];
process.stdout.write(`splitter: ${values.before ? `git ${values.before}` : 'working tree'}\n`);
process.stdout.write(`${['corpus', ...cols].join('\t')}\n`);
for (const [dir, m] of Object.entries(out)) process.stdout.write(`${[dir.split('/').slice(-2).join('/'), ...cols.map((c) => m[c])].join('\t')}\n`);
if (values.json) process.stdout.write(`${JSON.stringify({ splitter: values.before ?? 'working-tree', corpora: out })}\n`);
