// Browsing a namespace's items (GET /v1/items, kioku list, MCP list_memories): a stable order
// (evidence key), filters, and an opaque cursor, over a library of any size. A page costs a
// binary search and a walk of at most SCAN_MAX keys, never a sort of the library: the keys of
// each namespace are kept sorted here, and keys added since the last page are merged in.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { KiokuError } from '../../src/errors.js';
import { LAYERS, namespaceSchema } from '../../src/events/index.js';
import type { Layer } from '../../src/knowledge/evidence.js';
import { carriesTags } from '../../src/knowledge/item.js';
import { lowerNfkc } from '../../src/text/script.js';
import type { RecordEntry, RecordsProjection } from './index.js';

/** Keys one page walks at most: with a filter few items pass, a page may come back short, with a cursor to go on from. */
export const SCAN_MAX = 20_000;

/** A browse request as a client sends it (GET /v1/items, kioku list, MCP list_memories); the facade resolves its times. */
export const listRequestSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  layers: z.array(z.enum(LAYERS)).min(1).max(7).optional(),
  kinds: z.array(z.string().min(1).max(50)).min(1).max(20).optional(),
  /** items carrying every one of these tags (case-insensitive) */
  tags: z.array(z.string().min(1).max(200)).max(20).optional(),
  entity: z.string().trim().min(1).max(200).optional(),
  session_id: z.string().min(1).max(512).optional(),
  /** occurred at or after: an ISO time, or a phrase ("last week") */
  since: z.string().min(1).max(200).optional(),
  /** occurred at or before: an ISO time, or a phrase */
  until: z.string().min(1).max(200).optional(),
  /** a substring of the title or the text, case-insensitive */
  text: z.string().min(1).max(500).optional(),
  include_retired: z.boolean().default(false),
  limit: z.number().int().min(1).max(500).default(50),
  /** the next_cursor of the page before (with the same filters) */
  cursor: z.string().min(1).max(4_096).optional(),
});

export interface ListQuery {
  namespace: string;
  layers?: readonly Layer[] | undefined;
  kinds?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
  entity?: string | undefined;
  session_id?: string | undefined;
  /** occurred_at bounds in ms (inclusive), resolved by the caller */
  since?: number | undefined;
  until?: number | undefined;
  /** the bounds as asked ("last week"): what a cursor is bound to, since a phrase resolves against a clock that moves between pages */
  since_text?: string | undefined;
  until_text?: string | undefined;
  /** a substring of the title or text, case-insensitive */
  text?: string | undefined;
  include_retired: boolean;
  limit: number;
  cursor?: string | undefined;
}

export interface ListAnswer {
  namespace: string;
  items: RecordEntry[];
  /** pass it back as `cursor` for the next page; null: nothing is left */
  next_cursor: string | null;
  /** keys looked at for this page (at most SCAN_MAX) */
  scanned: number;
}

/** Per namespace, its keys sorted; keys added to the projection since are merged in on the next page. */
class KeyIndex {
  private epoch = -1;
  private seen = 0;
  private readonly sorted = new Map<string, string[]>();

