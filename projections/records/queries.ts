// Read queries over the records projection, as the facade answers them: one item (evidence), a
// document (card, wiki topic, source of any layer), a card's relations, what an item is connected
// to, items by what they are (kind, tag, entity, session, time), and an asset's claim ticket. Each
// takes the namespace settled by the facade and bounds already resolved (times are resolved against
// the recall clock above this layer): nothing here resolves a caller or parses a request.
import { z } from 'zod';
import { KiokuError } from '../../src/errors.js';
import { LAYERS, namespaceSchema } from '../../src/events/index.js';
import { readOpened } from '../../src/knowledge/asset-files.js';
import type { AssetPolicy } from '../../src/knowledge/asset-policy.js';
import { evidenceKey, type Layer } from '../../src/knowledge/evidence.js';
import type { GraphProjection } from '../graph.js';
import type { RecordEntry, RecordsProjection } from './index.js';

/** Items by what they are, not by relevance (POST /v1/items/query, MCP timeline/directives/constraints). */
export const itemsQuerySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  layers: z.array(z.enum(LAYERS)).min(1).max(7).optional(),
  kinds: z.array(z.string().min(1).max(50)).max(20).optional(),
  tags: z.array(z.string().min(1).max(200)).max(20).optional(),
  entity: z.string().trim().min(1).max(200).optional(),
  /** an ISO time, or a phrase ("last week", "九月那阵子") resolved against now */
  from: z.string().min(1).max(200).optional(),
  to: z.string().min(1).max(200).optional(),
  session_id: z.string().min(1).max(512).optional(),
  include_retired: z.boolean().default(false),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ItemsQuery = z.output<typeof itemsQuerySchema>;

/** The most an asset's content inlined in one answer may weigh (a larger file is cut and says so). */
export const ASSET_INLINE_MAX = 256 * 1024;

/** Where a source id is looked for, in this order (a card and a note of one id: the card). */
const SOURCE_ORDER: readonly Layer[] = ['card', 'wiki', 'note', 'memory', 'asset', 'episode', 'trace'];

export interface EvidenceAnswer extends RecordEntry {
  head_id?: string | null;
  history?: { id: string; status: string; seq: number }[];
}

export interface DocumentAnswer {
  id: string;
  layer: Layer;
  namespace: string;
  title: string;
  tags: string[];
  source_path: string | null;
  sections: { evidence_key: string; section: string | null; heading: string | null; text: string; status: string; meta?: true; fingerprint?: string }[];
}

export interface RelatedEdge {
  evidence_key: string;
  /** supersedes / superseded_by (memory chains), references / referenced_by (cards), before / after (a session's turns), shares_entity */
  relation: 'supersedes' | 'superseded_by' | 'references' | 'referenced_by' | 'before' | 'after' | 'shares_entity';
  title: string;
  status: string;
  /** the entity shared, for shares_entity */
  entity?: string;
}

export interface RelatedAnswer {
  evidence_key: string;
  edges: RelatedEdge[];
}

export interface RelationsAnswer {
  id: string;
  relations: { id: string; exists: boolean }[];
  related_from: string[];
}

export interface ItemsAnswer {
  namespace: string;
  /** the resolved time range, when one was asked */
  range?: { from: string; to: string; phrase?: string };
  items: (RecordEntry & { head_id?: string })[];
  total: number;
  truncated: boolean;
}

export interface AssetAnswer {
  id: string;
  namespace: string;
  path: string;
  mime: string | null;
  bytes: number;
  sha256: string;
  description: string;
  tags: string[];
  /** ok: the file is as registered; changed: its size or hash differ; missing: it is gone; refused: the asset policy no longer allows reading it (not read) */
  status: 'ok' | 'changed' | 'missing' | 'refused';
  content?: { encoding: 'utf8' | 'base64'; data: string; truncated: boolean };
}

/** A bound resolved by the facade: ms since the epoch, exclusive for a phrase's end (the next day begins there). */
export interface TimeBound {
  at: number;
  exclusive?: boolean;
}

/** One item by its evidence key (its namespace checked by the facade), with its supersede chain for a memory. */
export function evidenceOf(records: RecordsProjection, key: string): EvidenceAnswer {
  const e = records.get(key);
  if (!e) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
  const chain = e.layer === 'memory' ? records.memoryChain(e.ns, e.id) : undefined;
  return { ...e, ...(chain ? { head_id: chain.head?.id ?? null, history: chain.history.map((h) => ({ id: h.id, status: h.status, seq: h.seq })) } : {}) };
}

