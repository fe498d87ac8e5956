// Read queries over items as the facade answers them (items, related, evidence, list, stats,
// usage): the namespace settled from the caller (an evidence key's own one for a lookup by key),
// the audience policy applied (src/api/audience.ts), time phrases resolved against the clock. The
// queries themselves are the records projection's (projections/records/queries.ts, listing.ts).
import { z } from 'zod';
import { namespaceOf, seesService, type Access } from '../access.js';
import { KiokuError } from '../errors.js';
import { evidenceKey, itemIdSchema, parseEvidenceKey } from '../knowledge/evidence.js';
import { canSee, ownerMark } from '../knowledge/audience.js';
import { parseInput } from '../knowledge/validate.js';
import { parseTimeRange, sessionNeighbours, type TimeRange } from '../recall/index.js';
import { evidenceOf, queryItems, relatedOf, type EvidenceAnswer, type ItemsAnswer, type RelatedAnswer } from '../../projections/records/queries.js';
import { listItems, type ListAnswer } from '../../projections/records/listing.js';
import type { KiokuStore } from '../store.js';
import { wire, type InNamespaceInput, type ItemsInput, type ListInput, type RelatedInput } from '../wire.js';
import { itemUsage, type UsageAnswer } from './activity.js';
import { orgCallerIn, visibleIn, visibleKey } from './audience.js';

export interface StatsAnswer {
  namespace: string;
  items: { total: number; active: number; by_layer: Record<string, number> };
  /** events recorded in this namespace (its writes, turns, recalls): moves with its own activity only */
  events: number;
  /** the shared log's head: only for callers who may see the whole service (it moves with every namespace's writes) */
  head?: { seq: number; hash: string };
}

/** Items by what they are (kinds, tags, entity, time range, session), newest first, as the caller may see them. */
export function findItems(store: KiokuStore, input: ItemsInput, access: Access, now: Date): ItemsAnswer {
  const { namespace, from: fromText, to: toText, ...q } = parseInput(wire.items, input ?? {}, 'items');
  const ns = namespaceOf(namespace, access);
  const from = timeBound(fromText, 'from', now, 'items');
  // a phrase alone ("last week") is a whole range
  const to = timeBound(toText, 'to', now, 'items') ?? (from?.range ? { at: from.range.to.getTime(), exclusive: true } : undefined);
  const caller = orgCallerIn(store, ns, access);
  const queried = queryItems(store.projections.views.records, ns, q, { from, to, visible: visibleIn(store, ns, access) });
  const found = { ...queried, items: queried.items.map((e) => ({ ...e, ...ownerMark(e, caller) })) };
  const range = from?.range;
  return {
    namespace: ns,
    ...(from || to
      ? {
          range: {
            from: new Date(from?.at ?? 0).toISOString(),
            to: new Date(to?.at ?? now.getTime()).toISOString(),
            ...(range ? { phrase: range.phrase } : {}),
          },
        }
      : {}),
    ...found,
  };
}

/** What an item is connected to, within what the caller may see; a hidden item is not found. */
export function relatedItems(store: KiokuStore, ref: string, input: RelatedInput, access: Access, plainGapMin: number): RelatedAnswer {
  const key = itemKey(ref, access);
  const { limit } = parseInput(wire.related, input, 'related');
  const ns = namespaceOf(keyNamespace(key), access);
  if (!visibleKey(store, key, ns, access)) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
  const views = store.projections.views;
  // a plain memory's neighbours in time are its before and after, as recall's windows read them (issue 35)
  const neighbours = sessionNeighbours(views.records, views.graph, ns, plainGapMin);
  return relatedOf(views.records, ns, key, Math.min(Math.max(limit ?? 20, 1), 100), views.graph, visibleIn(store, ns, access), neighbours);
}

