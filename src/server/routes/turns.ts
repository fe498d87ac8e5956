import type { ServerState } from '../state.js';
import { bodyRoute } from '../edge.js';
import { completeTurnAnswerSchema, sessionAnswerSchema, turnAnswerSchema } from '../../api/outputs.js';
import { plugin, ready } from './common.js';

export const turnRoutes = (state: ServerState) =>
  plugin((app) => {
    const tags = ['turns'];
    bodyRoute(app, { url: '/v1/sessions/open', method: 'openSession', scope: 'memory:write', summary: 'open (or resume) a session', tags, response: sessionAnswerSchema }, (input, caller) =>
      ready(state).kioku.openSession(input, caller),
    );

    bodyRoute(
      app,
      { url: '/v1/turns/start', method: 'startTurn', scope: 'memory:write', summary: 'capture a turn and recall once; the client must not search again for it', tags, response: turnAnswerSchema },
      (input, caller) => ready(state).kioku.startTurn(input, caller),
    );

    bodyRoute<'completeTurn', { turn_id: string }>(
      app,
      { url: '/v1/turns/:turn_id/complete', method: 'completeTurn', scope: 'memory:write', summary: 'complete a turn: the answer and delivery outcomes (idempotent for the same body)', tags, response: completeTurnAnswerSchema },
      (input, caller, req) => ready(state).kioku.completeTurn(req.params.turn_id, input, caller),
    );
  });