const section = (e: RecordEntry): DocumentAnswer['sections'][number] => ({
  evidence_key: e.key,
  section: e.section ?? null,
  heading: e.heading ?? null,
  text: e.text,
  status: e.status,
  ...(e.meta ? { meta: true as const } : {}),
  ...(e.fingerprint ? { fingerprint: e.fingerprint } : {}),
});

/** A document of one layer and its active sections; `visible`: the caller's audience (a memory another member keeps to itself is not found). */
export function documentOf(records: RecordsProjection, ns: string, layer: Layer, id: string, visible?: (e: RecordEntry) => boolean): DocumentAnswer {
  const sections = records.document(ns, layer, id).filter((e) => e.status === 'active' && (visible === undefined || visible(e)));
  if (sections.length === 0) throw new KiokuError('KIOKU_NOT_FOUND', `no ${layer} "${id}" in namespace ${ns}`, { details: { id } });
  const first = sections[0] as RecordEntry;
  // a wiki section is titled by its heading path (issue 30): the page's title is the path's root
  const title = layer === 'wiki' ? (first.title.split(' › ')[0] as string) : first.title;
  return { id, layer, namespace: ns, title, tags: first.tags, source_path: first.source_path ?? null, sections: sections.map(section) };
}

/** A source document by id, whatever its layer, as far as the caller may see it (`visible`). */
export function sourceOf(records: RecordsProjection, ns: string, id: string, visible?: (e: RecordEntry) => boolean): DocumentAnswer {
  for (const layer of SOURCE_ORDER) {
    if (records.document(ns, layer, id).some((e) => e.status === 'active' && (visible === undefined || visible(e)))) return documentOf(records, ns, layer, id, visible);
  }
  throw new KiokuError('KIOKU_NOT_FOUND', `no source "${id}" in namespace ${ns}`);
}

const activeCard = (records: RecordsProjection, ns: string, id: string): RecordEntry | undefined =>
  records.document(ns, 'card', id).find((x) => x.status === 'active');

/** The card ids a card relates to (and whether each exists), and the cards relating to it. */
export function relationsOf(records: RecordsProjection, ns: string, cardId: string): RelationsAnswer {
  const card = documentOf(records, ns, 'card', cardId);
  const first = activeCard(records, ns, cardId);
  return {
    id: card.id,
    relations: (first?.relations ?? []).map((id) => ({ id, exists: activeCard(records, ns, id) !== undefined })),
    related_from: records.relatedFrom(ns, cardId),
  };
}

/** Items of a namespace matching the query, newest first; a retired memory names its chain's head. */
export function queryItems(
  records: RecordsProjection,
  ns: string,
  q: Omit<ItemsQuery, 'namespace' | 'from' | 'to'>,
  /** `visible`: the caller's audience (src/knowledge/audience.ts canSee); what it may not see is neither listed nor counted */
  bounds: { from?: TimeBound | undefined; to?: TimeBound | undefined; visible?: ((e: RecordEntry) => boolean) | undefined },
): Pick<ItemsAnswer, 'items' | 'total' | 'truncated'> {
  const { from, to } = bounds;
  const kinds = q.kinds && new Set(q.kinds);
  const tags = q.tags?.map((t) => t.toLowerCase());
  const entityKeys = q.entity ? new Set(records.byEntityName(ns, q.entity, { includeRetired: q.include_retired }).map((e) => e.key)) : undefined;
  const matches: RecordEntry[] = [];
  for (const e of records.all({ ...(q.layers ? { layers: q.layers } : {}), includeRetired: q.include_retired })) {
    if (e.ns !== ns) continue;
    if (kinds && !kinds.has(e.kind ?? '')) continue;
    if (tags && !tags.every((t) => e.tags.some((x) => x.toLowerCase() === t))) continue;
    if (entityKeys && !entityKeys.has(e.key)) continue;
    if (q.session_id && e.session_id !== q.session_id) continue;
    const at = Date.parse(e.occurred_at);
    if (from && at < from.at) continue;
    if (to && (to.exclusive ? at >= to.at : at > to.at)) continue;
    if (bounds.visible && !bounds.visible(e)) continue;
    matches.push(e);
  }
  matches.sort((a, b) => Date.parse(b.occurred_at) - Date.parse(a.occurred_at) || b.seq - a.seq);
  const items = matches.slice(0, q.limit).map((e) => {
    const chain = e.layer === 'memory' && e.status !== 'active' ? records.memoryChain(e.ns, e.id) : undefined;
    return chain?.head ? { ...e, head_id: chain.head.id } : e;
  });
  return { items, total: matches.length, truncated: matches.length > items.length };
}

/** An entity more items name than this is no edge for get_related. */
const RELATED_MAX_DF = 50;

