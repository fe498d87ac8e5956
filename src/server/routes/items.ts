// Browsing and re-importing items: GET /v1/items (a page of a namespace in key order, filtered,
// with an opaque cursor) and POST /v1/import/items (a jsonl export's lines back in). Each a call
// of the facade once the edge (edge.ts) has settled the caller and parsed the input.
import { z } from 'zod';
import { KiokuError } from '../../errors.js';
import { wire, type ListInput } from '../../wire.js';
import type { ServerState } from '../state.js';
import { bodyRoute, parsedQuery, queryRoute } from '../edge.js';
import { plugin, ready } from './common.js';

/** Query parameters named otherwise than the list input's fields (the rest keep their names). */
export const LIST_QUERY_FIELDS = { layer: 'layers', kind: 'kinds', tag: 'tags', session: 'session_id' } as const;

/** GET /v1/items's query parameters, as documented (OpenAPI); the list input's schema parses them once turned into it. */
export const listQuerySchema = z.strictObject({
  namespace: wire.list.shape.namespace,
  layer: z.string().optional().describe('card, wiki, memory, note, trace, episode, asset (comma-separated or repeated)'),
  kind: z.string().optional().describe('memory kinds (comma-separated or repeated)'),
  tag: z.string().optional().describe('items carrying every tag named (case-insensitive; comma-separated or repeated)'),
  entity: z.string().optional(),
  session: z.string().optional().describe('a session id'),
  since: z.string().optional().describe('occurred at or after: ISO time or a phrase ("last week")'),
  until: z.string().optional().describe('occurred at or before: ISO time or a phrase'),
  text: z.string().optional().describe('a substring of the title or text, case-insensitive'),
  include_retired: z.string().optional().describe('1: superseded, forgotten and removed items too'),
  limit: z.number().int().min(1).max(500).default(50),
  cursor: z.string().optional().describe("the answer's next_cursor, with the same filters"),
});

/** Query parameters as the list input: lists comma-separated or repeated, numbers and flags parsed; unknown ones passed on for the schema to name. */
export function listInputOf(query: Record<string, unknown>): ListInput {
  const { layer, kind, tag, session, limit, include_retired, ...rest } = query;
  const many = (v: unknown): string[] | undefined =>
    v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
  const one = (field: string, v: unknown): unknown => {
    if (Array.isArray(v)) throw new KiokuError('KIOKU_INPUT_INVALID', `${field}: give it once`, { details: { field } });
    return v;
  };
  for (const [k, v] of Object.entries(rest)) rest[k] = one(k, v);
  const n = one('limit', limit);
  const retired = one('include_retired', include_retired);
  // handed to the list schema's parse (the validator), which names any field it refuses
  return {
    ...rest,
    ...(layer !== undefined ? { layers: many(layer) } : {}),
    ...(kind !== undefined ? { kinds: many(kind) } : {}),
    ...(tag !== undefined ? { tags: many(tag) } : {}),
    ...(session !== undefined ? { session_id: one('session', session) } : {}),
    ...(n !== undefined ? { limit: /^\d+$/.test(String(n)) ? Number(n) : n } : {}),
    ...(retired !== undefined ? { include_retired: retired === '1' || retired === 'true' } : {}),
  } as ListInput;
}

export const itemRoutes = (state: ServerState) =>
  plugin((app) => {
    queryRoute(
      app,
      {
        url: '/v1/items',
        scope: 'memory:read',
        summary: 'browse a namespace: items in evidence-key order, filtered, a page at a time (next_cursor)',
        tags: ['knowledge'],
        query: { method: 'list', schema: listQuerySchema, toInput: listInputOf },
      },
      async (caller, req) => ready(state).kioku.list(parsedQuery(req, 'list'), caller),
    );

    bodyRoute(
      app,
      {
        url: '/v1/import/items',
        method: 'importItems',
        scope: 'memory:write',
        summary: 'write the lines of a jsonl export (kioku import jsonl): documents whole, memories; same keys',
        required: true,
        tags: ['knowledge'],
      },
      (input, caller) => ready(state).kioku.importItems(input, caller),
    );
  });
