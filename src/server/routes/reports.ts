// Read-only reports over the log: delivery outcomes and replay of recorded turns under
// (changed) delivery rules. The same functions as `kioku report delivery` and `kioku replay`,
// so those commands work while this server holds the store. Always one namespace: the
// token's, or the one asked for without tokens.
import type { ServerState } from '../state.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { plugin, ready } from './common.js';

export const reportRoutes = (state: ServerState) =>
  plugin((app) => {
    const read = { scope: 'memory:read', tags: ['reports'] } as const;
    queryRoute(app, { url: '/v1/reports/delivery', summary: 'delivery outcomes of the last N days (a lexical proxy of use)', ...read }, async (caller, req) => {
      const days = req.query['days'];
      return ready(state).kioku.deliveryReport({ namespace: caller.namespace, ...(days !== undefined ? { days: Number(days) } : {}) }, caller);
    });

    bodyRoute(app, { url: '/v1/replay', method: 'replay', summary: 're-run recorded turns through (changed) delivery rules; appends nothing', ...read }, (input, caller) =>
      ready(state).kioku.replay(input, caller),
    );

    bodyRoute(
      app,
      { url: '/v1/lifecycle/run', method: 'lifecycleRun', summary: 'the lifecycle job: strengths now, and the state transitions it appends (none with dry_run)', scope: 'memory:write', tags: ['reports'] },
      (input, caller) => ready(state).kioku.lifecycleRun(input, caller),
    );
  });
