// Read-only reports over the log: delivery outcomes and replay of recorded turns under
// (changed) delivery rules. The same functions as `kioku report delivery` and `kioku replay`,
// so those commands work while this server holds the store. Always one namespace: the
// token's, or the one asked for without tokens.
import { wire, type ReplayInput } from '../../wire.js';
import type { ServerState } from '../state.js';
import { doc, plugin, queryAccess, ready, scopedBody, unvalidated } from './common.js';

export const replayBodySchema = wire.replay;

export const reportRoutes = (state: ServerState) =>
  plugin((app) => {
    app.get('/v1/reports/delivery', doc('delivery outcomes of the last N days (a lexical proxy of use)', undefined, ['reports']), async (req) => {
      const { namespace, access } = queryAccess(req, 'memory:read');
      const q = req.query as { days?: string };
      return ready(state).kioku.deliveryReport({ namespace, ...(q.days !== undefined ? { days: Number(q.days) } : {}) }, access);
    });

    app.post('/v1/replay', doc('re-run recorded turns through (changed) delivery rules; appends nothing', wire.replay, ['reports']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return ready(state).kioku.replay(unvalidated<ReplayInput>({ ...rest, namespace: ns }), context);
    });
  });
