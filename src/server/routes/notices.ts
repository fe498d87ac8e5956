// Notices between org members (issue 34): send a note, the caller's inbox (what it shows for the
// first time is marked arrived), sign one off, the caller's outbox. A write's `notify` goes with
// the write (POST /v1/memories). Each a call of the facade once the edge (edge.ts) has settled the
// caller and parsed the input.
import type { ServerState } from '../state.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { KiokuError } from '../../errors.js';
import { plugin, ready } from './common.js';

const tags = ['notices'] as const;

/** `?include_acked=1|true|0|false`, as a flag; anything else is refused by name. */
function flag(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new KiokuError('KIOKU_INPUT_INVALID', `inbox: ${field}: expected 1, 0, true or false`, { details: { field } });
}

export const noticeRoutes = (state: ServerState) =>
  plugin((app) => {
    bodyRoute(
      app,
      { url: '/v1/notices', method: 'notify', summary: 'send a note to org members (their inbox); refused without an org or for an unknown member', scope: 'memory:write', tags, required: true },
      (input, caller) => ready(state).kioku.notify(input, caller),
    );
    bodyRoute<'ack', { id: string }>(
      app,
      { url: '/v1/notices/:id/ack', method: 'ack', summary: 'sign off a notice of your inbox', scope: 'memory:write', tags },
      (input, caller, req) => ready(state).kioku.ack(req.params.id, input, caller),
    );
    queryRoute(app, { url: '/v1/inbox', summary: 'what waits for you (notes, assignments); include_acked=1 for everything received', scope: 'memory:read', tags }, async (caller, req) => {
      const includeAcked = flag(req.query['include_acked'], 'include_acked');
      return ready(state).kioku.inbox({ namespace: caller.namespace, ...(includeAcked !== undefined ? { include_acked: includeAcked } : {}) }, caller);
    });
    queryRoute(app, { url: '/v1/outbox', summary: 'what you sent, and per recipient whether it arrived and was signed off', scope: 'memory:read', tags }, async (caller) =>
      ready(state).kioku.outbox({ namespace: caller.namespace }, caller),
    );
  });
