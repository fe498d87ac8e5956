import type { ServerState } from '../state.js';
import { bodyRoute } from '../edge.js';
import { contextAnswerSchema, recallPacketSchema } from '../../api/outputs.js';
import { plugin, ready } from './common.js';

export const recallRoutes = (state: ServerState) =>
  plugin((app) => {
    const read = { scope: 'memory:read', tags: ['recall'] } as const;
    bodyRoute(app, { url: '/v1/recall', method: 'recall', summary: 'recall: records, delivery, diagnostics', response: recallPacketSchema, ...read }, (input, caller) =>
      ready(state).kioku.recall(input, caller),
    );
    bodyRoute(app, { url: '/v1/context', method: 'context', summary: 'recall, plus the delivery rendered as a text block', response: contextAnswerSchema, ...read }, (input, caller) =>
      ready(state).kioku.context(input, caller),
    );
    bodyRoute(
      app,
      { url: '/v1/candidates/query', method: 'candidates', summary: 'read-only retrieval: fused candidates, no judge, nothing recorded', response: recallPacketSchema, ...read },
      (input, caller) => ready(state).kioku.candidates(input, caller),
    );
  });
