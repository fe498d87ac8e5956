// The library as a whole while the service owns it (issue 31): verify, log stats, one record,
// the stored frames (kioku log export, kioku backup) and a backup point. The whole log holds
// every namespace's events, so each needs the service:read scope (the anonymous local user has
// it); the routes that hand out content (a record, the frames, a backup point) need log:read too;
// signing an anchor writes beside the log and needs memory:write too.
import type { FastifyRequest } from 'fastify';
import { KiokuError } from '../../errors.js';
import { callerAccess, requireScope } from '../context.js';
import type { ServerState } from '../state.js';
import { described } from '../edge.js';
import { doc, plugin, ready } from './common.js';
import { z } from 'zod';

const verifyBody = z.strictObject({ write_anchor: z.boolean().optional() });

function operator(req: FastifyRequest) {
  requireScope(req, 'service:read');
  return callerAccess(req);
}

/** Routes that hand out log content (every namespace's text): log:read beside service:read. */
function contentReader(req: FastifyRequest) {
  requireScope(req, 'log:read');
  return operator(req);
}

/** A query parameter as a positive integer, or undefined when absent. */
function integer(req: FastifyRequest, field: string): number | undefined {
  const v = (req.query as Record<string, unknown>)[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,15}$/.test(v) || Number(v) < 1)
    throw new KiokuError('KIOKU_INPUT_INVALID', `${field} must be a positive integer`, { details: { field } });
  return Number(v);
}

export const operationRoutes = (state: ServerState) =>
  plugin((app) => {
    app.post(
      '/v1/log/verify',
      {
        schema: { ...described('verify the hash chain up to the head now, and the signed anchors (service:read); write_anchor signs that head', ['operations']), body: verifyBody },
        preValidation: async (req) => {
          operator(req); // before the body is read
          req.body ??= {};
        },
        // fastify's validator, with the verify answer's own wording
        validatorCompiler: () => (data) => {
          const body = verifyBody.safeParse(data);
          if (body.success) return { value: body.data };
          const issue = body.error.issues[0];
          return { error: new KiokuError('KIOKU_INPUT_INVALID', `verify: ${issue?.message}`, { details: { field: String(issue?.path[0] ?? '(body)') } }) };
        },
      },
      async (req) => {
        const body = req.body as z.output<typeof verifyBody>;
        if (body.write_anchor) requireScope(req, 'memory:write');
        return ready(state).kioku.verifyLog(body, operator(req));
      },
    );

    app.get('/v1/log/stats', doc('event counts and stored bytes per type and namespace, and the head they stand at (service:read)', ['operations']), async (req) =>
      ready(state).kioku.logStats(operator(req)),
    );

    app.get<{ Params: { seq: string } }>('/v1/log/records/:seq', doc('one log record, decoded (service:read and log:read)', ['operations']), async (req) => {
      const access = contentReader(req);
      const seq = /^\d{1,15}$/.test(req.params.seq) ? Number(req.params.seq) : Number.NaN;
      return ready(state).kioku.logRecord(seq, access);
    });

    app.get(
      '/v1/log/frames',
      doc('stored frames from ?from=, byte for byte (base64), at most ?limit= (5,000), up to ?to= or the head (service:read and log:read): kioku log export and backup', ['operations']),
      async (req) => {
        const access = contentReader(req);
        const to = integer(req, 'to');
        const limit = integer(req, 'limit');
        return ready(state).kioku.logFrames({ from: integer(req, 'from') ?? 1, ...(to ? { to } : {}), ...(limit ? { limit } : {}) }, access);
      },
    );

    app.get(
      '/v1/log/backup-point',
      doc('a head every projection stands at, with their digests there (service:read and log:read): what a restored backup must reproduce', ['operations']),
      async (req) => ready(state).kioku.backupPoint(contentReader(req)),
    );
  });
