// From log records to item changes: the one place that knows which events create,
// change and retire which items. Every item projection (records, keyword, vector)
// runs its own KnowledgeFold so each can be rebuilt alone.
import type { EventData, LogRecord } from '../events/index.js';
import { evidenceKey, fingerprint, parseEvidenceKey, type Layer } from './evidence.js';
import type { Item, ItemChange } from './item.js';
import { findSecrets, PLACEHOLDER_PATTERN } from '../privacy/detect.js';
import { lineSpeaker, prefixSpeaker } from '../text/turn-shape.js';
import { headOf } from '../text/well-formed.js';

interface PendingTurn {
  query: string;
  session_id: string;
  occurred_at: string;
  speaker?: string;
  /** the member whose turn it is, in an org (issue 34) */
  owner?: string;
  /** forgotten before its answer came: the answer makes this tombstone again, never a trace */
  forgotten?: ItemChange;
}

export interface KnowledgeFoldState {
  /** document ref `ns\u0000layer\u0000id` → its section keys, to retire sections that disappear */
  docs: Record<string, string[]>;
  /** turns started but not completed, so completion can index query + answer */
  turns: Record<string, PendingTurn>;
}

/** A record's commit time as ISO text, made only where an item needs it (most records make no item). */
const isoAt = (ts: number): string => new Date(ts).toISOString();

const docRef = (ns: string, layer: Layer, id: string): string => `${ns}\u0000${layer}\u0000${id}`;

/**
 * A heading with each secret (or its placeholder) replaced by `secret-<kind>`: a section's id is made
 * from its heading and ends up in evidence keys, which redaction never rewrites (issue 33), so the
 * id is made from what any copy of the heading (as sent or as stored) shares, never from the value.
 */
function headingWithoutSecrets(heading: string): string {
  let out = heading.replace(PLACEHOLDER_PATTERN, (_m, kind: string) => ` secret-${kind} `);
  const found = findSecrets(out);
  for (let i = found.length - 1; i >= 0; i--) {
    const f = found[i]!;
    out = `${out.slice(0, f.start)} secret-${f.kind} ${out.slice(f.end)}`;
  }
  return out;
}

