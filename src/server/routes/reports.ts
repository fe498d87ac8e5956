// Read-only reports over the log: delivery outcomes and replay of recorded turns under
// (changed) delivery rules. The same functions as `kioku report delivery` and `kioku replay`,
// so those commands work while this server holds the store. Always one namespace: the
// token's, or the one asked for without tokens.
import { z } from 'zod';
import { KiokuError } from '../../errors.js';
import { deliveryReport, replay, rulesWith } from '../../recall/index.js';
import type { ServerState } from '../state.js';
import { namespaceFor, requireScope } from '../context.js';
import { doc, plugin, ready, scopedBody } from './common.js';

const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 date or time');
export const replayBodySchema = z.strictObject({
  namespace: z.string().optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  /** also re-run retrieval against today's projections (recorded verdicts reused, new candidates unjudged) */
  retrieve: z.boolean().optional(),
  rules: z
    .strictObject({
      floor: z.number().min(0).max(1).optional(),
      history_floor: z.number().min(0).max(1).optional(),
      max_items: z.number().int().min(0).max(3).optional(),
      max_history: z.number().int().min(0).max(3).optional(),
      hold_partial_matches: z.boolean().optional(),
    })
    .optional(),
});

export const reportRoutes = (state: ServerState) =>
  plugin((app) => {
    app.get('/v1/reports/delivery', doc('delivery outcomes of the last N days (a lexical proxy of use)', undefined, ['reports']), async (req) => {
      requireScope(req, 'memory:read');
      const q = req.query as { days?: string; namespace?: string };
      const days = q.days === undefined ? 7 : Number(q.days);
      if (!Number.isFinite(days) || days <= 0 || days > 3650)
        throw new KiokuError('KIOKU_INPUT_INVALID', 'days must be a number above 0 and at most 3650', { details: { field: 'days' } });
      return deliveryReport(ready(state).store.log, { days, ns: namespaceFor(req, q.namespace) });
    });

    app.post('/v1/replay', doc('re-run recorded turns through (changed) delivery rules; appends nothing', replayBodySchema, ['reports']), async (req) => {
      const { ns } = scopedBody(req, 'memory:read');
      const parsed = replayBodySchema.safeParse(req.body);
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        throw new KiokuError('KIOKU_INPUT_INVALID', `replay: ${i?.path.join('.') || '(body)'}: ${i?.message}`, {
          details: { field: i?.path.join('.') ?? '(body)' },
        });
      }
      const body = parsed.data;
      const from = new Date(body.from ?? 0);
      const to = body.to ? new Date(body.to) : new Date(Date.now() + 60_000);
      if (from.getTime() > to.getTime()) throw new KiokuError('KIOKU_INPUT_INVALID', 'from is after to', { details: { field: 'from' } });
      const { store, core } = ready(state);
      return replay(store, body.retrieve ? core : undefined, { from, to, ns, rules: rulesWith(body.rules), ...(body.retrieve ? { retrieve: true } : {}) });
    });
  });
