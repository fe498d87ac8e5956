import type { ServerState } from '../state.js';
import { wire } from '../schemas.js';
import type { CompleteTurnInput, OpenSessionInput, StartTurnInput } from '../../wire.js';
import { doc, plugin, ready, scopedBody, unvalidated } from './common.js';

export const turnRoutes = (state: ServerState) =>
  plugin((app) => {
    app.post('/v1/sessions/open', doc('open (or resume) a session', wire.openSession, ['turns']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write');
      return ready(state).kioku.openSession(unvalidated<OpenSessionInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/turns/start', doc('capture a turn and recall once; the client must not search again for it', wire.startTurn, ['turns']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write');
      return ready(state).kioku.startTurn(unvalidated<StartTurnInput>({ ...rest, namespace: ns }), context);
    });

    app.post<{ Params: { turn_id: string } }>(
      '/v1/turns/:turn_id/complete',
      doc('complete a turn: the answer and delivery outcomes (idempotent for the same body)', wire.completeTurn, ['turns']),
      async (req) => {
        const { ns, rest, context } = scopedBody(req, 'memory:write');
        return ready(state).kioku.completeTurn(req.params.turn_id, unvalidated<CompleteTurnInput>(rest), context);
      },
    );
  });