/** Heading → stable section id: survives inserting other sections (unlike a position). */
export function sectionSlug(heading: string, taken: Set<string>): string {
  const base =
    headingWithoutSecrets(heading)
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[\s:#/\\?]+/g, '-')
      .replace(/[^\p{L}\p{N}._-]+/gu, '')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80) || 'intro';
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

/** A document event's `supersedes` as old section key → the key of its first successor (the records' superseded_by). */
function successors(ns: string, layer: Layer, id: string, list: { section: string; by: string[] }[] | undefined): Map<string, string> | undefined {
  if (!list?.length) return undefined;
  return new Map(list.map((s) => [evidenceKey({ ns, layer, id, section: s.section }), evidenceKey({ ns, layer, id, section: s.by[0] as string })]));
}

/** The speaker a conversation turn names in its own text (src/text/turn-shape.ts, where the plain-memory neighbour rule reads it too). */
export { prefixSpeaker };

/**
 * A memory's entities as projected: the given ones plus its speaker (given, or named by its prefix in a
 * session; a label's prefix — "Note: …", "Decision: …" — names no one, lineSpeaker).
 */
export function memoryEntities(m: { entities: string[]; speaker?: string | undefined; session_id?: string | undefined; text: string }): string[] {
  return withSpeaker(m.entities, m.speaker ?? (m.session_id ? lineSpeaker(m.text) : undefined));
}

function withSpeaker(entities: string[], speaker: string | undefined): string[] {
  if (!speaker || entities.some((e) => e.toLowerCase() === speaker.toLowerCase())) return entities;
  return [...entities, speaker];
}

/** The first non-blank line, trimmed and cut at `max` (scanned, not split: traces are mostly one line). */
function firstLine(text: string, max = 120): string {
  let t = '';
  for (let start = 0; start <= text.length;) {
    const nl = text.indexOf('\n', start);
    t = (nl < 0 ? text.slice(start) : text.slice(start, nl)).trim();
    if (t || nl < 0) break;
    start = nl + 1;
  }
  // cut between whole characters: an emoji at the cut would leave half of it in the title
  return t.length > max ? `${headOf(t, max - 1)}…` : t;
}

interface ItemBase {
  ns: string;
  layer: Layer;
  id: string;
  section?: string;
  title: string;
  text: string;
  occurred_at: string;
  seq: number;
  /** the text whose fingerprint tells the indexer an item changed (default: text) */
  versionText?: string;
}

/** An item from its base fields: key and content fingerprint derived, term/entity/tag lists empty unless given. */
function makeItem(base: ItemBase, extra: Partial<Item> = {}): Item {
  // built field by field (object spreads of this size were a tenth of a rebuild)
  const item: Item = {
    ns: base.ns,
    layer: base.layer,
    id: base.id,
    title: base.title,
    text: base.text,
    occurred_at: base.occurred_at,
    seq: base.seq,
    key: evidenceKey({ ns: base.ns, layer: base.layer, id: base.id, section: base.section }),
    terms: NONE,
    entities: NONE,
    tags: NONE,
    content_fp: extra.content_fp ?? fingerprintOf(base.versionText ?? base.text),
  };
  if (base.section !== undefined) item.section = base.section;
  for (const k in extra) {
    const v = extra[k as keyof Item];
    if (v !== undefined) (item as unknown as Record<string, unknown>)[k] = v;
  }
  return item;
}

/** the empty list items share (items are never mutated once made) */
const NONE: string[] = Object.freeze([]) as unknown as string[];

/** One change a record makes to a fold's own state. */
type StateEdit = { docs: string; keys: string[] | undefined } | { turns: string; turn: PendingTurn | undefined };

/** What one record did to a fold: its item changes, and the edits to the fold's state that went with them. */
interface FoldStep {
  changes: ItemChange[];
  edits: StateEdit[];
  /** computed for a caller that reads keys only: its items have no fingerprints */
  keysOnly: boolean;
}

// A fold's state is a function of the records it has folded, and every fold folds the log in
// order, so any two folds meeting the same record are in the same state. The first fold to meet
// a record (records, keyword and vector each run one) keeps what it made for the others, which
// replay only the state edits: building items (keys, fingerprints) three times was a third of a
// rebuild. Items are shared between projections from here on and never mutated. The runner hands
// one record to every projection before reading the next, so the last record's step is all that
// needs keeping (a WeakMap of every record read cost its share of each garbage collection).
let lastRecord: LogRecord | undefined;
let lastStep: FoldStep | undefined;

/**
 * While a fold computes keys only (see changes): its items carry no fingerprints (a sha256 of
 * each normalised text, a tenth of a rebuild's main thread when the vector projection, which
 * needs keys alone, is the first fold to meet a record).
 */
let keysOnly = false;
const fingerprintOf = (text: string): string => (keysOnly ? '' : fingerprint(text));

/**
 * The record types a knowledge fold reads; every other type makes no change (checked first in
 * compute, so this set is the rule, not a comment on it). Projections that only fold knowledge
 * name it as their `types`, which lets a rebuild's worker be handed these records alone.
 */
export const FOLDED_TYPES: ReadonlySet<string> = new Set([
  'memory.written',
  'memory.superseded',
  'memory.forgotten',
  'memory.audience_set',
  'item.forgotten',
  'purged',
  'card.upserted',
  'wiki.upserted',
  'note.upserted',
  'card.removed',
  'wiki.removed',
  'note.removed',
  'turn.started',
  'turn.completed',
  'episode.logged',
  'asset.registered',
]);
const NO_CHANGES = Object.freeze([]) as unknown as ItemChange[];

/** A memory written: its item, and the retirement of each memory it supersedes. */
function memoryWritten(record: LogRecord): ItemChange[] {
  const ns = record.ns;
  const d = record.data as EventData<'memory.written'>;
  const fp = fingerprintOf(d.text);
  const item = makeItem(
    { ns, layer: 'memory', id: d.id, title: firstLine(d.text), text: d.text, occurred_at: d.occurred_at ?? isoAt(record.ts), seq: record.seq },
    {
      kind: d.kind,
      terms: d.terms,
      entities: memoryEntities(d),
      tags: d.tags,
      fingerprint: d.fingerprint ?? fp,
      content_fp: fp,
      attachments: d.attachments,
      ...(d.session_id ? { session_id: d.session_id } : {}),
      ...(d.owner ? { owner: d.owner } : {}),
      ...(d.audience ? { audience: d.audience } : {}),
      ...(d.supersedes?.length ? { supersedes: d.supersedes } : {}),
    },
  );
  const out: ItemChange[] = [{ op: 'upsert', item }];
  for (const old of d.supersedes ?? []) {
    out.push({ op: 'retire', key: evidenceKey({ ns, layer: 'memory', id: old }), status: 'superseded', by: d.id, seq: record.seq });
  }
  return out;
}

/** A memory superseded, forgotten, or given another audience. */
function memoryChanged(record: LogRecord): ItemChange {
  const key = (id: string): string => evidenceKey({ ns: record.ns, layer: 'memory', id });
  if (record.type === 'memory.superseded') {
    const d = record.data as EventData<'memory.superseded'>;
    return { op: 'retire', key: key(d.id), status: 'superseded', by: d.by, seq: record.seq };
  }
  if (record.type === 'memory.forgotten') {
    const d = record.data as EventData<'memory.forgotten'>;
    return forgotten(record, key(d.id));
  }
  const d = record.data as EventData<'memory.audience_set'>;
  return { op: 'audience', key: key(d.id), audience: d.audience, seq: record.seq };
}

/** A tombstone for `key`: the read models drop its text (issue 33: forget means gone from every view). */
function forgotten(record: LogRecord, key: string, purged = false): ItemChange {
  const tombstone = { at: isoAt(record.ts), by: record.actor, ...(purged ? { purged: true as const } : {}) };
  return { op: 'retire', key, status: 'forgotten', seq: record.seq, tombstone };
}

/** The keys a forget of a trace, episode or asset names, or a purge shredded (in its own namespace only, whatever keys it names). */
function forgottenKeys(record: LogRecord): string[] {
  if (record.type === 'item.forgotten') {
    const d = record.data as EventData<'item.forgotten'>;
    return [evidenceKey({ ns: record.ns, layer: d.layer, id: d.id })];
  }
  const own = `ev1:${record.ns}:`;
  return (record.data as EventData<'purged'>).keys.filter((key) => key.startsWith(own));
}

/** A card's sections as items (a card keeps its sections' positions, relations and meta flags). */
function cardItems(record: LogRecord, d: EventData<'card.upserted'>): Item[] {
  return d.sections.map((s, i) =>
    makeItem(
      {
        ns: record.ns,
        layer: 'card',
        id: d.id,
        section: s.id,
        title: d.title,
        text: s.heading ? `${s.heading}\n${s.body}` : s.body,
        occurred_at: isoAt(record.ts),
        seq: record.seq,
        versionText: `${d.title}\n${s.heading}\n${s.body}`,
      },
      {
        position: i + 1,
        heading: s.heading,
        tags: d.tags ?? [],
        doc_hash: d.content_hash,
        ...(d.relations?.length ? { relations: d.relations } : {}),
        ...(s.meta ? { meta: true } : {}),
        ...(d.source_path ? { source_path: d.source_path } : {}),
      },
    ),
  );
}

/** A dialogue kept verbatim: one item of all its messages. */
function episodeLogged(record: LogRecord): ItemChange {
  const d = record.data as EventData<'episode.logged'>;
  const text = d.messages.map((m) => `${m.role}: ${m.text}`).join('\n');
  const item = makeItem(
    {
      ns: record.ns,
      layer: 'episode',
      id: d.episode_id,
      title: firstLine(d.messages[0]?.text ?? d.episode_id),
      text,
      occurred_at: d.messages[0]?.at ?? isoAt(record.ts),
      seq: record.seq,
    },
    { ...(d.session_id ? { session_id: d.session_id } : {}), ...(d.owner ? { owner: d.owner } : {}) },
  );
  return { op: 'upsert', item: { ...item, fingerprint: item.content_fp } };
}

/** A file registered by reference. The description is an asset's only search text (seed 002). */
function assetRegistered(record: LogRecord): ItemChange {
  const d = record.data as EventData<'asset.registered'>;
  const item = makeItem(
    { ns: record.ns, layer: 'asset', id: d.id, title: d.path.split('/').pop() ?? d.path, text: d.description, occurred_at: isoAt(record.ts), seq: record.seq },
    { tags: d.tags, asset: { path: d.path, size: d.size, sha256: d.sha256, ...(d.mime ? { mime: d.mime } : {}) }, ...(d.owner ? { owner: d.owner } : {}) },
  );
  return { op: 'upsert', item };
}

export class KnowledgeFold {
  state: KnowledgeFoldState = { docs: {}, turns: {} };
  /** the edits of the record being folded (see steps) */
  private edits: StateEdit[] = [];

  reset(): void {
    this.state = { docs: {}, turns: {} };
  }

  load(state: KnowledgeFoldState): void {
    this.state = state;
  }

  /**
   * The item changes one committed record makes. Unknown and unrelated types make none.
   * `keys`: the caller reads only the changes' keys, namespaces and layers (and the fold's state),
   * so items may come without fingerprints; such a step is never handed to a fold that needs them.
   */
  changes(record: LogRecord, keys = false): ItemChange[] {
    if (record === lastRecord && lastStep && (keys || !lastStep.keysOnly)) {
      for (const edit of lastStep.edits) this.apply(edit);
      return lastStep.changes;
    }
    this.edits = [];
    keysOnly = keys;
    let changes: ItemChange[];
    try {
      changes = this.compute(record);
    } finally {
      keysOnly = false;
    }
    lastRecord = record;
    lastStep = { changes, edits: this.edits, keysOnly: keys };
    return changes;
  }

  private apply(edit: StateEdit): void {
    if ('docs' in edit) {
      if (edit.keys) this.state.docs[edit.docs] = edit.keys;
      else delete this.state.docs[edit.docs];
    } else if (edit.turn) this.state.turns[edit.turns] = edit.turn;
    else delete this.state.turns[edit.turns];
  }

  /** Edit the state, and note the edit for folds that meet the same record later. */
  private edit(edit: StateEdit): void {
    this.edits.push(edit);
    this.apply(edit);
  }

  private compute(record: LogRecord): ItemChange[] {
    if (!FOLDED_TYPES.has(record.type)) return NO_CHANGES;
    switch (record.type) {
      case 'memory.written':
        return memoryWritten(record);
      case 'memory.superseded':
      case 'memory.forgotten':
      case 'memory.audience_set':
        return [memoryChanged(record)];
      case 'item.forgotten':
      case 'purged':
        return this.itemsForgotten(record);
      case 'card.upserted':
      case 'wiki.upserted':
      case 'note.upserted':
        return this.documentUpserted(record);
      case 'card.removed':
        return this.replaceDocument(record.ns, 'card', (record.data as EventData<'card.removed'>).id, [], record.seq);
      case 'wiki.removed':
        return this.replaceDocument(record.ns, 'wiki', (record.data as EventData<'wiki.removed'>).topic_id, [], record.seq);
      case 'note.removed':
        return this.replaceDocument(record.ns, 'note', (record.data as EventData<'note.removed'>).date, [], record.seq);
      case 'turn.started':
        return [this.turnStarted(record)];
      case 'turn.completed':
        return [this.turnCompleted(record)];
      case 'episode.logged':
        return [episodeLogged(record)];
      case 'asset.registered':
        return [assetRegistered(record)];
      default:
        return [];
    }
  }

  /** A card, wiki topic or daily note written whole: its sections replace the document's. */
  private documentUpserted(record: LogRecord): ItemChange[] {
    const ns = record.ns;
    if (record.type === 'card.upserted') {
      const d = record.data as EventData<'card.upserted'>;
      return this.replaceDocument(ns, 'card', d.id, cardItems(record, d), record.seq);
    }
    if (record.type === 'wiki.upserted') {
      const d = record.data as EventData<'wiki.upserted'>;
      return this.replaceDocument(
        ns,
        'wiki',
        d.topic_id,
        this.sectionItems(ns, 'wiki', d.topic_id, d.title, d.sections, isoAt(record.ts), record.seq, d.content_hash, d.source_path, d.tags),
        record.seq,
        successors(ns, 'wiki', d.topic_id, d.supersedes),
      );
    }
    const d = record.data as EventData<'note.upserted'>;
    const occurred = `${d.date}T00:00:00.000Z`;
    return this.replaceDocument(
      ns,
      'note',
      d.date,
      this.sectionItems(ns, 'note', d.date, d.date, d.sections, occurred, record.seq, d.content_hash, d.source_path),
      record.seq,
      successors(ns, 'note', d.date, d.supersedes),
    );
  }

  /** Tombstones for what a forget or purge names; a forgotten turn still waiting for its answer stays forgotten when it comes. */
  private itemsForgotten(record: LogRecord): ItemChange[] {
    return forgottenKeys(record).map((key) => {
      const change = forgotten(record, key, record.type === 'purged');
      const ref = parseEvidenceKey(key);
      const pending = ref?.layer === 'trace' ? `${ref.ns}\u0000${ref.id}` : undefined;
      const turn = pending === undefined ? undefined : this.state.turns[pending];
      if (pending !== undefined && turn) this.edit({ turns: pending, turn: { ...turn, query: '', forgotten: change } });
      return change;
    });
  }

  /** A turn's query is a trace at once; the turn waits in the state for its answer. */
  private turnStarted(record: LogRecord): ItemChange {
    const ns = record.ns;
    const d = record.data as EventData<'turn.started'>;
    const occurred = d.occurred_at ?? isoAt(record.ts);
    this.edit({
      turns: `${ns}\u0000${d.turn_id}`,
      turn: { query: d.query, session_id: d.session_id, occurred_at: occurred, ...(d.speaker ? { speaker: d.speaker } : {}), ...(d.owner ? { owner: d.owner } : {}) },
    });
    return { op: 'upsert', item: this.traceItem(ns, d.turn_id, d.query, '', d.session_id, occurred, record.seq, d.speaker, d.owner) };
  }

  /** The completed turn's trace: its query (from the state) and answer together. */
  private turnCompleted(record: LogRecord): ItemChange {
    const ns = record.ns;
    const d = record.data as EventData<'turn.completed'>;
    const ref = `${ns}\u0000${d.turn_id}`;
    const started = this.state.turns[ref];
    if (started) this.edit({ turns: ref, turn: undefined });
    if (started?.forgotten) return started.forgotten;
    return {
      op: 'upsert',
      item: this.traceItem(ns, d.turn_id, started?.query ?? '', d.answer, d.session_id, started?.occurred_at ?? isoAt(record.ts), record.seq, started?.speaker, started?.owner),
    };
  }

  private traceItem(ns: string, turnId: string, query: string, answer: string, sessionId: string, occurredAt: string, seq: number, speaker?: string, owner?: string): Item {
    // a speaker's name is part of what a turn is found by ("what did Caroline say …")
    const text = `${speaker ? `${speaker}: ` : ''}${answer ? `${query}\n${answer}` : query}`;
    const item = makeItem(
      { ns, layer: 'trace', id: turnId, title: firstLine(query), text, occurred_at: occurredAt, seq },
      { entities: speaker ? [speaker] : NONE, session_id: sessionId, ...(owner ? { owner } : {}) },
    );
    item.fingerprint = item.content_fp;
    return item;
  }

  private sectionItems(
    ns: string,
    layer: 'wiki' | 'note',
    id: string,
    title: string,
    sections: EventData<'wiki.upserted'>['sections'],
    occurredAt: string,
    seq: number,
    docHash: string,
    sourcePath?: string,
    tags?: string[],
  ): Item[] {
    return sections.map((s, i) => {
      const text = s.heading ? `${s.heading}\n${s.body}` : s.body;
      return makeItem(
        { ns, layer, id, section: s.id, title: s.title ?? title, text, occurred_at: occurredAt, seq, versionText: `${s.title ?? title}\n${text}` },
        {
          position: i + 1,
          heading: s.heading,
          tags: tags ?? [],
          fingerprint: s.fingerprint ?? fingerprintOf(s.body),
          doc_hash: docHash,
          ...(sourcePath ? { source_path: sourcePath } : {}),
        },
      );
    });
  }

  /** Upsert a document's sections and retire the sections it no longer has: superseded when the event names their successor, else removed. */
  private replaceDocument(ns: string, layer: Layer, id: string, items: Item[], seq: number, by?: ReadonlyMap<string, string>): ItemChange[] {
    const ref = docRef(ns, layer, id);
    const keep = new Set(items.map((i) => i.key));
    const out: ItemChange[] = (this.state.docs[ref] ?? [])
      .filter((k) => !keep.has(k))
      .map((key): ItemChange => {
        const successor = by?.get(key);
        return successor !== undefined ? { op: 'retire', key, status: 'superseded', by: successor, seq } : { op: 'retire', key, status: 'removed', seq };
      });
    if (items.length) this.edit({ docs: ref, keys: items.map((i) => i.key) });
    else if (this.state.docs[ref]) this.edit({ docs: ref, keys: undefined });
    for (const item of items) out.push({ op: 'upsert', item });
    return out;
  }
}
