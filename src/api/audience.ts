// The audience policy (issue 34) as the facade applies it to one request: who the caller is in
// the namespace's org, what it may see (items, keys, recorded turns) and what it may write. The
// rules are src/knowledge/audience.ts's; this module only reads the org and records projections
// for them, so every facade area (items, privacy, writes, reports) asks the same questions here.
import type { Access } from '../access.js';
import { KiokuError } from '../errors.js';
import type { LogRecord } from '../events/index.js';
import { evidenceKey } from '../knowledge/evidence.js';
import { canSee, decideAudience, decideOwner, orgCaller, requireActor, type AudienceInput, type OrgCaller } from '../knowledge/audience.js';
import type { KiokuStore } from '../store.js';

/** An item as the audience policy reads it. */
export type Visible = (e: { owner?: string | undefined; audience?: readonly string[] | undefined }) => boolean;

/** Who asks within the namespace's org (src/knowledge/audience.ts): undefined without an org. */
export function orgCallerIn(store: KiokuStore, ns: string, access: Access): OrgCaller | undefined {
  return orgCaller(store.projections.views.org.org(ns), access.principal, access.orgAdmin === true);
}

/** The audience policy as a filter over items (undefined: nothing to filter, no org or the local owner). */
export function visibleIn(store: KiokuStore, ns: string, access: Access): Visible | undefined {
  const caller = orgCallerIn(store, ns, access);
  return caller === undefined || caller.all ? undefined : (e) => canSee(e, caller);
}

/** Whether the caller may see the item under `key` (one unknown to the records is no one's to hide). */
export function visibleKey(store: KiokuStore, key: string, ns: string, access: Access): boolean {
  const entry = store.projections.views.records.get(key);
  return entry === undefined || canSee(entry, orgCallerIn(store, ns, access));
}

/**
 * The audience policy over recorded turns (replay, the delivery report): a record of a turn is the
 * caller's when its trace is visible to it; a recall without a turn when its token acts as the caller.
 */
export function recordVisible(store: KiokuStore, ns: string, access: Access): ((r: LogRecord) => boolean) | undefined {
  const caller = orgCallerIn(store, ns, access);
  if (caller === undefined || caller.all) return undefined;
  return (r) => {
    const turnId = (r.data as { turn_id?: unknown }).turn_id;
    if (typeof turnId === 'string') return visibleKey(store, evidenceKey({ ns, layer: 'trace', id: turnId }), ns, access);
    const token = r.actor.slice(r.actor.indexOf(':') + 1);
    return r.actor.includes(':') && caller.member !== undefined && caller.member.tokens.includes(token);
  };
}

/** Memories as the writer may write them in an org: owned by its member, audience within its subtree (refused whole otherwise). */
export function ownedWrites<M extends { owner?: string | undefined; audience?: AudienceInput | undefined }>(
  store: KiokuStore,
  memories: M[],
  ns: string,
  access: Access,
): M[] {
  const caller = orgCallerIn(store, ns, access);
  return memories.map((m, i) => {
    // the audience first: a token acting as no member that widens one is told that (then, that it may not write)
    const audience = decideAudience(m.audience, caller, `memories.${i}.audience`, 'write memories');
    const owner = decideOwner(m.owner, caller, `memories.${i}.owner`, 'write memories');
    return { ...m, ...(owner !== undefined ? { owner } : {}), ...(audience !== undefined ? { audience } : {}) };
  });
}

/**
 * A write may not reach items the caller cannot see (issue 34): an id taken by such an item is
 * refused as taken, saying nothing of it (not its content, not whether a repeat would match); a
 * memory it supersedes must be the caller's own, as for forget.
 */
export function requireWritable(
  store: KiokuStore,
  memories: readonly { id?: string | undefined; supersede_ids: readonly string[] }[],
  ns: string,
  access: Access,
): void {
  const caller = orgCallerIn(store, ns, access);
  if (caller === undefined || caller.all) return;
  const records = store.projections.views.records;
  memories.forEach((m, i) => {
    const taken = m.id === undefined ? undefined : records.get(evidenceKey({ ns, layer: 'memory', id: m.id }));
    if (taken && !canSee(taken, caller))
      throw new KiokuError('KIOKU_ID_CONFLICT', `write memories: memories.${i}.id: "${m.id as string}" is taken; choose another id`, {
        details: { field: `memories.${i}.id`, id: m.id },
      });
    for (const old of m.supersede_ids) {
      const entry = records.get(evidenceKey({ ns, layer: 'memory', id: old }));
      if (entry) requireActor([entry], caller, 'supersede', 'memory', old);
    }
  });
}
