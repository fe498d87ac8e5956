// How the MCP tools show items and recall packets to an agent: a short line per item with its
// evidence key (what get_memory and get_related take), the full answer in structured content.
import type { EvidenceAnswer, ItemsAnswer, Kioku } from '../kioku.js';
import type { RecordEntry } from '../knowledge/item.js';
import type { RecallPacket } from '../recall/packet.js';
import { renderContext } from '../recall/render.js';
import type { Caller } from '../api/index.js';
import type { Rendered } from './tool.js';
import { headOf } from '../text/well-formed.js';

/** One item as the tools show it. Remote answers are JSON: a field the type promises may still be absent. */
export function itemView(e: RecordEntry & Pick<EvidenceAnswer, 'head_id'> & { mine?: boolean }) {
  return {
    evidence_key: e.key,
    id: e.id,
    layer: e.layer,
    ...(e.kind ? { kind: e.kind } : {}),
    title: e.title,
    text: e.text,
    occurred_at: e.occurred_at,
    status: e.status,
    ...(e.head_id ? { current: e.head_id } : {}),
    ...(Array.isArray(e.tags) && e.tags.length ? { tags: e.tags } : {}),
    ...(e.owner ? { owner: e.owner } : {}),
    // in an org (issue 34): false for another member's item, which the agent must not retell as the user's
    ...(typeof e.mine === 'boolean' ? { mine: e.mine } : {}),
  };
}

export type ItemView = ReturnType<typeof itemView>;

export function renderItems(items: ItemView[], empty: string): string {
  if (items.length === 0) return empty;
  return items
    .map(
      (i) =>
        `- [${i.evidence_key}]${i.kind ? ` (${i.kind})` : ''}${i.status !== 'active' ? ` [${i.status}${i.current ? ` → ${i.current}` : ''}]` : ''}${i.mine === false ? ` (${i.owner ?? 'the team'}'s, not the user's)` : ''} ${headOf(String(i.text), 400)}`,
    )
    .join('\n');
}

export function renderPacket(p: RecallPacket): string {
  const delivered = renderContext(p);
  const others = p.records
    .filter((r) => !r.why.delivered)
    .slice(0, 5)
    .map((r) => `- [${r.evidence_key}]${r.mine === false ? ` (${r.owner ?? 'the team'}'s)` : ''} ${r.title}`);
  return [delivered || 'Nothing to deliver for this message.', others.length ? `Other candidates (ask get_memory for one):\n${others.join('\n')}` : '']
    .filter(Boolean)
    .join('\n\n');
}

/** Items by what they are (Kioku.items), rendered: the browse tools' one shape. */
export async function browseItems(kioku: Kioku, input: Parameters<Kioku['items']>[0], caller: Caller, empty: string): Promise<Rendered> {
  const a: ItemsAnswer = await kioku.items(input, caller);
  const items = a.items.map(itemView);
  return {
    text: renderItems(items, empty),
    data: { namespace: a.namespace, ...(a.range ? { range: a.range } : {}), items, total: a.total, truncated: a.truncated },
  };
}
