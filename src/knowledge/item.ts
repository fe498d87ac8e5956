// What a recallable item looks like to the projections, and the changes the log makes to items.
import type { Layer } from './evidence.js';
import { lowerNfkc } from '../text/script.js';

export interface Item {
  key: string;
  ns: string;
  layer: Layer;
  /** document id (memory id, card id, wiki topic id, note date, turn id, episode id, asset id) */
  id: string;
  section?: string;
  /** 1-based position of the section within its document */
  position?: number;
  title: string;
  heading?: string;
  /** the searchable text */
  text: string;
  kind?: string;
  terms: string[];
  entities: string[];
  tags: string[];
  /** when it happened (ISO); defaults to when it was written */
  occurred_at: string;
  /** log seq of the event that last wrote it */
  seq: number;
  session_id?: string;
  owner?: string;
  audience?: string[];
  attachments?: string[];
  /** normalised-body fingerprint (wiki, notes, traces, memories; cards carry none — architecture.md §evidence) */
  fingerprint?: string;
  /** fingerprint of `text` for every layer: tells the indexer an item changed */
  content_fp: string;
  /** card metadata section: recallable, never delivered */
  meta?: boolean;
  source_path?: string;
  /** card ids this card's relations section names */
  relations?: string[];
  /** content hash of the whole source document (cards, wiki, notes): import idempotence */
  doc_hash?: string;
  supersedes?: string[];
  asset?: { path: string; size: number; sha256: string; mime?: string };
}

export type RetiredStatus = 'superseded' | 'forgotten' | 'removed';

export type ItemChange =
  | { op: 'upsert'; item: Item }
  | { op: 'retire'; key: string; status: RetiredStatus; by?: string; seq: number; tombstone?: Tombstone }
  | { op: 'audience'; key: string; audience: string[]; seq: number };

/** A turn of a conversation: a trace, or a memory written with its session (the window lane and session neighbours use both). */
export function inConversation(item: Pick<Item, 'layer' | 'session_id'>): boolean {
  return Boolean(item.session_id) && (item.layer === 'trace' || item.layer === 'memory');
}

/** Whether an item carries every one of `tags` (given as lowerNfkc makes them: tags compare case-insensitively). */
export function carriesTags(item: Pick<Item, 'tags'>, tags: readonly string[] | undefined): boolean {
  return !tags || tags.every((t) => item.tags.some((x) => lowerNfkc(x) === t));
}

/** The words an item is found by: title (documents), body, entities and tags. */
export function searchableText(item: Item): string {
  const head = item.layer === 'card' || item.layer === 'wiki' ? `${item.title}\n` : '';
  return `${head}${item.text}\n${item.entities.join(' ')}\n${item.tags.join(' ')}`;
}

export type ItemStatus = 'active' | RetiredStatus;

/**
 * What a forgotten item keeps (issue 33): when and by whom, and whether its data keys were
 * shredded (purge). Its text, title, terms, entities and tags are gone from every read model.
 */
export interface Tombstone {
  /** when it was forgotten or purged (ISO) */
  at: string;
  /** the actor of the forget or purge */
  by: string;
  /** its data keys were deleted: the log's sealed text can no longer be read */
  purged?: true;
}

/** An item as the read models hold it: with its status in the knowledge's life. */
export interface RecordEntry extends Item {
  status: ItemStatus;
  superseded_by?: string;
  retired_seq?: number;
  /** a forgotten item's tombstone (its content fields are empty) */
  tombstone?: Tombstone;
}
