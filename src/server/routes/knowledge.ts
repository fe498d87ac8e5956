// Knowledge routes: importing documents, lookups (an evidence key, a card, a wiki topic, a source),
// items by what they are, and what the library holds. Each a call of the facade once the edge
// (edge.ts) has settled the caller and parsed the input.
import type { FastifyRequest } from 'fastify';
import { checkScope, resolveCaller, type Caller } from '../../api/index.js';
import { parseEvidenceKey } from '../../knowledge/evidence.js';
import type { ServerState } from '../state.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { doc, plugin, ready } from './common.js';

/**
 * A lookup by evidence key acts in the key's own namespace: the token's must be it (a 404 would
 * leak that it exists elsewhere). A memory's bare id (the seed's get_memory takes one) is looked up
 * in the caller's own namespace; a string that starts like a key but is none resolves nothing (the facade names it).
 */
export function keyCaller(req: FastifyRequest): Caller | undefined {
  checkScope(req.principal, 'memory:read');
  const key = (req.params as { key: string }).key;
  const ref = parseEvidenceKey(key);
  if (!ref && !key.startsWith('ev1:')) return resolveCaller(req.principal, undefined, 'memory:read');
  return ref ? resolveCaller(req.principal, ref.ns, 'memory:read') : undefined;
}

const read = { scope: 'memory:read', tags: ['knowledge'] } as const;

export const knowledgeRoutes = (state: ServerState) =>
  plugin((app) => {
    bodyRoute(
      app,
      { url: '/v1/import', method: 'importDocuments', scope: 'memory:write', summary: 'import markdown documents read by the client (kioku import)', required: true, tags: read.tags },
      (input, caller) => ready(state).kioku.importDocuments(input, caller),
    );
    bodyRoute(app, { url: '/v1/items/query', method: 'items', summary: 'items by kinds, tags, entity, time range or session, newest first', ...read }, (input, caller) =>
      ready(state).kioku.items(input, caller),
    );
    evidenceRoutes(state)(app);
    documentRoutes(state)(app);
    queryRoute(app, { url: '/v1/stats', summary: 'what the library holds: items by layer, the log head', ...read }, async (caller) =>
      ready(state).kioku.stats({ namespace: caller.namespace }, caller),
    );
    queryRoute(app, { url: '/v1/knowledge/cold', summary: 'evidence considered at least min_considered times and never judged relevant', ...read }, async (caller, req) => {
      const min = req.query['min_considered'];
      return ready(state).kioku.cold({ namespace: caller.namespace, ...(min !== undefined ? { min_considered: Number(min) } : {}) }, caller);
    });
  });

/** One item by evidence key, and what it is connected to. */
const evidenceRoutes = (state: ServerState) => (app: Parameters<Parameters<typeof plugin>[0]>[0]) => {
  app.get<{ Params: { key: string } }>('/v1/evidence/:key', doc('one item by evidence key', read.tags), async (req) =>
    ready(state).kioku.evidence(req.params.key, keyCaller(req) ?? {}),
  );
  app.get<{ Params: { key: string }; Querystring: { limit?: string } }>(
    '/v1/evidence/:key/related',
    doc('what an item is connected to: supersede edges, card references, session neighbours, shared entities', read.tags),
    async (req) => {
      const caller = keyCaller(req) ?? {};
      const limit = req.query.limit;
      return ready(state).kioku.related(req.params.key, limit !== undefined ? { limit: Number(limit) } : {}, caller);
    },
  );
};

/** Cards, wiki topics and source documents by id, in the caller's namespace. */
const documentRoutes = (state: ServerState) => (app: Parameters<Parameters<typeof plugin>[0]>[0]) => {
  type ById = { id: string };
  queryRoute<ById>(app, { url: '/v1/cards/:id', summary: 'a card and its sections', ...read }, async (caller, req) =>
    ready(state).kioku.document('card', req.params.id, { namespace: caller.namespace }, caller),
  );
  queryRoute<ById>(app, { url: '/v1/cards/:id/relations', summary: 'the card ids a card relates to, and the cards relating to it', ...read }, async (caller, req) =>
    ready(state).kioku.relations(req.params.id, { namespace: caller.namespace }, caller),
  );
  queryRoute<ById>(app, { url: '/v1/wiki/topics/:id', summary: 'a wiki topic and its sections', ...read }, async (caller, req) =>
    ready(state).kioku.document('wiki', req.params.id, { namespace: caller.namespace }, caller),
  );
  queryRoute<ById>(app, { url: '/v1/sources/:id', summary: 'a source document by id, whatever its layer (card, wiki topic, daily note)', ...read }, async (caller, req) =>
    ready(state).kioku.source(req.params.id, { namespace: caller.namespace }, caller),
  );
};
