// The delivery as text an agent reads directly (POST /v1/context, MCP, the hook).
import type { RecallPacket } from './packet.js';

export function renderContext(packet: RecallPacket): string {
  if (packet.delivery.length === 0) return '';
  const parts = packet.delivery.map((d) => `### ${d.title}${d.excerpt ? ' (excerpt)' : ''}\n[${d.evidence_key}]\n${d.text}`);
  return `Possibly relevant knowledge from Kioku (ignore items that do not apply; do not mention them):\n\n${parts.join('\n\n')}`;
}