/** One item by key, owner-marked; the fetch is recorded as a use (`actor` names who fetched it). */
export async function fetchEvidence(store: KiokuStore, ref: string, access: Access, actor: string): Promise<EvidenceAnswer> {
  const key = itemKey(ref, access);
  const ns = namespaceOf(keyNamespace(key), access);
  const found = evidenceOf(store.projections.views.records, key);
  // the one audience policy (issue 34): an item the caller may not see is not found
  const caller = orgCallerIn(store, ns, access);
  if (!canSee(found, caller)) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
  const answer = { ...found, ...ownerMark(found, caller) };
  // a fetch by key is a use (projections/access.ts): it feeds the ACT-R re-rank and brings an archived item back.
  // Recorded when the log takes writes: a store that refuses them (full disk, database lost) still answers reads
  await store.log.append({ type: 'evidence.fetched', ns, actor, data: { evidence_keys: [answer.key] } }).catch(() => undefined);
  return answer;
}

/** One namespace's items in key order, filtered, a page at a time. */
export function listPage(store: KiokuStore, input: ListInput, access: Access, now: Date): ListAnswer {
  const { since, until, ...q } = parseInput(wire.list, input ?? {}, 'list');
  const ns = namespaceOf(q.namespace, access);
  const from = timeBound(since, 'since', now, 'list');
  // a phrase alone ("last week") is a whole range
  const to = timeBound(until, 'until', now, 'list') ?? (from?.range ? { at: from.range.to.getTime(), exclusive: true } : undefined);
  return listItems(
    store.projections.views.records,
    {
      ...q,
      namespace: ns,
      since: from?.at,
      until: to && (to.exclusive ? to.at - 1 : to.at),
      since_text: since,
      until_text: until,
    },
    visibleIn(store, ns, access),
  );
}

/** Items by layer as the caller sees them, the namespace's events, and the log head for one who sees the service. */
export function namespaceStats(store: KiokuStore, input: InNamespaceInput, access: Access): StatsAnswer {
  const ns = namespaceOf(input.namespace, access);
  const views = store.projections.views;
  const events = views.stats.current().by_namespace[ns]?.count ?? 0;
  return { namespace: ns, items: views.records.counts(ns, visibleIn(store, ns, access)), events, ...(seesService(access) ? { head: store.log.head() } : {}) };
}

/** How one item has been used; a hidden item's counters would tell that it exists (issue 34): not found. */
export function usageOf(store: KiokuStore, ref: string, access: Access): UsageAnswer {
  const key = itemKey(ref, access);
  const ns = namespaceOf(keyNamespace(key), access);
  if (!visibleKey(store, key, ns, access)) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
  return itemUsage(store, ns, key);
}

/**
 * A time bound: an ISO time, or a phrase ("last week", "九月那阵子") resolved against now to the start or the end of its range.
 * A phrase's range ends where the next day begins (exclusive): "九月" must not hold October 1st's daily note.
 */
function timeBound(
  text: string | undefined,
  end: string,
  now: Date,
  what: string,
): { at: number; phrase?: string; range?: TimeRange; exclusive?: boolean } | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (!Number.isNaN(at)) return { at };
  const range = parseTimeRange(text, now);
  if (!range)
    throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${end}: not a time or a time phrase I know ("${text.slice(0, 80)}")`, { details: { field: end } });
  const start = end === 'from' || end === 'since';
  return { at: (start ? range.from : range.to).getTime(), phrase: range.phrase, range, ...(start ? {} : { exclusive: true }) };
}

/** An item named by its evidence key, or a memory by its bare id (the seed's get_memory takes an id): the key, in the caller's namespace. */
function itemKey(ref: string, access: Access): string {
  if (ref.startsWith('ev1:')) return ref;
  return evidenceKey({ ns: namespaceOf(undefined, access), layer: 'memory', id: parseInput(z.strictObject({ key: itemIdSchema }), { key: ref }, 'evidence').key });
}

/** The namespace an evidence key names (ev1:<ns>:<layer>:<id>[#section]); a malformed key is refused. */
function keyNamespace(key: string): string {
  const ref = parseEvidenceKey(key);
  if (!ref) throw new KiokuError('KIOKU_INPUT_INVALID', 'not an evidence key (ev1:<ns>:<layer>:<id>[#section])', { details: { field: 'key' } });
  return ref.ns;
}
