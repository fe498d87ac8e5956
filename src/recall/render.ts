// The delivery as text an agent reads directly (POST /v1/context, MCP, the hook).
import type { RecallPacket } from './packet.js';

/**
 * In an org, an item someone else owns says so before its text (issue 34): an agent must not retell
 * a colleague's memory as the user's own experience. Empty for the caller's own and without an org.
 */
export function whoseLine(d: { owner?: string; mine?: boolean }): string {
  if (d.mine !== false) return '';
  return d.owner !== undefined
    ? `(someone else's memory: noted by ${d.owner}, not by the user; say so if you use it)\n`
    : `(the team's shared library, not the user's own notes)\n`;
}

export function renderContext(packet: RecallPacket): string {
  if (packet.delivery.length === 0) return '';
  const parts = packet.delivery.map((d) => `### ${d.title}${d.excerpt ? ' (excerpt)' : ''}\n[${d.evidence_key}]\n${whoseLine(d)}${d.text}`);
  return `Possibly relevant knowledge from Kioku (ignore items that do not apply; do not mention them):\n\n${parts.join('\n\n')}`;
}
