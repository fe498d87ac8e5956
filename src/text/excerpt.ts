// Cutting text to a size at natural boundaries: delivery, the hook and every rendering share it.
// An excerpt never ends inside a code fence, a container, a list or a table: it ends between
// blocks, or, when the next block is too big to fit, at a safe line inside it with the block
// closed (a fence or container by its own marker). It never exceeds `max`.
import { innerCuts, markdownBlocks } from './blocks.js';
import { headOf } from './well-formed.js';

/** Cut a long body at block boundaries (then safe places inside a block) to fit `max` characters. */
export function excerpt(text: string, max: number): { text: string; excerpt: boolean } {
  if (text.length <= max) return { text, excerpt: false };
  const blocks = markdownBlocks(text);
  let end = 0;
  let next = blocks[0];
  for (const b of blocks) {
    if (b.end > max) {
      next = b;
      break;
    }
    end = b.end;
    next = undefined;
  }
  let out = text.slice(0, end).trimEnd();
  // the next block does not fit: when there is still room worth using (a third of the limit), the
  // part of it up to a safe line; else the blocks that fit are the excerpt
  if (next && (out.length === 0 || max - out.length >= max / 3)) {
    const room = max - next.start;
    const cut = innerCuts(next, text)
      .filter((c) => c.at + c.close.length <= room)
      .at(-1);
    if (cut) out = `${text.slice(0, next.start)}${text.slice(next.start, next.start + cut.at)}${cut.close}`;
  }
  if (!out) out = hardCut(text, max);
  return { text: out, excerpt: true };
}

/** Nothing safe fits (one sentence longer than the limit): whole words up to `max`. */
function hardCut(text: string, max: number): string {
  // between whole characters: a text with no space (emoji, a run of astral CJK) was cut inside one
  const head = headOf(text, max);
  const space = head.search(/\s\S*$/u);
  return (space > max / 2 ? head.slice(0, space) : head).trimEnd();
}
