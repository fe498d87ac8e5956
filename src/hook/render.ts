// What the agent sees: a short header, then each delivered item with its evidence key, the
// whole block bounded (hosts silently cut long hook output), excerpts cut at paragraph boundaries.
import type { RecallPacket } from '../recall/packet.js';
import { closeOpenFence } from '../text/blocks.js';
import { excerpt } from '../text/excerpt.js';
import { whoseLine } from '../recall/render.js';
import { headOf } from '../text/well-formed.js';

export const HOOK_HEADER =
  'Kioku recalled these from earlier work. Use what applies to this message and ignore the rest without mentioning it. Ask get_memory (MCP) or `kioku recall` with an evidence key for more.';

const EXCERPT_MARK = '\n(excerpt)';

/**
 * What the hook injects at most by default (KIOKU_HOOK_MAX_CHARS): three delivered items of one
 * excerpt each (DeliveryRules: max_items 3, excerpt_chars 2,000) with their headings. 6,000 held
 * two: the third was cut, and with it the last turns or sections of its window, which the turn had
 * recorded as handed over (so held back later as still seen, though the agent was never shown them).
 */
export const DEFAULT_HOOK_MAX_CHARS = 8_000;
/** Claude Code shows a hook's context over this many characters as a preview and a file, not whole */
export const HOST_CONTEXT_LIMIT = 10_000;

/**
 * The bound KIOKU_HOOK_MAX_CHARS asks for: a whole number of characters, at most HOST_CONTEXT_LIMIT;
 * anything else is the default. Number('abc') is NaN, and a NaN bound cut nothing: every item whole.
 */
export function hookMaxChars(value: string | undefined): number {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? Math.min(n, HOST_CONTEXT_LIMIT) : DEFAULT_HOOK_MAX_CHARS;
}

export function renderDelivery(packet: Pick<RecallPacket, 'delivery'>, maxChars: number): string {
  if (packet.delivery.length === 0) return '';
  const parts: string[] = [HOOK_HEADER];
  let used = HOOK_HEADER.length;
  // an equal share each, but never so thin that nothing fits: then fewer items, whole enough to use
  const share = Math.max(Math.floor((maxChars - used) / packet.delivery.length), 300);
  for (const d of packet.delivery) {
    const head = `\n\n### ${headOf(d.title, 200)}\n[${d.evidence_key}]\n${whoseLine(d)}`;
    const left = Math.min(share, maxChars - used) - head.length;
    // a cut item ends with EXCERPT_MARK: its room keeps space for it (else the last item that needed
    // a cut overran the bound by the mark and was left out whole, though recorded as handed over)
    // an item leaving a code fence open has it closed: else the next item's heading and key read as code
    const text = closeOpenFence(d.text);
    const room = text.length <= left ? left : left - EXCERPT_MARK.length;
    if (room < 60) break;
    const body = excerpt(text, room);
    const part = `${head}${body.text}${body.excerpt ? EXCERPT_MARK : ''}`;
    if (used + part.length > maxChars) break;
    parts.push(part);
    used += part.length;
  }
  return parts.length > 1 ? parts.join('') : '';
}

/** Standing instructions and constraints for the start of a session, with the authoritative time. */
export function renderStanding(
  now: Date,
  directives: { evidence_key: string; text: string }[],
  constraints: { evidence_key: string; text: string }[],
  maxChars: number,
): string {
  const lines = [`Kioku: the current time is ${now.toISOString()}.`];
  const add = (title: string, items: { evidence_key: string; text: string }[]): void => {
    if (items.length === 0) return;
    lines.push('', title);
    for (const i of items) lines.push(`- ${excerpt(i.text, 600).text} [${i.evidence_key}]`);
  };
  add("The user's standing instructions and preferences:", directives);
  add('Hard constraints recorded for this work:', constraints);
  let out = lines.join('\n');
  if (out.length > maxChars) out = `${headOf(out, maxChars - 1)}…`;
  return out;
}
