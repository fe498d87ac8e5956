import { completeTurn, openSession, startTurn } from '../../recall/index.js';
import type { ServerState } from '../app.js';
import { wire } from '../schemas.js';
import { doc, plugin, ready, scopedBody } from './common.js';

export const turnRoutes = (state: ServerState) =>
  plugin((app) => {
    app.post('/v1/sessions/open', doc('open (or resume) a session', wire.openSession, ['turns']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write');
      return openSession(ready(state).core, { ...rest, namespace: ns }, context);
    });

    app.post('/v1/turns/start', doc('capture a turn and recall once; the client must not search again for it', wire.startTurn, ['turns']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write');
      return startTurn(ready(state).core, { ...rest, namespace: ns }, context);
    });

    app.post<{ Params: { turn_id: string } }>(
      '/v1/turns/:turn_id/complete',
      doc('complete a turn: the answer and delivery outcomes (idempotent for the same body)', wire.completeTurn, ['turns']),
      async (req) => {
        const { ns, rest, context } = scopedBody(req, 'memory:write');
        return completeTurn(ready(state).core, req.params.turn_id, rest, context);
      },
    );
  });
