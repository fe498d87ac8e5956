import type { RecordEntry, RecordsProjection } from '../../../projections/index.js';
import { KiokuError } from '../../errors.js';
import { z } from 'zod';
import { evidenceKey, parseEvidenceKey, type Layer } from '../../knowledge/evidence.js';
import { parseInput } from '../../knowledge/validate.js';
import { importDocuments } from '../../knowledge/importer.js';
import { isAbsolute } from 'node:path';
import type { ServerState } from '../state.js';
import { namespaceFor, requireScope, withoutNamespace } from '../context.js';
import { wire } from '../schemas.js';
import type { ImportInput, SupersedeInput, WriteMemoriesInput } from '../../wire.js';
import { doc, plugin, ready, scopedBody, unvalidated } from './common.js';

const section = (e: RecordEntry) => ({
  evidence_key: e.key,
  section: e.section ?? null,
  heading: e.heading ?? null,
  text: e.text,
  status: e.status,
  ...(e.meta ? { meta: true } : {}),
  ...(e.fingerprint ? { fingerprint: e.fingerprint } : {}),
});

function documentOf(records: RecordsProjection, ns: string, layer: Layer, id: string) {
  const sections = records.document(ns, layer, id).filter((e) => e.status === 'active');
  if (sections.length === 0) throw new KiokuError('KIOKU_NOT_FOUND', `no ${layer} "${id}" in namespace ${ns}`, { details: { id } });
  const first = sections[0] as RecordEntry;
  return { id, layer, namespace: ns, title: first.title, tags: first.tags, source_path: first.source_path ?? null, sections: sections.map(section) };
}

export const knowledgeRoutes = (state: ServerState) =>
  plugin((app) => {
    const records = (): RecordsProjection => ready(state).store.projections.views.records;
    const nsOf = (req: Parameters<typeof namespaceFor>[0]): string => namespaceFor(req, (req.query as { namespace?: string }).namespace);

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
      requireScope(req, 'memory:write');
      const { namespace, rest } = withoutNamespace(req.body);
      return state.knowledge!.setAudience({ ...rest, id: req.params.id, ns: namespaceFor(req, namespace) });
    });

    app.get<{ Params: { key: string } }>('/v1/evidence/:key', doc('one item by evidence key', undefined, ['knowledge']), async (req) => {
      requireScope(req, 'memory:read');
      const ref = parseEvidenceKey(req.params.key);
      // the token's namespace must be the key's (404 would leak that it exists elsewhere)
      const ns = ref ? namespaceFor(req, ref.ns) : undefined;
      return ready(state).kioku.evidence(req.params.key, ns ? { namespaces: [ns] } : {});
    });

    app.get<{ Params: { id: string } }>('/v1/cards/:id', doc('a card and its sections', undefined, ['knowledge']), async (req) => {
      requireScope(req, 'memory:read');
      return documentOf(records(), nsOf(req), 'card', req.params.id);
    });

    app.get<{ Params: { id: string } }>(
      '/v1/cards/:id/relations',
      doc('the card ids a card relates to, and the cards relating to it', undefined, ['knowledge']),
      async (req) => {
        requireScope(req, 'memory:read');
        const ns = nsOf(req);
        const card = documentOf(records(), ns, 'card', req.params.id);
        const first = records()
          .document(ns, 'card', req.params.id)
          .find((e) => e.status === 'active');
        const incoming = new Set<string>();
        for (const e of records().all({ layers: ['card'] })) if (e.ns === ns && e.relations?.includes(req.params.id)) incoming.add(e.id);
        return {
          id: card.id,
          relations: (first?.relations ?? []).map((id) => ({
            id,
            exists: records()
              .document(ns, 'card', id)
              .some((x) => x.status === 'active'),
          })),
          related_from: [...incoming].sort(),
        };
      },
    );

    app.get<{ Params: { id: string } }>('/v1/wiki/topics/:id', doc('a wiki topic and its sections', undefined, ['knowledge']), async (req) => {
      requireScope(req, 'memory:read');
      return documentOf(records(), nsOf(req), 'wiki', req.params.id);
    });

    app.get<{ Params: { id: string } }>(
      '/v1/sources/:id',
      doc('a source document by id, whatever its layer (card, wiki topic, daily note)', undefined, ['knowledge']),
      async (req) => {
        requireScope(req, 'memory:read');
        const ns = nsOf(req);
        for (const layer of ['card', 'wiki', 'note', 'memory', 'asset', 'episode', 'trace'] as const) {
          if (
            records()
              .document(ns, layer, req.params.id)
              .some((e) => e.status === 'active')
          )
            return documentOf(records(), ns, layer, req.params.id);
        }
        throw new KiokuError('KIOKU_NOT_FOUND', `no source "${req.params.id}" in namespace ${ns}`);
      },
    );

    app.get('/v1/knowledge/cold', doc('evidence considered at least min_considered times and never judged relevant', undefined, ['knowledge']), async (req) => {
      requireScope(req, 'memory:read');
      const q = req.query as { min_considered?: string };
      const ns = nsOf(req);
      return ready(state).kioku.cold(
        { namespace: ns, ...(q.min_considered !== undefined ? { min_considered: Number(q.min_considered) } : {}) },
        { namespaces: [ns] },
      );
    });
  });
