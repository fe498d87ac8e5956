// Wiki pages and daily notes as sections about one delivered excerpt long (issue 30): the page is
// cut at its top heading level as before, and a section longer than the bound is cut again at its
// own subheadings, level by level; a section without subheadings that is still far too long is
// cut into parts between blocks. Below the top level, sections smaller than a floor join their
// parent or previous sibling (top-level sections stay as before, keys and texts). Fences, containers (`::: tip`, `::: code-group`), tables and lists are never cut
// (src/text/blocks.ts). Each section is titled by its heading path (`Server › Instance › close`),
// and keyed by the slugs of that path: a section's key depends on its own headings only, so an
// edit elsewhere in the page never changes it, and a top-level section keeps today's key.
import { markdownBlocks, type Block } from '../text/blocks.js';
import { passages } from '../text/passage.js';
import { sectionSlug } from './fold.js';
import { parseFrontMatter } from './markdown.js';

/** About one delivered excerpt (DEFAULT_DELIVERY_RULES.excerpt_chars, which this layer cannot import). */
export const SECTION_BOUND = 2_000;
/** Smaller sections join their parent or previous sibling. */
export const SECTION_FLOOR = 300;
/** A section with no subheadings is cut into parts only past this (below it, delivery picks the matching passage). */
export const PART_OVER = 4_000;
/** Between the headings of a section's title. */
export const PATH_SEPARATOR = ' › ';

export interface DocumentSection {
  /** stable id: slugs of the heading path joined by "/", "~N" for the Nth part of a long section, "intro" before the first heading */
  id: string;
  /** the section's own heading, cleaned for display ("" for the intro) */
  heading: string;
  /** the heading path from the page title: "Server › Instance › close" */
  title: string;
  body: string;
}

export interface DocumentSections {
  /** the page title: front matter title, the first H1, the first heading, else the fallback (the id) */
  title: string;
  /** no title in the page: the title is the fallback */
  titleFromPath: boolean;
  sections: DocumentSection[];
}

interface Node {
  block?: Block;
  level: number;
  id: string;
  heading: string;
  parent?: Node;
  lead: Block[];
  children: Node[];
  /** slugs taken among this node's children */
  taken: Set<string>;
}

interface Raw {
  node: Node;
  id: string;
  body: string;
  /** the lead of a node whose children are their own sections: they may join it */
  lead: boolean;
  part: number;
  /** a smaller section joined this one */
  joined?: boolean;
}

/** Display text of a heading: no `{#anchor}`, HTML tags, backticks or escaped marker asterisks (`\*`, Vue's API-style marks); code spans kept as written. */
export function cleanHeading(raw: string): string {
  return raw
    .split('`')
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/\{#[^}]*\}/g, '')
            .replace(/<[^>]*>/g, '')
            .replace(/\\\*/g, '')
            .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1'),
    )
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A body with nothing to read once markup is stripped: empty, only headings, links, images,
 * HTML (a centred logo), HTML comments or list and table punctuation. Kept out of the index.
 */
export function isJunkBody(body: string): boolean {
  const rest = body
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/^#{1,6}[ \t].*$/gm, ' ')
    .replace(/!?\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/!?\[[^\]]*\]\[[^\]]*\]/g, ' ')
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' ')
    .replace(/\bhttps?:\/\/\S+/g, ' ');
  return !/[\p{L}\p{N}]/u.test(rest);
}

/** A markdown document (front matter allowed) split for the wiki: its title and sections. */
export function documentSections(markdown: string, fallbackTitle: string, explicitTitle?: string): DocumentSections {
  const { meta, body } = parseFrontMatter(markdown);
  const fm = typeof meta['title'] === 'string' && meta['title'].trim() ? meta['title'].trim() : undefined;
  return splitDocument(body, fallbackTitle, explicitTitle ?? fm);
}