/** What an item is connected to: supersede edges, card references, session neighbours, shared entities (at most `limit`). */
export function relatedOf(
  records: RecordsProjection,
  ns: string,
  key: string,
  limit: number,
  graph?: GraphProjection,
  /** the caller's audience: an item it may not see is no edge */
  visible?: (e: RecordEntry) => boolean,
  /** the turns before and after an item (default: its session's; recall's sessionNeighbours adds a plain memory's neighbours in time) */
  neighboursOf: (key: string) => { before?: string | undefined; after?: string | undefined } = (k) => records.turnNeighbours(k),
): RelatedAnswer {
  const e = records.get(key);
  if (!e) throw new KiokuError('KIOKU_NOT_FOUND', `no item ${key}`);
  const edges: RelatedEdge[] = [];
  const seen = new Set<string>([key]);
  const add = (other: RecordEntry | undefined, relation: RelatedEdge['relation'], entity?: string): void => {
    if (!other || seen.has(other.key) || other.ns !== ns || (visible !== undefined && !visible(other))) return;
    seen.add(other.key);
    edges.push({ evidence_key: other.key, relation, title: other.title, status: other.status, ...(entity ? { entity } : {}) });
  };
  if (e.layer === 'memory') {
    const chain = records.memoryChain(ns, e.id);
    for (const h of chain.history) {
      if (h.key === key) continue;
      // older links of the chain are what this one (or its successors) superseded; newer ones superseded it
      add(h, h.seq < e.seq ? 'supersedes' : 'superseded_by');
    }
  }
  if (e.layer === 'card') {
    for (const id of e.relations ?? []) add(activeCard(records, ns, id), 'references');
    for (const id of records.relatedFrom(ns, e.id)) add(activeCard(records, ns, id), 'referenced_by');
  }
  const { before, after } = neighboursOf(key);
  add(before ? records.get(before) : undefined, 'before');
  add(after ? records.get(after) : undefined, 'after');
  for (const entity of e.entities) for (const other of records.byEntityName(ns, entity)) add(other, 'shares_entity', entity);
  // the entities its text names too (the graph projection), rarest first; one named everywhere connects nothing
  const named = graph ? graph.entitiesOf(key).map((en) => ({ en, naming: graph.itemsNaming(ns, en) })) : [];
  for (const { en, naming } of named.filter((x) => x.naming.size <= RELATED_MAX_DF).sort((a, b) => a.naming.size - b.naming.size))
    for (const other of [...naming].sort()) add(records.get(other), 'shares_entity', en);
  return { evidence_key: key, edges: edges.slice(0, limit) };
}

/**
 * An asset's claim ticket and its status checked against the file now, under the same policy as at
 * registration (the file may have become a symlink since); its content inline on request, within a cap.
 */
export async function assetOf(
  records: RecordsProjection,
  policy: AssetPolicy,
  ns: string,
  id: string,
  options: { include_content?: boolean | undefined; max_bytes?: number | undefined },
): Promise<AssetAnswer> {
  const e = records.get(evidenceKey({ ns, layer: 'asset', id }));
  if (!e?.asset || e.status !== 'active') throw new KiokuError('KIOKU_NOT_FOUND', `no asset "${id}" in namespace ${ns}`, { details: { id } });
  const { path, size, sha256, mime } = e.asset;
  const cap = options.include_content ? Math.min(options.max_bytes ?? ASSET_INLINE_MAX, ASSET_INLINE_MAX) : 0;
  let status: AssetAnswer['status'] = 'missing';
  let read: Awaited<ReturnType<typeof readOpened>> | undefined;
  try {
    read = await readOpened(policy.open(ns, path), cap);
    status = read.size === size && read.sha256 === sha256 ? 'ok' : 'changed';
  } catch (err) {
    if (!(err instanceof KiokuError) || err.code !== 'KIOKU_ASSET_PATH_REFUSED') status = 'missing';
    else if (options.include_content) throw err;
    else status = 'refused';
  }
  const content = options.include_content && read ? inlineContent(read.head, mime, read.size > cap) : undefined;
  return { id, namespace: ns, path, mime: mime ?? null, bytes: size, sha256, description: e.text, tags: e.tags, status, ...(content ? { content } : {}) };
}

/** Text (by its mime, or bytes without a NUL) as utf8, anything else as base64. */
function inlineContent(cut: Buffer, mime: string | undefined, truncated: boolean): NonNullable<AssetAnswer['content']> {
  const text = /^text\/|json|xml|yaml|markdown/.test(mime ?? '') || !cut.includes(0);
  return { encoding: text ? 'utf8' : 'base64', data: cut.toString(text ? 'utf8' : 'base64'), truncated };
}
