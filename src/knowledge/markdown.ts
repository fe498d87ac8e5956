// Markdown with optional YAML front matter, split into sections by headings.
import { parse as parseYaml } from 'yaml';

export interface ParsedMarkdown {
  meta: Record<string, unknown>;
  body: string;
}

export interface MarkdownSection {
  /** 1-based position among the document's sections */
  index: number;
  heading: string;
  body: string;
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function parseFrontMatter(text: string): ParsedMarkdown {
  const src = text.replace(/^\uFEFF/, '');
  const m = FRONT_MATTER.exec(src);
  if (!m) return { meta: {}, body: src };
  let parsed: unknown;
  try {
    parsed = parseYaml(m[1] as string);
  } catch (cause) {
    throw new Error(`front matter is not valid YAML: ${(cause as Error).message.split('\n')[0]}`, { cause });
  }
  if (parsed !== null && parsed !== undefined && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw new Error('front matter must be a YAML mapping');
  }
  return { meta: (parsed ?? {}) as Record<string, unknown>, body: src.slice(m[0].length) };
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;

/**
 * Split at headings of the shallowest level used below the title (a single leading
 * `# Title` is the document title, not a section). Text before the first heading is
 * section "intro" when it is not blank. Fenced code blocks are not scanned for headings.
 */
export function splitSections(body: string): { title: string | undefined; sections: MarkdownSection[] } {
  const lines = body.split(/\r?\n/);
  const headings: { line: number; level: number; text: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const f = /^(```|~~~)/.exec(line.trim());
    if (f) fence = fence === undefined ? f[1] : fence === f[1] ? undefined : fence;
    if (fence !== undefined) return;
    const h = HEADING.exec(line);
    if (h) headings.push({ line: i, level: (h[1] as string).length, text: (h[2] as string).trim() });
  });
  let title: string | undefined;
  let start = 0;
  const h1 = headings.filter((h) => h.level === 1);
  if (h1.length === 1 && headings[0] === h1[0]) {
    title = h1[0]?.text;
    start = 1;
  }
  const rest = headings.slice(start);
  const level = rest.length ? Math.min(...rest.map((h) => h.level)) : 0;
  const cuts = rest.filter((h) => h.level === level);
  const sections: MarkdownSection[] = [];
  const firstLine = start === 1 ? (headings[0]?.line ?? -1) + 1 : 0;
  const introEnd = cuts[0]?.line ?? lines.length;
  const intro = lines.slice(firstLine, introEnd).join('\n').trim();
  if (intro) sections.push({ index: 0, heading: '', body: intro });
  cuts.forEach((h, i) => {
    const end = cuts[i + 1]?.line ?? lines.length;
    sections.push({
      index: 0,
      heading: h.text,
      body: lines
        .slice(h.line + 1, end)
        .join('\n')
        .trim(),
    });
  });
  sections.forEach((s, i) => (s.index = i + 1));
  return { title, sections };
}

/**
 * Card metadata sections are recallable but never delivered. Only the three form fields the
 * seed names (000: "2. Claim 等級", "6. 與現有知識的關係", "9. 原始來源"), in traditional and
 * simplified Chinese and English, matched on the whole heading (its number aside): a heading that
 * merely contains "source" or "来源" ("Source control workflow", "数据来源与清洗步骤") is content.
 */
export function isCardMetadataHeading(heading: string): boolean {
  const h = heading
    .normalize('NFKC')
    .replace(/^\s*\d+\s*[.)、．]\s*/u, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
  return CARD_METADATA_HEADINGS.has(h);
}

const CARD_METADATA_HEADINGS: ReadonlySet<string> = new Set([
  'claim 等級',
  'claim 等级',
  'claim grade',
  '與現有知識的關係',
  '与现有知识的关系',
  'relations to existing knowledge',
  '原始來源',
  '原始来源',
  'original source',
]);

/** Card ids named in a relations section: `[[id]]`, `card:id` or list items that are bare ids. */
export function relatedCardIds(body: string): string[] {
  const ids = new Set<string>();
  for (const m of body.matchAll(/\[\[([^\]\s|#]+)(?:[|#][^\]]*)?\]\]/g)) ids.add(m[1] as string);
  for (const m of body.matchAll(/\bcard:([^\s,;)\]]+)/g)) ids.add(m[1] as string);
  for (const m of body.matchAll(/^\s*[-*]\s+`?([A-Za-z0-9][\w./-]*)`?\s*$/gm)) ids.add(m[1] as string);
  return [...ids];
}
