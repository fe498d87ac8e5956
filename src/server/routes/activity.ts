// GET /v1/activity: the recent turns with what each delivered and held back, and the namespace's
// activity per day; GET /v1/evidence/{key}/usage: how one item has been used (src/api/activity.ts) —
// what the web page's overview, turns list and item page show.
import type { ServerState } from '../state.js';
import { queryRoute } from '../edge.js';
import { doc, plugin, ready } from './common.js';
import { keyCaller } from './knowledge.js';

/** A query value handed on as a number when present (the facade's schema names a bad one, NaN included). */
const numberOf = (field: string, v: unknown): Record<string, number> => (v === undefined ? {} : { [field]: Number(v) });

export const activityRoutes = (state: ServerState) =>
  plugin((app) => {
    queryRoute(
      app,
      {
        url: '/v1/activity',
        scope: 'memory:read',
        summary: 'recent turns (what each delivered, candidates held back by rule; ?limit=, ?before= the next_before), items by kind, per day turns, deliveries and items added (?days=)',
        tags: ['turns'],
      },
      async (caller, req) => {
        const q = req.query;
        return ready(state).kioku.activity({ namespace: caller.namespace, ...numberOf('days', q['days']), ...numberOf('limit', q['limit']), ...numberOf('before', q['before']) }, caller);
      },
    );

    app.get<{ Params: { key: string } }>(
      '/v1/evidence/:key/usage',
      doc("how an item has been used: recall's counters (considered, judged, relevant, returned), demoted, deliveries, look-ups, fetches", ['knowledge']),
      async (req) => ready(state).kioku.usage(req.params.key, keyCaller(req) ?? {}),
    );
  });
