// Memory writes: a batch of memories, and what changes one (forget, supersede, audience). Each
// a call of the facade with the body parsed and the caller resolved at the edge (edge.ts).
import type { ServerState } from '../state.js';
import { bodyRoute } from '../edge.js';
import { memoryWriteAnswerSchema, purgeAnswerSchema } from '../../api/outputs.js';
import { plugin, ready } from './common.js';

type ById = { id: string };

export const memoryRoutes = (state: ServerState) =>
  plugin((app) => {
    const write = { scope: 'memory:write', tags: ['memories'] } as const;
    bodyRoute(
      app,
      { url: '/v1/memories', method: 'writeMemories', summary: 'write memories (batch); a client id makes the write idempotent', required: true, response: memoryWriteAnswerSchema, ...write },
      (input, caller) => ready(state).kioku.writeMemories(input, caller),
    );

    bodyRoute<'forget', ById>(app, { url: '/v1/memories/:id/forget', method: 'forget', summary: 'forget a memory (tombstone; the log keeps it)', ...write }, (input, caller, req) =>
      ready(state).kioku.forget(req.params.id, input, caller),
    );

    // crypto-shredding (issue 33): the caller's own namespace only (the namespace of the token)
    bodyRoute(
      app,
      { url: '/v1/purge', method: 'purge', summary: 'purge a memory, a session or the namespace: data keys deleted, text unrecoverable', required: true, response: purgeAnswerSchema, ...write },
      (input, caller) => ready(state).kioku.purge(input, caller),
    );

    bodyRoute<'supersede', ById>(
      app,
      { url: '/v1/memories/:id/supersede', method: 'supersede', summary: 'mark older memories as superseded by this one', required: true, ...write },
      (input, caller, req) => ready(state).kioku.supersede(req.params.id, input, caller),
    );

    bodyRoute<'setAudience', ById>(
      app,
      { url: '/v1/memories/:id/audience', method: 'setAudience', summary: 'set who may see a memory', required: true, ...write },
      (input, caller, req) => ready(state).kioku.setAudience(req.params.id, input, caller),
    );
  });
