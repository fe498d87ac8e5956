// Knowledge routes: writes, lookups and reports, each a call of the facade (src/kioku.ts)
// once the caller's scope and namespace are settled.
import { KiokuError } from '../../errors.js';
import { parseEvidenceKey } from '../../knowledge/evidence.js';
import type { ServerState } from '../state.js';
import { namespaceFor, requireScope } from '../context.js';
import { wire } from '../schemas.js';
import type { AssetInput, AudienceInput, EpisodeInput, ImportInput, ItemsInput, SupersedeInput, WriteMemoriesInput } from '../../wire.js';
import { doc, plugin, queryAccess, ready, scopedBody, unvalidated } from './common.js';

export const knowledgeRoutes = (state: ServerState) =>
  plugin((app) => {
    // the core validates every body and names the failing field; routes only resolve who asks
    app.post('/v1/memories', doc('write memories (batch); a client id makes the write idempotent', wire.memories, ['memories']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.writeMemories(unvalidated<WriteMemoriesInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/import', doc('import markdown documents read by the client (kioku import)', wire.import, ['knowledge']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.importDocuments(unvalidated<ImportInput>({ ...rest, namespace: ns }), context);
    });

    app.post<{ Params: { id: string } }>(
      '/v1/memories/:id/forget',
      doc('forget a memory (tombstone; the log keeps it)', wire.forget, ['memories']),
      async (req) => {
        const { ns, rest, context } = scopedBody(req, 'memory:write');
        return ready(state).kioku.forget(req.params.id, { ...rest, namespace: ns }, context);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/v1/memories/:id/supersede',
      doc('mark older memories as superseded by this one', wire.supersede, ['memories']),
      async (req) => {
        const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
        return ready(state).kioku.supersede(req.params.id, unvalidated<SupersedeInput>({ ...rest, namespace: ns }), context);
      },
    );

    app.post<{ Params: { id: string } }>('/v1/memories/:id/audience', doc('set who may see a memory', wire.audience, ['memories']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.setAudience(req.params.id, unvalidated<AudienceInput>({ ...rest, namespace: ns }), context);
    });

    app.get<{ Params: { key: string } }>('/v1/evidence/:key', doc('one item by evidence key', undefined, ['knowledge']), async (req) => {
      requireScope(req, 'memory:read');
      const ref = parseEvidenceKey(req.params.key);
      // the token's namespace must be the key's (404 would leak that it exists elsewhere)
      const ns = ref ? namespaceFor(req, ref.ns) : undefined;
      return ready(state).kioku.evidence(req.params.key, ns ? { namespaces: [ns] } : {});
    });

    app.get<{ Params: { key: string } }>(
      '/v1/evidence/:key/related',
      doc('what an item is connected to: supersede edges, card references, session neighbours, shared entities', undefined, ['knowledge']),
      async (req) => {
        requireScope(req, 'memory:read');
        const ref = parseEvidenceKey(req.params.key);
        const ns = ref ? namespaceFor(req, ref.ns) : undefined;
        const limit = (req.query as { limit?: string }).limit;
        return ready(state).kioku.related(req.params.key, limit !== undefined ? { limit: Number(limit) } : {}, ns ? { namespaces: [ns] } : {});
      },
    );

    app.get<{ Params: { id: string } }>('/v1/cards/:id', doc('a card and its sections', undefined, ['knowledge']), async (req) => {
      const { namespace, access } = queryAccess(req, 'memory:read');
      return ready(state).kioku.document('card', req.params.id, { namespace }, access);
    });

    app.get<{ Params: { id: string } }>(
      '/v1/cards/:id/relations',
      doc('the card ids a card relates to, and the cards relating to it', undefined, ['knowledge']),
      async (req) => {
        const { namespace, access } = queryAccess(req, 'memory:read');
        return ready(state).kioku.relations(req.params.id, { namespace }, access);
      },
    );

    app.get<{ Params: { id: string } }>('/v1/wiki/topics/:id', doc('a wiki topic and its sections', undefined, ['knowledge']), async (req) => {
      const { namespace, access } = queryAccess(req, 'memory:read');
      return ready(state).kioku.document('wiki', req.params.id, { namespace }, access);
    });

    app.get<{ Params: { id: string } }>(
      '/v1/sources/:id',
      doc('a source document by id, whatever its layer (card, wiki topic, daily note)', undefined, ['knowledge']),
      async (req) => {
        const { namespace, access } = queryAccess(req, 'memory:read');
        return ready(state).kioku.source(req.params.id, { namespace }, access);
      },
    );

    app.post('/v1/items/query', doc('items by kinds, tags, entity, time range or session, newest first', wire.items, ['knowledge']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:read');
      return ready(state).kioku.items(unvalidated<ItemsInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/episodes', doc('keep a dialogue verbatim (cold: recalled only on request)', wire.episode, ['knowledge']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.logEpisode(unvalidated<EpisodeInput>({ ...rest, namespace: ns }), context);
    });

    app.post('/v1/assets', doc("register a file by path (only under the namespace's asset root, KIOKU_ASSET_ROOTS) or by uploaded content; its description is its search text", wire.asset, ['knowledge']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.registerAsset(unvalidated<AssetInput>({ ...rest, namespace: ns }), context);
    });

    app.get<{ Params: { id: string } }>(
      '/v1/assets/:id',
      doc("an asset's claim ticket and status; ?include_content=1 inlines it (read under the same asset policy as registration)", undefined, ['knowledge']),
      async (req) => {
        const { namespace, access } = queryAccess(req, 'memory:read');
        const q = req.query as { include_content?: string; max_bytes?: string };
        const maxBytes = q.max_bytes === undefined ? undefined : Number(q.max_bytes);
        if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 1))
          throw new KiokuError('KIOKU_INPUT_INVALID', 'max_bytes must be a positive integer', { details: { field: 'max_bytes' } });
        return ready(state).kioku.asset(
          req.params.id,
          { namespace, include_content: q.include_content === '1' || q.include_content === 'true', ...(maxBytes ? { max_bytes: maxBytes } : {}) },
          access,
        );
      },
    );

    app.get('/v1/stats', doc('what the library holds: items by layer, the log head', undefined, ['knowledge']), async (req) => {
      const { namespace, access } = queryAccess(req, 'memory:read');
      return ready(state).kioku.stats({ namespace }, access);
    });

    app.get('/v1/knowledge/cold', doc('evidence considered at least min_considered times and never judged relevant', undefined, ['knowledge']), async (req) => {
      const { namespace, access } = queryAccess(req, 'memory:read');
      const q = req.query as { min_considered?: string };
      return ready(state).kioku.cold({ namespace, ...(q.min_considered !== undefined ? { min_considered: Number(q.min_considered) } : {}) }, access);
    });
  });
