// The pipeline: what is indexed, job events by stage and status, everything recorded for one turn,
// and recording a job event. Each one call of the facade (src/api/pipeline.ts answers them).
import { KiokuError } from '../../errors.js';
import type { ServerState } from '../state.js';
import { callerAccess, requireScope } from '../context.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { doc, plugin, ready } from './common.js';

/** A query value handed on as a number when present (the facade names a bad one). */
const numberOf = (field: string, v: unknown): Record<string, number> => (v === undefined ? {} : { [field]: Number(v) });
/** A query value handed on as a string when present and not empty; a repeated one is refused, never dropped (a dropped filter would answer every job). */
const textOf = (field: string, v: unknown): Record<string, string> => {
  if (Array.isArray(v)) throw new KiokuError('KIOKU_INPUT_INVALID', `${field}: give it once`, { details: { field } });
  return typeof v === 'string' && v !== '' ? { [field]: v } : {};
};

export const pipelineRoutes = (state: ServerState) =>
  plugin((app) => {
    const read = { scope: 'memory:read', tags: ['pipeline'] } as const;
    // a namespaced token sees its namespace's counts only; the anonymous single user (or a service:read token) the store
    app.get('/v1/ingest/status', doc('what is indexed, what waits for vectors, the last embedding job', read.tags), async (req) => {
      requireScope(req, 'memory:read');
      return ready(state).kioku.ingestStatus(callerAccess(req));
    });

    queryRoute(app, { url: '/v1/pipeline/snapshot', summary: 'job events of the last N days, by stage and status', ...read }, async (caller, req) =>
      ready(state).kioku.pipelineSnapshot({ namespace: caller.namespace, ...numberOf('days', req.query['days']) }, caller),
    );

    queryRoute(app, { url: '/v1/pipeline/jobs', summary: 'jobs, newest first, filtered by stage and status', ...read }, async (caller, req) => {
      const q = req.query;
      return ready(state).kioku.pipelineJobs({ namespace: caller.namespace, ...textOf('stage', q['stage']), ...textOf('status', q['status']), ...numberOf('limit', q['limit']) }, caller);
    });

    bodyRoute(
      app,
      { url: '/v1/pipeline/jobs/events', method: 'recordJobEvent', scope: 'memory:write', summary: 'record a job event (stored, never executed)', required: true, tags: read.tags },
      (input, caller) => ready(state).kioku.recordJobEvent(input, { ...caller, actor: 'http' }),
    );

    // another namespace's turn answers as a missing one (404 alike), never 403
    app.get<{ Params: { trace_id: string } }>(
      '/v1/artifacts/:trace_id',
      doc('everything recorded for one turn: start, recall, verdicts, delivery, completion', read.tags),
      async (req) => {
        requireScope(req, 'memory:read');
        return ready(state).kioku.artifacts(req.params.trace_id, callerAccess(req));
      },
    );
  });
