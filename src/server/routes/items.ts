// Browsing and re-importing items: GET /v1/items (a page of a namespace in key order, filtered,
// with an opaque cursor) and POST /v1/import/items (a jsonl export's lines back in). Each a call
// of the facade once the caller's scope and namespace are settled; the core validates.
import { KiokuError } from '../../errors.js';
import { wire, type ImportItemsInput, type ListInput } from '../../wire.js';
import type { ServerState } from '../state.js';
import { doc, plugin, queryAccess, ready, scopedBody, unvalidated } from './common.js';

/** Query parameters as the list input: lists comma-separated or repeated, numbers and flags parsed; unknown ones passed on for the core to name. */
export function listInputOf(query: Record<string, unknown>, namespace: string): ListInput {
  const { namespace: _ns, layer, kind, tag, session, limit, include_retired, ...rest } = query;
  const many = (v: unknown): string[] | undefined =>
    v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
  const one = (field: string, v: unknown): unknown => {
    if (Array.isArray(v)) throw new KiokuError('KIOKU_INPUT_INVALID', `${field}: give it once`, { details: { field } });
    return v;
  };
  for (const [k, v] of Object.entries(rest)) rest[k] = one(k, v);
  const n = one('limit', limit);
  const retired = one('include_retired', include_retired);
  return unvalidated<ListInput>({
    ...rest,
    namespace,
    ...(layer !== undefined ? { layers: many(layer) } : {}),
    ...(kind !== undefined ? { kinds: many(kind) } : {}),
    ...(tag !== undefined ? { tags: many(tag) } : {}),
    ...(session !== undefined ? { session_id: one('session', session) } : {}),
    ...(n !== undefined ? { limit: /^\d+$/.test(String(n)) ? Number(n) : n } : {}),
    ...(retired !== undefined ? { include_retired: retired === '1' || retired === 'true' } : {}),
  });
}

const listQuery = {
  type: 'object',
  properties: {
    namespace: { type: 'string' },
    layer: { type: 'string', description: 'card, wiki, memory, note, trace, episode, asset (comma-separated or repeated)' },
    kind: { type: 'string', description: 'memory kinds (comma-separated or repeated)' },
    tag: { type: 'string', description: 'items carrying every tag named (case-insensitive; comma-separated or repeated)' },
    entity: { type: 'string' },
    session: { type: 'string', description: 'a session id' },
    since: { type: 'string', description: 'occurred at or after: ISO time or a phrase ("last week")' },
    until: { type: 'string', description: 'occurred at or before: ISO time or a phrase' },
    text: { type: 'string', description: 'a substring of the title or text, case-insensitive' },
    include_retired: { type: 'string', description: '1: superseded, forgotten and removed items too' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', description: "the answer's next_cursor, with the same filters" },
  },
};

export const itemRoutes = (state: ServerState) =>
  plugin((app) => {
    app.get(
      '/v1/items',
      {
        schema: {
          ...doc('browse a namespace: items in evidence-key order, filtered, a page at a time (next_cursor)', undefined, ['knowledge']).schema,
          querystring: listQuery,
        },
      },
      async (req) => {
        const { namespace, access } = queryAccess(req, 'memory:read');
        return ready(state).kioku.list(listInputOf(req.query as Record<string, unknown>, namespace), access);
      },
    );

    app.post('/v1/import/items', doc('write the lines of a jsonl export (kioku import jsonl): documents whole, memories; same keys', wire.importItems, ['knowledge']), async (req) => {
      const { ns, rest, context } = scopedBody(req, 'memory:write', 'required');
      return ready(state).kioku.importItems(unvalidated<ImportItemsInput>({ ...rest, namespace: ns }), context);
    });
  });
