// Markdown as the blocks a cut must respect: a code fence, a VitePress/Docusaurus container
// (`::: tip … :::`, `::: code-group`), a table, a list and an HTML block are each one block,
// blank lines inside them included; headings and paragraphs are the rest. The splitter cuts
// sections between blocks and excerpts end between blocks (or at a safe line inside one).

export type BlockKind = 'heading' | 'fence' | 'container' | 'table' | 'list' | 'html' | 'paragraph';

export interface Block {
  kind: BlockKind;
  /** offsets into the source: text.slice(start, end) is the block, without its trailing newline */
  start: number;
  end: number;
  /** a heading's level (1–6) and its text (trailing #s removed) */
  level?: number;
  heading?: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const CONTAINER_OPEN = /^ {0,3}(:{3,})\s*[^\s:]/;
const CONTAINER_CLOSE = /^ {0,3}(:{3,})\s*$/;
const TABLE_ROW = /^ {0,3}\|/;
export const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const HTML_START = /^ {0,3}<[A-Za-z!/]/;

const isBlank = (line: string): boolean => line.trim() === '';
const indentOf = (line: string): number => /^[ \t]*/.exec(line)?.[0].replace(/\t/g, '    ').length ?? 0;

/** Lines without their line ends, each with the offset it starts at. */
function linesOf(text: string): { line: string; at: number }[] {
  const out: { line: string; at: number }[] = [];
  let at = 0;
  for (const raw of text.split('\n')) {
    out.push({ line: raw.endsWith('\r') ? raw.slice(0, -1) : raw, at });
    at += raw.length + 1;
  }
  return out;
}

/** The line that closes the fence opened at `i` (the last line when it is never closed). */
function fenceEnd(lines: readonly { line: string }[], i: number): number {
  const open = FENCE_OPEN.exec(lines[i]?.line ?? '')?.[1] ?? '```';
  const close = new RegExp(`^\\s*${open[0] === '`' ? '`' : '~'}{${open.length},}\\s*$`);
  for (let j = i + 1; j < lines.length; j++) if (close.test(lines[j]?.line ?? '')) return j;
  return lines.length - 1;
}

/**
 * The line that closes the container opened at `i`: the first closing marker at least as long as
 * its opening one, as markdown-it-container reads it (a nested container needs a longer outer
 * marker, `::::`); fences inside are skipped.
 */
function containerEnd(lines: readonly { line: string }[], i: number): number {
  const open = CONTAINER_OPEN.exec(lines[i]?.line ?? '')?.[1]?.length ?? 3;
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j]?.line ?? '';
    if (FENCE_OPEN.test(line)) j = fenceEnd(lines, j);
    else if ((CONTAINER_CLOSE.exec(line)?.[1]?.length ?? 0) >= open) return j;
  }
  return lines.length - 1;
}

/** The last line of the list starting at `i`: items, their indented continuations and fences, across blank lines. */
function listEnd(lines: readonly { line: string }[], i: number): number {
  let last = i;
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j]?.line ?? '';
    if (isBlank(line)) continue;
    const afterBlank = isBlank(lines[j - 1]?.line ?? '');
    const indented = indentOf(line) >= 2;
    if (afterBlank && !indented && !LIST_ITEM.test(line)) break;
    if (!indented && (HEADING.test(line) || CONTAINER_OPEN.test(line) || CONTAINER_CLOSE.test(line) || TABLE_ROW.test(line))) break;
    if (FENCE_OPEN.test(line)) {
      if (!indented && !afterBlank) break;
      j = fenceEnd(lines, j);
    }
    last = j;
  }
  return last;
}

/**
 * What closes a code fence `text` leaves open at its end (a fence's own marker on a line of its
 * own), or undefined when none is open. Text joined after an open fence reads as code: a turn
 * window's next line, the hook's next item with its heading and evidence key.
 */
export function fenceLeftOpen(text: string): string | undefined {
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE_OPEN.test(lines[i]?.line ?? '')) continue;
    const end = fenceEnd(lines, i);
    const marker = FENCE_OPEN.exec(lines[i]?.line ?? '')?.[1] ?? '```';
    if (end === i || end === lines.length - 1) {
      const closes = end > i && new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[end]?.line ?? '');
      if (!closes) return marker;
    }
    i = end;
  }
  return undefined;
}

/** `text` with the code fence it leaves open closed (fenceLeftOpen), else `text` itself. */
export function closeOpenFence(text: string): string {
  const marker = fenceLeftOpen(text);
  return marker === undefined ? text : `${text}\n${marker}`;
}

