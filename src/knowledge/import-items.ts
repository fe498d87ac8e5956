// `kioku import jsonl FILE`: what `kioku export --format jsonl` wrote, back in. Cards, wiki
// topics and notes come whole with their sections as stored (same ids, headings and bodies, so
// the same evidence keys); memories go through the memory write (same ids and texts; a repeat
// of an identical write appends nothing). History a turn recorded (traces) and items held by
// reference (assets, episodes) are exported for reading and counted as skipped here.
import { z } from 'zod';
import { isKiokuError } from '../errors.js';
import { eventSchemas, namespaceSchema, type AppendInput } from '../events/index.js';
import { KNOWLEDGE_EVENT_TYPES, memoryInputSchema, type Knowledge, type KnowledgeStore } from './commands.js';
import { itemIdSchema, type Layer } from './evidence.js';

const sectionsOf = eventSchemas['wiki.upserted'].shape.sections;
const common = {
  id: itemIdSchema,
  content_hash: z.string().regex(/^[0-9a-f]{64}$/, 'content_hash: 64 lowercase hex characters'),
  sections: sectionsOf,
  source_path: z.string().max(4_096).optional(),
};

/** One line of a jsonl export (after its header line). */
export const exportedItemSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('card'),
    ...common,
    title: z.string().max(1_000),
    tags: z.array(z.string().max(200)).max(100).optional(),
    relations: z.array(itemIdSchema).max(1_000).optional(),
  }),
  z.strictObject({ type: z.literal('wiki'), ...common, title: z.string().max(1_000), tags: z.array(z.string().max(200)).max(100).optional() }),
  z.strictObject({ type: z.literal('note'), ...common, id: z.iso.date() }),
  memoryInputSchema.omit({ supersede_ids: true }).extend({ type: z.literal('memory'), id: itemIdSchema }),
  // kept for reading; an import counts them as skipped
  z.looseObject({ type: z.enum(['trace', 'episode', 'asset']) }),
]);
export type ExportedItem = z.output<typeof exportedItemSchema>;

/** What `kioku export --format jsonl` wrote, back in (POST /v1/import/items, kioku import jsonl FILE). */
export const importItemsRequestSchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  items: z.array(exportedItemSchema).min(1).max(500),
});

export interface ImportItemsAnswer {
  namespace: string;
  /** documents and memories appended (new or changed) */
  written: Record<'card' | 'wiki' | 'note' | 'memory', number>;
  /** the same content was there already: nothing appended */
  unchanged: number;
  skipped: Record<string, number>;
}

const MAX_DECISIONS = 20;

/** The event a document line becomes. */
function documentEvent(ns: string, item: Extract<ExportedItem, { type: 'card' | 'wiki' | 'note' }>): AppendInput {
  const source = item.source_path !== undefined ? { source_path: item.source_path } : {};
  if (item.type === 'note') return { type: 'note.upserted', ns, data: { date: item.id, content_hash: item.content_hash, sections: item.sections, ...source } };
  const tags = item.tags?.length ? { tags: item.tags } : {};
  if (item.type === 'wiki')
    return { type: 'wiki.upserted', ns, data: { topic_id: item.id, title: item.title, content_hash: item.content_hash, sections: item.sections, ...source, ...tags } };
  const relations = item.relations?.length ? { relations: item.relations } : {};
  return { type: 'card.upserted', ns, data: { id: item.id, title: item.title, content_hash: item.content_hash, sections: item.sections, ...source, ...tags, ...relations } };
}

/**
 * Write the memories, then append the documents that differ from what the namespace holds (decided
 * against projections caught up to the head, appended with that head expected on the knowledge
 * stream: another writer's knowledge in between means deciding again).
 */
/** A memory line of an import, as written (before the memory schema's defaults). */
export type ImportedMemory = z.input<typeof memoryInputSchema>;

export async function importItems(
  target: {
    knowledge: Knowledge;
    store: KnowledgeStore;
    actor: string;
    /** the door's write rules for memories (owner, audience, ids another member holds): may refuse */
    admitMemories?: (memories: ImportedMemory[]) => ImportedMemory[];
  },
  input: { ns: string; items: readonly ExportedItem[] },
): Promise<ImportItemsAnswer> {
  const { ns } = input;
  const written = { card: 0, wiki: 0, note: 0, memory: 0 };
  const skipped: Record<string, number> = {};
  let unchanged = 0;
  const documents: Extract<ExportedItem, { type: 'card' | 'wiki' | 'note' }>[] = [];
  const memories: z.input<typeof memoryInputSchema>[] = [];
  for (const item of input.items) {
    if (item.type === 'card' || item.type === 'wiki' || item.type === 'note') documents.push(item);
    else if (item.type === 'memory') {
      const { type: _t, ...memory } = item;
      memories.push(memory);
    } else skipped[item.type] = (skipped[item.type] ?? 0) + 1;
  }
  // memories first: their write is the one that refuses a line of valid shape (an id stored with
  // other text, an id twice), and it lands whole or not at all; documents appended before it
  // would stay in the log behind a refused batch
  if (memories.length) {
    const admitted = target.admitMemories ? target.admitMemories(memories) : memories;
    const result = await target.knowledge.writeMemories({ ns, memories: admitted });
    written.memory += result.written.length;
    unchanged += memories.length - result.written.length;
  }
  const { log, projections } = target.store;
  for (let tries = 1; documents.length > 0; tries++) {
    const seen = log.head().seq;
    await projections.waitFor(seen);
    const records = projections.views.records;
    const changed = documents.filter((d) => {
      const active = records.document(ns, d.type as Layer, d.id).filter((e) => e.status === 'active');
      return !(active.length > 0 && active.every((e) => e.doc_hash === d.content_hash));
    });
    try {
      const appended = await log.appendAll(
        changed.map((d) => ({ actor: target.actor, ...documentEvent(ns, d) })),
        { expectedHead: { seq: seen, types: KNOWLEDGE_EVENT_TYPES } },
      );
      if (appended.length) await projections.waitFor(appended.at(-1)?.seq ?? seen);
      for (const d of changed) written[d.type] += 1;
      unchanged += documents.length - changed.length;
      break;
    } catch (err) {
      if (!isKiokuError(err, 'KIOKU_LOG_CONFLICT') || tries >= MAX_DECISIONS) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(250, 2 ** tries)));
    }
  }
  return { namespace: ns, written, unchanged, skipped };
}
