import type { ServerState } from '../state.js';
import { wire } from '../schemas.js';
import type { RecallInput } from '../../wire.js';
import { doc, plugin, ready, scopedBody, unvalidated } from './common.js';

export const recallRoutes = (state: ServerState) =>
  plugin((app) => {
    app.post('/v1/recall', doc('recall: records, delivery, diagnostics', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return ready(state).kioku.recall(unvalidated<RecallInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/context', doc('recall, plus the delivery rendered as a text block', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return ready(state).kioku.context(unvalidated<RecallInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/candidates/query', doc('read-only retrieval: fused candidates, no judge, nothing recorded', wire.recall, ['recall']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return ready(state).kioku.candidates(unvalidated<RecallInput>({ ...rest, namespace: ns }), context);
    });
  });
