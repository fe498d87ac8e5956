import { KiokuError } from '../../errors.js';
import { readableEventData } from '../../events/index.js';
import type { ServerState } from '../state.js';
import { callerAccess, namespaceFor, requireScope } from '../context.js';
import { seesService } from '../../access.js';
import { visibleTurn } from '../../recall/index.js';
import { bodyRoute } from '../edge.js';
import { doc, plugin, ready } from './common.js';

const STATUSES = new Set(['queued', 'running', 'succeeded', 'failed', 'cancelled']);

export const pipelineRoutes = (state: ServerState) =>
  plugin((app) => {
    const nsOf = (req: Parameters<typeof namespaceFor>[0]): string => namespaceFor(req, (req.query as { namespace?: string }).namespace);

    app.get('/v1/ingest/status', doc('what is indexed, what waits for vectors, the last embedding job', ['pipeline']), async (req) => {
      requireScope(req, 'memory:read');
      const { store, core } = ready(state);
      const status = core.indexer.status();
      // a namespaced token sees its namespace's counts only; the anonymous single user (or a
      // service:read token) sees the store
      const access = callerAccess(req);
      const ns = seesService(access) ? undefined : req.principal.namespace;
      // one plan for both counts (planning walks every item)
      const tasks = core.indexer.plan().tasks.filter((t) => ns === undefined || t.ns === ns);
      return {
        ...(ns ? { namespace: ns } : { head: store.log.head() }),
        items: store.projections.views.records.counts(ns),
        embedder: core.embedder?.id ?? null,
        waiting_for_vectors: tasks.filter((t) => t.lane === 'text').length,
        // every embedding still to compute (text and window lanes): 0 once the library is fully indexed
        // for a namespaced token "running" means working on its items: a job run for another namespace's writes is not its business
        indexing: { running: status.running && (ns === undefined || tasks.length > 0), pending: tasks.length, ...(ns ? {} : { last_job: status.last ?? null }) },
        ...(ns ? {} : { projections: store.projections.status() }),
      };
    });

    app.get('/v1/pipeline/snapshot', doc('job events of the last N days, by stage and status', ['pipeline']), async (req) => {
      requireScope(req, 'memory:read');
      const days = Number((req.query as { days?: string }).days ?? 7);
      if (!Number.isFinite(days) || days <= 0 || days > 3650)
        throw new KiokuError('KIOKU_INPUT_INVALID', 'days must be between 0 and 3650', { details: { field: 'days' } });
      return { days, ...ready(state).store.projections.views.jobs.summary(nsOf(req), days) };
    });

    app.get('/v1/pipeline/jobs', doc('jobs, newest first, filtered by stage and status', ['pipeline']), async (req) => {
      requireScope(req, 'memory:read');
      const q = req.query as { stage?: string; status?: string; limit?: string };
      const limit = q.limit === undefined ? 50 : Number(q.limit);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500)
        throw new KiokuError('KIOKU_INPUT_INVALID', 'limit must be 1–500', { details: { field: 'limit' } });
      if (q.status !== undefined && q.status !== '' && !STATUSES.has(q.status))
        throw new KiokuError('KIOKU_INPUT_INVALID', `status must be one of ${[...STATUSES].join(', ')}`, { details: { field: 'status' } });
      return {
        jobs: ready(state).store.projections.views.jobs.list({
          ns: nsOf(req),
          ...(q.stage ? { stage: q.stage } : {}),
          ...(q.status ? { status: q.status } : {}),
          limit,
        }),
      };
    });

    bodyRoute(
      app,
      { url: '/v1/pipeline/jobs/events', method: 'recordJobEvent', scope: 'memory:write', summary: 'record a job event (stored, never executed)', required: true, tags: ['pipeline'] },
      (input, caller) => ready(state).kioku.recordJobEvent(input, { ...caller, actor: 'http' }),
    );

    app.get<{ Params: { trace_id: string } }>(
      '/v1/artifacts/:trace_id',
      doc('everything recorded for one turn: start, recall, verdicts, delivery, completion', ['pipeline']),
      async (req) => {
        requireScope(req, 'memory:read');
        const { store } = ready(state);
        // another namespace's turn answers as a missing one (404 alike), never 403
        const turn = visibleTurn(store.projections.views.turns, req.params.trace_id, callerAccess(req));
        const events = [];
        for (const seq of turn.seqs) {
          const r = await store.log.get(seq);
          // recall and verdict events are stored in columns (issue 31): shown one object per candidate
          if (r) events.push({ seq: r.seq, ts: new Date(r.ts).toISOString(), type: r.type, hash: r.hash, data: readableEventData(r.type, r.data) });
        }
        return { trace_id: req.params.trace_id, session_id: turn.session_id, namespace: turn.ns, completed: turn.completed !== undefined, events };
      },
    );
  });
