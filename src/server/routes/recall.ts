import { DisabledJudge, recall, type RecallPacket } from '../../recall/index.js';
import type { ServerState } from '../app.js';
import { wire } from '../schemas.js';
import { doc, plugin, ready, scopedBody } from './common.js';

/** The delivery as a text block an agent can read directly. */
export function renderContext(packet: RecallPacket): string {
  if (packet.delivery.length === 0) return '';
  const parts = packet.delivery.map((d) => `### ${d.title}${d.excerpt ? ' (excerpt)' : ''}\n[${d.evidence_key}]\n${d.text}`);
  return `Possibly relevant knowledge from Kioku (ignore items that do not apply; do not mention them):\n\n${parts.join('\n\n')}`;
}

export const recallRoutes = (state: ServerState) =>
  plugin((app) => {
    app.post('/v1/recall', doc('recall: records, delivery, diagnostics', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return recall(ready(state).core, { ...rest, namespace: ns }, context);
    });

    app.post('/v1/context', doc('recall, plus the delivery rendered as a text block', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      const packet = await recall(ready(state).core, { ...rest, namespace: ns }, context);
      return { ...packet, context: renderContext(packet) };
    });

    app.post('/v1/candidates/query', doc('read-only retrieval: fused candidates, no judge, nothing recorded', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      const { core } = ready(state);
      return recall({ ...core, judge: new DisabledJudge() }, { ...rest, namespace: ns }, { ...context, readOnly: true });
    });
  });
