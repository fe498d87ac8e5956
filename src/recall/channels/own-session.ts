// A session's own traces in the range the agent can still see never come back in its recall
// (seed 000). They are left out inside each lane's query, not after it: removed afterwards, a
// session that kept talking about one subject filled every lane's budget with its own turns
// and pushed the other candidates out before fusion saw them.
import type { RecordsProjection } from '../../../projections/records/index.js';
import type { ParsedRecallRequest } from '../request.js';

/** The evidence keys of this session's traces since `context_since` (the whole session without one), in namespace `ns`. */
export function ownVisibleTraces(
  records: RecordsProjection,
  ns: string,
  request: Pick<ParsedRecallRequest, 'session_id' | 'context_since'>,
): ReadonlySet<string> {
  if (!request.session_id) return EMPTY;
  const since = request.context_since ? Date.parse(request.context_since) : -Infinity;
  const keys = new Set<string>();
  for (const e of records.bySessionId(request.session_id, { ns, layers: ['trace'] })) if (Date.parse(e.occurred_at) >= since) keys.add(e.key);
  return keys;
}

const EMPTY: ReadonlySet<string> = new Set();
