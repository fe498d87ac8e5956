// Privacy as the facade answers it (issues 33, 34): forget an item, purge (crypto-shred) a memory,
// a session or a namespace, reveal a secret's value. Who may act is decided here against the
// audience policy (src/api/audience.ts, src/knowledge/audience.ts): an item's owner or an org
// admin; an item the caller cannot see is not found. The work is src/knowledge/ and src/privacy/'s.
import { z } from 'zod';
import { namespaceOf, type Access } from '../access.js';
import { actsAs, canSee, requireActor, requireNamespaceActor } from '../knowledge/audience.js';
import { evidenceKey, itemIdSchema } from '../knowledge/evidence.js';
import type { Knowledge } from '../knowledge/index.js';
import { forgetTargetOf } from '../knowledge/memory-ref.js';
import { purge as purgeSealed, type PurgeAnswer } from '../knowledge/purge.js';
import { parseInput } from '../knowledge/validate.js';
import { revealSecret, type RevealedSecret } from '../privacy/index.js';
import type { RecallContext } from '../recall/index.js';
import type { KiokuStore } from '../store.js';
import { wire, type ForgetInput, type PurgeInput, type RevealSecretInput } from '../wire.js';
import { orgCallerIn } from './audience.js';

export type ForgetAnswer = {
  id: string;
  /** false: it was forgotten already (nothing appended) */
  forgotten: boolean;
};

/** Forget a memory by id or key; a trace, an episode or an asset by its evidence key (issue 33). */
export function forgetItem(store: KiokuStore, knowledge: Knowledge, id: string, input: ForgetInput, access: Access): Promise<ForgetAnswer> {
  const { namespace, ...rest } = parseInput(wire.forget, input ?? {}, 'forget');
  const ns = namespaceOf(namespace, access);
  const target = forgetTargetOf(parseInput(z.strictObject({ id: itemIdSchema }), { id }, 'forget').id, ns, 'id');
  // only its owner (or an org admin) forgets an item; one the caller cannot see is not found (issue 34)
  const entry = store.projections.views.records.get(evidenceKey({ ns, layer: target.layer, id: target.id }));
  if (entry) requireActor([entry], orgCallerIn(store, ns, access), 'forget', target.layer, target.id);
  // the tombstone names who forgot it: a token's caller by its actor (`http:<token>`), not the door's name
  return knowledge.forgetParsed({ ...rest, ...target, ns, ...(access.principal !== undefined && access.actor ? { actor: access.actor } : {}) });
}

/**
 * Crypto-shred a memory, a session or the whole namespace: their data keys deleted (a namespace's
 * uploaded files with them: `uploadsOf` names its folder), a `purged` event appended, every projection
 * and snapshot rewritten without their text. `actor` is the facade's own, named when the caller has no token.
 */
export async function purgeItems(
  store: KiokuStore,
  input: PurgeInput,
  access: Access,
  actor: string,
  uploadsOf: (ns: string) => string | undefined,
): Promise<PurgeAnswer> {
  const { namespace, ...rest } = parseInput(wire.purge, input ?? {}, 'purge');
  const ns = namespaceOf(namespace, access);
  const { projections, privacy, log } = store;
  await projections.waitFor(log.head().seq);
  requirePurger(store, { ...rest, ns }, access);
  // the purged event (and tombstone) names a token's caller by its actor, as forget does; the door's bare name says nothing
  const by = (access.principal !== undefined ? access.actor : undefined) ?? actor;
  const uploads = uploadsOf(ns);
  const notices = projections.views.notices;
  const noticesAbout = (keys: readonly string[]): string[] => {
    const about = new Set(keys);
    return Object.values(notices.of(ns))
      .filter((n) => n.evidence_key !== undefined && about.has(n.evidence_key))
      .map((n) => n.notice_id);
  };
  const answer = await purgeSealed({ records: projections.views.records, keys: privacy.seal.keys, log, actor: by, uploads, noticesAbout }, { ...rest, ns });
  // the projections drop the text now, and their snapshots are written again without it
  await projections.waitFor(answer.seq);
  await projections.snapshotAll();
  return answer;
}

/** The value behind a secret's placeholder, from this machine's vault, to a caller on this machine who may see it. */
export function revealFor(store: KiokuStore, input: RevealSecretInput, access: RecallContext): RevealedSecret {
  const { namespace, ...rest } = parseInput(wire.revealSecret, input ?? {}, 'reveal secret');
  const ns = namespaceOf(namespace, access);
  return revealSecret(store.privacy.vault, { ...rest, ns }, access, (entry) => mayReveal(store, ns, entry, access));
}

/**
 * A secret is the audience of the items that hold it (issue 34): in an org it is revealed to a
 * member who wrote it (the vault keeps its writers) or who may see an item holding its placeholder.
 */
function mayReveal(store: KiokuStore, ns: string, entry: { id: string; by: readonly string[] }, access: Access): boolean {
  const caller = orgCallerIn(store, ns, access);
  if (caller === undefined || caller.all || entry.by.some((actor) => actsAs(actor, caller))) return true;
  const mark = `:${entry.id}⟧`;
  for (const e of store.projections.views.records.all()) if (e.ns === ns && e.text.includes(mark) && canSee(e, caller)) return true;
  return false;
}

/** Who may purge (issue 34): an item or a session only its owner, the whole namespace only an org admin; hidden ones are not found. */
function requirePurger(store: KiokuStore, p: { ns: string; scope: PurgeInput['scope']; id?: string | undefined }, access: Access): void {
  const caller = orgCallerIn(store, p.ns, access);
  if (p.scope === 'namespace') return requireNamespaceActor(caller, 'purge', p.ns);
  if (p.id === undefined) return; // refused by the purge itself
  const records = store.projections.views.records;
  const items =
    p.scope === 'memory'
      ? [records.get(evidenceKey({ ns: p.ns, layer: 'memory', id: p.id }))].filter((e) => e !== undefined)
      : [...records.all({ includeRetired: true })].filter((e) => e.ns === p.ns && e.session_id === p.id);
  if (items.length > 0) requireActor(items, caller, 'purge', p.scope, p.id);
}
