import type { RecordEntry, RecordsProjection, UsageProjection } from '../../../projections/index.js';
import { KiokuError } from '../../errors.js';
import { z } from 'zod';
import { evidenceKey, parseEvidenceKey, type Layer } from '../../knowledge/evidence.js';
import { parseInput } from '../../knowledge/validate.js';
import { importDocuments } from '../../knowledge/importer.js';
import { isAbsolute } from 'node:path';
import type { ServerState } from '../app.js';
import { namespaceFor, requireScope, withoutNamespace } from '../context.js';
import { wire } from '../schemas.js';
import { doc, plugin, ready } from './common.js';

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

/** `wait_for_vectors`: true (up to 60 s) or a timeout in ms; the answer says how many still wait. */
const waitForVectorsSchema = z
  .union([z.boolean(), z.number().int().min(1).max(600_000)])
  .optional()
  .transform((v) => (v === true ? 60_000 : v === false ? undefined : v));

const importSchema = z.strictObject({
  kind: z.enum(['cards', 'wiki', 'notes']),
  root: z.string().min(1).max(4_096).refine(isAbsolute, 'root must be an absolute path'),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(4_096).refine(isAbsolute, 'path must be absolute'), markdown: z.string().max(2_000_000) }))
    .max(10_000),
  prune: z.boolean().default(false),
  seen_ids: z.array(z.string().max(4_096)).max(1_000_000).default([]),
  /** false for every batch but the last */
  final: z.boolean().default(true),
  namespace: z.string().optional(),
});

export const knowledgeRoutes = (state: ServerState) =>
  plugin((app) => {
    const records = (): RecordsProjection => ready(state).store.projections.get<RecordsProjection>('records');
    const nsOf = (req: Parameters<typeof namespaceFor>[0]): string => namespaceFor(req, (req.query as { namespace?: string }).namespace);

    app.post('/v1/memories', doc('write memories (batch); a client id makes the write idempotent', wire.memories, ['memories']), async (req) => {
      requireScope(req, 'memory:write');
      const { namespace, rest } = withoutNamespace(req.body);
      const { wait_for_vectors: waitFor, ...memories } = rest;
      const timeoutMs = parseInput(z.object({ wait_for_vectors: waitForVectorsSchema }), { wait_for_vectors: waitFor }, 'write memories').wait_for_vectors;
      const ns = namespaceFor(req, namespace);
      const result = await state.knowledge!.writeMemories({ ...memories, ns });
      const vectors =
        timeoutMs === undefined
          ? undefined
          : await ready(state).core.indexer.whenEmbedded(
              result.ids.map((id) => evidenceKey({ ns, layer: 'memory', id })),
              timeoutMs,
            );
      return { ids: result.ids, written: result.written, supersede_candidates: result.supersede_candidates, ...(vectors ? { vectors } : {}) };
    });

    // `kioku import` while the service holds the store: the CLI reads the files and sends them
    // in batches; the service never reads its own disk on a client's behalf
    app.post('/v1/import', doc('import markdown documents read by the client (kioku import)', importSchema, ['knowledge']), async (req) => {
      requireScope(req, 'memory:write');
      const { namespace, rest } = withoutNamespace(req.body);
      const p = parseInput(importSchema.omit({ namespace: true }), rest, 'import');
      const ns = namespaceFor(req, namespace);
      return importDocuments(state.knowledge!, records(), {
        kind: p.kind,
        root: p.root,
        ns,
        files: p.files,
        prune: p.prune,
        seenIds: p.seen_ids,
        final: p.final,
      });
    });

    app.post<{ Params: { id: string } }>(
      '/v1/memories/:id/forget',
      doc('forget a memory (tombstone; the log keeps it)', wire.forget, ['memories']),
      async (req) => {
        requireScope(req, 'memory:write');
        const { namespace, rest } = withoutNamespace(req.body ?? {});
        return state.knowledge!.forget({ ...rest, id: req.params.id, ns: namespaceFor(req, namespace) });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/v1/memories/:id/supersede',
      doc('mark older memories as superseded by this one', wire.supersede, ['memories']),
      async (req) => {
        requireScope(req, 'memory:write');
        const { namespace, rest } = withoutNamespace(req.body);
        return state.knowledge!.supersede({ ...rest, head_id: req.params.id, ns: namespaceFor(req, namespace) });
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
      if (!ref) throw new KiokuError('KIOKU_INPUT_INVALID', 'not an evidence key (ev1:<ns>:<layer>:<id>[#section])', { details: { field: 'key' } });
      namespaceFor(req, ref.ns);
      const e = records().get(req.params.key);
      if (!e) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${req.params.key}`);
      const chain = e.layer === 'memory' ? records().memoryChain(e.ns, e.id) : undefined;
      return { ...e, ...(chain ? { head_id: chain.head?.id ?? null, history: chain.history.map((h) => ({ id: h.id, status: h.status, seq: h.seq })) } : {}) };
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
      const min = q.min_considered === undefined ? 5 : Number(q.min_considered);
      if (!Number.isSafeInteger(min) || min < 1 || min > 1_000_000)
        throw new KiokuError('KIOKU_INPUT_INVALID', 'min_considered must be a positive integer', { details: { field: 'min_considered' } });
      const ns = nsOf(req);
      return {
        namespace: ns,
        min_considered: min,
        basis: 'usage counters: considered/judged/relevant/returned from recall.performed and verdict.recorded events',
        items: ready(state).store.projections.get<UsageProjection>('usage').cold(ns, min),
      };
    });
  });
