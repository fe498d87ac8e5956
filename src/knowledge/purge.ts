// Purge (issue 33, crypto-shredding): a memory, a session or a whole namespace made unreadable for
// good. The data keys of its erasure units are deleted from the key store (outside the chain), so
// the sealed texts in the log no longer open anywhere; then one `purged` event (one per 5,000 keys)
// names the items whose text is gone, so every projection drops them at once and a rebuild does the
// same. The chain itself is not touched: verify and earlier anchors hold. Forget hides an item;
// purge also destroys the means to read it.
import { z } from 'zod';
import type { AppendInput } from '../events/index.js';
import { namespaceSchema } from '../events/index.js';
import { KiokuError } from '../errors.js';
import { notFoundItem } from './audience.js';
import type { EventStore } from '../log/index.js';
import { unitMatcher, type SealKeyStore } from '../privacy/index.js';
import { evidenceKey, itemIdSchema, noteText } from './evidence.js';
import { removeUploads } from './asset-files.js';
import type { RecordEntry } from './item.js';
import type { KnowledgeRecords } from './read-model.js';

export const PURGE_SCOPES = ['memory', 'session', 'namespace'] as const;

export const purgeSchema = z.strictObject({
  ns: namespaceSchema,
  scope: z.enum(PURGE_SCOPES),
  /** the memory's or the session's id (not for a namespace: the call's own is purged) */
  id: itemIdSchema.optional(),
  reason: noteText(2_000).optional(),
});

export interface PurgeAnswer {
  scope: (typeof PURGE_SCOPES)[number];
  /** the memory's or session's id, or the namespace */
  target: string;
  /** data keys deleted */
  units: number;
  /** items whose text is gone */
  items: number;
  /** the seq of the last `purged` event appended */
  seq: number;
}

/** the layers whose texts are sealed (src/privacy/seal.ts): the items a purge can destroy */
const SEALED_LAYERS = new Set(['memory', 'trace', 'episode', 'asset']);
const KEYS_PER_EVENT = 5_000;

/** The items in scope and the unit names whose keys go: a pure decision over the records. */
export function decidePurge(records: KnowledgeRecords, p: z.output<typeof purgeSchema>): { items: RecordEntry[]; units: (unit: string) => boolean } {
  const ns = p.ns;
  if ((p.scope === 'namespace') !== (p.id === undefined))
    throw new KiokuError('KIOKU_INPUT_INVALID', 'purge: id: a memory or a session purge names its id; a namespace purge names none (the namespace of the call)', {
      details: { field: 'id' },
    });
  if (p.scope === 'memory') {
    const id = p.id as string;
    const entry = records.get(evidenceKey({ ns, layer: 'memory', id }));
    if (!entry) throw notFoundItem('memory', id, ns);
    return { items: [entry], units: unitMatcher('memory', ns, id) };
  }
  const all = [...records.all({ includeRetired: true })].filter((e) => e.ns === ns && SEALED_LAYERS.has(e.layer));
  if (p.scope === 'namespace') return { items: all, units: unitMatcher('namespace', ns, ns) };
  const session = p.id as string;
  const items = all.filter((e) => e.session_id === session);
  if (items.length === 0) throw notFoundItem('session', session, ns);
  // the session's turns, and the memories and episodes written in it (each their own unit)
  const names = new Set([`session:${ns}:${session}`, ...items.filter((e) => e.layer !== 'trace').map((e) => `${e.layer}:${ns}:${e.id}`)]);
  return { items, units: (unit) => names.has(unit) };
}

/** Delete the keys, then append the `purged` events naming the items (the keys go first: a crash in between leaves texts unreadable, never readable). */
export async function purge(
  /** `uploads`: the namespace's uploads folder (<data>/assets/<ns>): a namespace purge deletes the uploaded files' bytes with it */
  /** `noticesAbout`: the ids of the notices about these items (their sign-off notes are sealed under `notice:<ns>:<id>`) */
  deps: {
    records: KnowledgeRecords;
    keys: SealKeyStore;
    log: EventStore;
    actor: string;
    uploads?: string | undefined;
    noticesAbout?: (keys: readonly string[]) => string[];
  },
  p: z.output<typeof purgeSchema>,
): Promise<PurgeAnswer> {
  const { items, units } = decidePurge(deps.records, p);
  const notes = new Set((deps.noticesAbout?.(items.map((e) => e.key)) ?? []).map((id) => `notice:${p.ns}:${id}`));
  const deleted = deps.keys.purge((unit) => units(unit) || notes.has(unit));
  const keys = items.map((e) => e.key);
  const target = p.scope === 'namespace' ? p.ns : (p.id as string);
  const events: AppendInput[] = [];
  for (let i = 0; i === 0 || i < keys.length; i += KEYS_PER_EVENT) {
    const data = { scope: p.scope, target, keys: keys.slice(i, i + KEYS_PER_EVENT), units: i === 0 ? deleted.length : 0, ...(p.reason ? { reason: p.reason } : {}) };
    events.push({ type: 'purged', ns: p.ns, actor: deps.actor, data });
  }
  const appended = await deps.log.appendAll(events);
  // an asset's sealed path can no longer be read; its uploaded bytes would still be on disk
  if (p.scope === 'namespace' && deps.uploads !== undefined) await removeUploads(deps.uploads);
  return { scope: p.scope, target, units: deleted.length, items: keys.length, seq: appended[appended.length - 1]?.seq ?? 0 };
}