/** A markdown body (front matter removed) split for the wiki. */
export function splitDocument(body: string, fallbackTitle: string, givenTitle?: string): DocumentSections {
  const blocks = markdownBlocks(body);
  const headings = blocks.filter((b) => b.kind === 'heading');
  const h1 = headings.filter((h) => h.level === 1);
  // a single leading `# Title` is the page's title, not a section (as before)
  const titleBlock = h1.length === 1 && headings[0] === h1[0] ? h1[0] : undefined;
  const named = givenTitle ?? cleanHeading(titleBlock?.heading ?? h1[0]?.heading ?? headings[0]?.heading ?? '');
  const title = named || fallbackTitle;
  const root: Node = { level: titleBlock ? 1 : 0, id: '', heading: '', lead: [], children: [], taken: new Set() };
  const stack: Node[] = [root];
  let seenTitle = titleBlock === undefined;
  for (const b of blocks) {
    if (b === titleBlock) {
      seenTitle = true;
      continue;
    }
    if (!seenTitle) continue; // text before the title line was never a section
    if (b.kind !== 'heading') {
      (stack.at(-1) as Node).lead.push(b);
      continue;
    }
    while (stack.length > 1 && (stack.at(-1) as Node).level >= (b.level as number)) stack.pop();
    const parent = stack.at(-1) as Node;
    if (parent === root && parent.children.length === 0 && root.lead.length > 0) root.taken.add('intro');
    const slug = sectionSlug(b.heading as string, parent.taken);
    const node: Node = {
      block: b,
      level: b.level as number,
      id: parent.id ? `${parent.id}/${slug}` : slug,
      heading: b.heading as string,
      parent,
      lead: [],
      children: [],
      taken: new Set(),
    };
    parent.children.push(node);
    stack.push(node);
  }
  const span = (from: number, to: number): string => (to > from ? body.slice(from, to).trim() : '');
  const subtreeEnd = (n: Node): number => Math.max(n.lead.at(-1)?.end ?? n.block?.end ?? 0, ...n.children.map(subtreeEnd));
  const leadText = (n: Node): string => (n.lead.length ? span((n.lead[0] as Block).start, (n.lead.at(-1) as Block).end) : '');

  const raws: Raw[] = [];
  const pushLong = (node: Node, text: string, lead: boolean): void => {
    if (text.length <= PART_OVER) {
      raws.push({ node, id: node.id || 'intro', body: text, lead, part: 1 });
      return;
    }
    passages(text, SECTION_BOUND).forEach((p, i) =>
      raws.push({
        node,
        id: i === 0 ? node.id || 'intro' : `${node.id || 'intro'}~${i + 1}`,
        body: text.slice(p.start, p.end),
        lead: lead && i === 0,
        part: i + 1,
      }),
    );
  };
  const emit = (node: Node): void => {
    const whole = span((node.block as Block).end, subtreeEnd(node));
    if (node.children.length === 0 || whole.length <= SECTION_BOUND) return pushLong(node, whole, false);
    const lead = leadText(node);
    pushLong(node, isJunkBody(lead) ? '' : lead, true);
    node.children.forEach(emit);
  };
  const intro = leadText(root);
  if (intro && !isJunkBody(intro)) pushLong(root, intro, false);
  root.children.forEach(emit);

  const kept = mergeSmall(
    raws.filter((r) => r.lead || !isJunkBody(r.body)),
    body,
  );
  const pathTitle = (n: Node, part: number): string => {
    const names: string[] = [];
    for (let x: Node | undefined = n; x && x !== root; x = x.parent) names.unshift(cleanHeading(x.heading));
    if (names[0] === title) names.shift();
    return [title, ...names].join(PATH_SEPARATOR) + (part > 1 ? ` (part ${part})` : '');
  };
  return {
    title,
    titleFromPath: !named,
    sections: kept.map((r) => ({ id: r.id, heading: r.node === root ? '' : cleanHeading(r.node.heading), title: pathTitle(r.node, r.part), body: r.body })),
  };
}

const isAncestor = (a: Node, b: Node): boolean => {
  for (let x = b.parent; x; x = x.parent) if (x === a) return true;
  return false;
};

/**
 * Sections under the floor below the top level join the section before them when that is their
 * parent's lead or a previous sibling kept whole, and the two fit the bound; a small lead left
 * alone is put in front of its first child. Empty leads nothing joined are dropped.
 */
function mergeSmall(raws: Raw[], body: string): Raw[] {
  const out: Raw[] = [];
  const withHeading = (r: Raw): string => (r.part > 1 || !r.node.block ? r.body : `${body.slice(r.node.block.start, r.node.block.end)}\n\n${r.body}`.trim());
  for (const r of raws) {
    const prev = out.at(-1);
    // top-level sections stay as the top-level splitter made them (their keys and texts unchanged)
    if (prev && !r.lead && r.body.length < SECTION_FLOOR && r.node.parent?.block !== undefined) {
      const joinsParent = prev.lead && prev.node === r.node.parent;
      const joinsSibling = !prev.lead && prev.part === 1 && r.part === 1 && prev.node.parent === r.node.parent && prev.node !== r.node;
      const joined = `${prev.body}\n\n${withHeading(r)}`.trim();
      if ((joinsParent || joinsSibling) && joined.length <= SECTION_BOUND) {
        prev.body = joined;
        prev.joined = true;
        continue;
      }
    }
    out.push({ ...r });
  }
  // a small lead that no child joined: in front of the section after it when that is its descendant
  for (let i = out.length - 2; i >= 0; i--) {
    const r = out[i] as Raw;
    const next = out[i + 1] as Raw;
    if (r.lead && !r.joined && r.body.length < SECTION_FLOOR && isAncestor(r.node, next.node) && r.body.length + next.body.length + 2 <= SECTION_BOUND) {
      next.body = `${r.body}\n\n${next.body}`.trim();
      r.body = '';
    }
  }
  return out.filter((r) => r.body.trim() !== '');
}