/** The markdown's blocks in order (blank lines between them belong to none). */
export function markdownBlocks(text: string): Block[] {
  const lines = linesOf(text);
  const blocks: Block[] = [];
  const push = (kind: BlockKind, from: number, to: number, extra: Partial<Block> = {}): void => {
    const last = lines[to] as { line: string; at: number };
    blocks.push({ kind, start: (lines[from] as { at: number }).at, end: last.at + last.line.length, ...extra });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as { line: string }).line;
    if (isBlank(line)) continue;
    let j = i;
    if (FENCE_OPEN.test(line)) push('fence', i, (j = fenceEnd(lines, i)));
    else if (CONTAINER_OPEN.test(line)) push('container', i, (j = containerEnd(lines, i)));
    else if (HEADING.test(line)) {
      const h = HEADING.exec(line) as RegExpExecArray;
      push('heading', i, i, { level: (h[1] as string).length, heading: (h[2] as string).trim() });
    } else if (TABLE_ROW.test(line)) {
      while (j + 1 < lines.length && TABLE_ROW.test(lines[j + 1]?.line ?? '')) j++;
      push('table', i, j);
    } else if (LIST_ITEM.test(line)) push('list', i, (j = listEnd(lines, i)));
    else {
      // a paragraph (or an HTML block) runs to a blank line, or to a line that opens another block
      while (j + 1 < lines.length) {
        const next = lines[j + 1]?.line ?? '';
        if (isBlank(next) || FENCE_OPEN.test(next) || CONTAINER_OPEN.test(next) || HEADING.test(next)) break;
        j++;
      }
      push(HTML_START.test(line) ? 'html' : 'paragraph', i, j);
    }
    i = j;
  }
  return blocks;
}

/**
 * Safe places to end a cut inside one block (offsets relative to the block's text), each with
 * what must follow to leave it well formed: a fence or container closed by its own marker,
 * a list between items, a table between rows (its header kept), a paragraph between sentences.
 */
export function innerCuts(block: Block, text: string): { at: number; close: string }[] {
  const own = text.slice(block.start, block.end);
  const lines = linesOf(own);
  const cuts: { at: number; close: string }[] = [];
  const lineEnd = (k: number): number => (lines[k]?.at ?? 0) + (lines[k]?.line.length ?? 0);
  switch (block.kind) {
    case 'fence': {
      const marker = FENCE_OPEN.exec(lines[0]?.line ?? '')?.[1] ?? '```';
      for (let k = 1; k < lines.length - 1; k++) cuts.push({ at: lineEnd(k), close: `\n${marker}` });
      break;
    }
    case 'container': {
      // between lines outside the container's own fences; every container still open is closed
      const open: string[] = [CONTAINER_OPEN.exec(lines[0]?.line ?? '')?.[1] ?? ':::'];
      let fence: string | undefined;
      for (let k = 1; k < lines.length - 1; k++) {
        const line = lines[k]?.line ?? '';
        const f = FENCE_OPEN.exec(line)?.[1];
        if (fence === undefined && f) fence = f;
        else if (fence !== undefined && new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = undefined;
        else if (fence === undefined) {
          const close = CONTAINER_CLOSE.exec(line)?.[1];
          const nested = CONTAINER_OPEN.exec(line)?.[1];
          if (close && close.length >= (open.at(-1)?.length ?? 3)) open.pop();
          else if (nested) open.push(nested);
        }
        if (fence === undefined && open.length > 0)
          cuts.push({
            at: lineEnd(k),
            close: open
              .map((m) => `\n${m}`)
              .reverse()
              .join(''),
          });
      }
      break;
    }
    case 'list': {
      const base = indentOf(lines[0]?.line ?? '');
      for (let k = 1; k < lines.length; k++) {
        const line = lines[k]?.line ?? '';
        if (!LIST_ITEM.test(line) || indentOf(line) > base) continue;
        let prev = k - 1;
        while (prev > 0 && isBlank(lines[prev]?.line ?? '')) prev--;
        cuts.push({ at: lineEnd(prev), close: '' });
      }
      break;
    }
    case 'table':
      for (let k = 2; k < lines.length; k++) cuts.push({ at: lineEnd(k), close: '' });
      break;
    case 'paragraph': {
      let at = 0;
      // whole sentences, a run of end marks one boundary, leading marks a piece of their own
      for (const s of own.match(/[^.!?。！？]+[.!?。！？]*\s*|[.!?。！？]+\s*/gu) ?? []) {
        at += s.length;
        cuts.push({ at: own.slice(0, at).trimEnd().length, close: '' });
      }
      break;
    }
    default:
      break;
  }
  return cuts.map((c) => ({ at: c.at, close: c.close })).filter((c) => c.at > 0 && c.at < own.length);
}