  keys(records: RecordsProjection, ns: string): readonly string[] {
    if (records.epoch !== this.epoch) {
      this.epoch = records.epoch;
      this.seen = 0;
      this.sorted.clear();
    }
    const size = records.size;
    if (size > this.seen) {
      const added = new Map<string, string[]>();
      for (const key of records.keysFrom(this.seen)) {
        const space = key.slice(4, key.indexOf(':', 4)); // ev1:<ns>:…
        let list = added.get(space);
        if (!list) added.set(space, (list = []));
        list.push(key);
      }
      this.seen = size;
      for (const [space, list] of added) this.sorted.set(space, merge(this.sorted.get(space) ?? [], list.sort(byKey)));
    }
    return this.sorted.get(ns) ?? [];
  }
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function merge(a: readonly string[], b: readonly string[]): string[] {
  if (a.length === 0) return b as string[];
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = (a[i] as string) <= (b[j] as string) ? (a[i++] as string) : (b[j++] as string);
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}

const indexes = new WeakMap<RecordsProjection, KeyIndex>();

/** The first position whose key sorts after `after`. */
function firstAfter(keys: readonly string[], after: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What a cursor is bound to: the namespace and the filters (a cursor of another listing is refused, not misread). */
function filterPrint(q: ListQuery): string {
  const { cursor: _c, limit: _l, since, until, since_text, until_text, ...rest } = q;
  const filters = { ...rest, since: since_text ?? since, until: until_text ?? until };
  const canon = JSON.stringify(filters, Object.keys(filters).sort());
  return createHash('sha256').update(canon).digest('base64url').slice(0, 16);
}

export function encodeCursor(after: string, q: ListQuery): string {
  return Buffer.from(JSON.stringify({ v: 1, after, f: filterPrint(q) })).toString('base64url');
}

function decodeCursor(cursor: string, q: ListQuery): string {
  let parsed: { v?: unknown; after?: unknown; f?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    parsed = {};
  }
  if (parsed?.v !== 1 || typeof parsed.after !== 'string' || !parsed.after.startsWith(`ev1:${q.namespace}:`))
    throw new KiokuError('KIOKU_CURSOR_INVALID', 'cursor: not a cursor this listing gave out', { details: { field: 'cursor' } });
  if (parsed.f !== filterPrint(q))
    throw new KiokuError('KIOKU_CURSOR_INVALID', 'cursor: it belongs to a listing with other filters (pass the same filters with it, or start again without a cursor)', {
      details: { field: 'cursor' },
    });
  return parsed.after;
}

/** A lookup's keys sorted, kept until the records change (the pages of one listing sort them once). */
const sortedLookups = new WeakMap<RecordsProjection, Map<string, { revision: number; keys: string[] }>>();
const LOOKUPS_KEPT = 32;

function sortedLookup(records: RecordsProjection, name: string, find: () => RecordEntry[]): readonly string[] {
  let kept = sortedLookups.get(records);
  if (!kept) sortedLookups.set(records, (kept = new Map()));
  const hit = kept.get(name);
  if (hit && hit.revision === records.revision) return hit.keys;
  const keys = find()
    .map((e) => e.key)
    .sort(byKey);
  if (kept.size >= LOOKUPS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(name, { revision: records.revision, keys });
  return keys;
}

/** The keys to walk: a lookup's (entity, session, kind) when one is asked, else the namespace's. */
function candidates(records: RecordsProjection, q: ListQuery): readonly string[] {
  const options = { includeRetired: true }; // the status is a filter of its own (passes)
  const name = (what: string, value: string): string => `${q.namespace}\u0000${what}\u0000${value}`;
  if (q.entity !== undefined) return sortedLookup(records, name('entity', q.entity), () => records.byEntityName(q.namespace, q.entity as string, options));
  if (q.session_id !== undefined)
    return sortedLookup(records, name('session', q.session_id), () => records.bySessionId(q.session_id as string, { ...options, ns: q.namespace }));
  if (q.kinds?.length) {
    const kinds = [...q.kinds].sort();
    return sortedLookup(records, name('kinds', kinds.join('\u0000')), () => kinds.flatMap((k) => records.byKindName(q.namespace, k, options)));
  }
  let index = indexes.get(records);
  if (!index) indexes.set(records, (index = new KeyIndex()));
  return index.keys(records, q.namespace);
}

/** Whether an entry passes the query's filters (the namespace is the key list's). */
export function passes(e: RecordEntry, q: ListQuery, text: string | undefined, tags: readonly string[] | undefined): boolean {
  if (!q.include_retired && e.status !== 'active') return false;
  if (q.layers && !q.layers.includes(e.layer)) return false;
  if (q.kinds && !q.kinds.includes(e.kind ?? '')) return false;
  if (!carriesTags(e, tags)) return false;
  if (q.session_id !== undefined && e.session_id !== q.session_id) return false;
  if (q.since !== undefined || q.until !== undefined) {
    const at = Date.parse(e.occurred_at);
    if (q.since !== undefined && !(at >= q.since)) return false;
    if (q.until !== undefined && !(at <= q.until)) return false;
  }
  if (text !== undefined && !lowerNfkc(e.text).includes(text) && !lowerNfkc(e.title).includes(text)) return false;
  return true;
}

/** One page of a namespace's items in key order, from after the cursor. */
/** `visible`: the caller's audience (src/knowledge/audience.ts canSee): what it may not see is walked past, never listed. */
export function listItems(records: RecordsProjection, q: ListQuery, visible?: (e: RecordEntry) => boolean): ListAnswer {
  const keys = candidates(records, q);
  const after = q.cursor !== undefined ? decodeCursor(q.cursor, q) : undefined;
  const text = q.text !== undefined ? lowerNfkc(q.text) : undefined;
  const tags = q.tags?.map((t) => lowerNfkc(t));
  const items: RecordEntry[] = [];
  let i = after === undefined ? 0 : firstAfter(keys, after);
  let scanned = 0;
  for (; i < keys.length && items.length < q.limit && scanned < SCAN_MAX; i++, scanned++) {
    const e = records.get(keys[i] as string);
    if (e && e.ns === q.namespace && passes(e, q, text, tags) && (visible === undefined || visible(e))) items.push(e);
  }
  // the last key looked at: a full page goes on after its last item, a page cut by SCAN_MAX after the last key walked
  const next = i < keys.length ? encodeCursor(keys[i - 1] as string, q) : null;
  return { namespace: q.namespace, items, next_cursor: next, scanned };
}
