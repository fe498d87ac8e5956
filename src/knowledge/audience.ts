// Who a memory is for, and who may see an item: the one audience policy (issue 34). Every read
// path asks `canSee`, every write of an audience asks `decideAudience`; nothing else decides it.
//
// Stored form (memory.written / memory.audience_set `audience`): [] or ["me"] = its owner only
// (the default); "org" = every member of the namespace's org; "space:<name>" = that space's
// members, the members of the spaces below it, and of the spaces above it (a department's share
// reaches its teams, a team's share its department). Asked for as the seed names it: {org: true}
// or {spaces: [...]}, or as those strings.
//
// Without an org (a namespace with no members) Kioku runs for a single user: the audience can only
// be the owner, and naming anyone else is refused, never stored and silently ignored (the notebook
// seed: audience arguments are refused in local mode); every item is visible, as before.
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { DEFAULT_NAMESPACE, orgName } from '../events/index.js';
import { isOrg, memberByToken, memberSubtree, spacesSeenBy, type Org, type OrgMember } from './org.js';

/** The one audience entry single-user Kioku accepts: the caller, who owns every memory. */
export const SELF_AUDIENCE = 'me';
export const ORG_AUDIENCE = 'org';
export const SPACE_PREFIX = 'space:';

/** An audience as a request gives it: the seed's object, or the stored strings. */
export const audienceInputSchema = z.union([
  z.array(z.string().min(1).max(200)).max(100),
  z
    .strictObject({ org: z.boolean().optional(), spaces: z.array(orgName).max(100).optional() })
    .refine((o) => o.org !== undefined || o.spaces !== undefined, 'give org or spaces (an empty object names no audience)'),
]);
export type AudienceInput = z.output<typeof audienceInputSchema>;

/** The stored strings of an audience asked for in either form (not yet checked). */
export function audienceEntries(input: AudienceInput | undefined): string[] | undefined {
  if (input === undefined || Array.isArray(input)) return input;
  return [...(input.org ? [ORG_AUDIENCE] : []), ...(input.spaces ?? []).map((s) => `${SPACE_PREFIX}${s}`)];
}

/** Whether an entry widens beyond the owner (org or a space): what single-user Kioku refuses. */
export const widens = (entry: string): boolean => entry === ORG_AUDIENCE || entry.startsWith(SPACE_PREFIX);

/** Refuse an audience naming anyone but the caller; `field` is the request's name for it, `what` the command. */
export function requireOwnAudience(audience: readonly string[] | undefined, field: string, what: string): void {
  const other = audience?.find((a) => a !== SELF_AUDIENCE);
  if (other === undefined) return;
  throw new KiokuError(
    'KIOKU_AUDIENCE_REFUSED',
    `${what}: ${field}: "${other.slice(0, 80)}" is not you: this namespace has no org (Kioku runs for a single user here), so a memory's audience can only be you ([] or ["${SELF_AUDIENCE}"])`,
    { details: { field, value: other.slice(0, 200) } },
  );
}

/** What the knowledge commands store, decided already by the facade: only the stored forms pass (a direct write naming a member is refused). */
export function requireStoredAudience(input: AudienceInput | undefined, field: string, what: string): string[] | undefined {
  const entries = audienceEntries(input);
  requireOwnAudience(entries?.filter((e) => !widens(e)), field, what);
  return entries;
}

/**
 * Who asks, within a namespace's org: `undefined` when the namespace has no org (single user: no
 * filtering, nothing marked). `member` is absent for the anonymous local owner and for a caller
 * in-process without a token (who see everything: `all`), and for a token acting as no member
 * (who sees only what has no owner — and, holding org:admin, what is shared with the whole org).
 */
export interface OrgCaller {
  org: Org;
  member?: OrgMember;
  /** the local owner (no token): sees every item, may share with any space */
  all: boolean;
  /** spaces whose shared items this caller sees */
  seen: ReadonlySet<string>;
  /** holds org:admin: may forget or purge any member's item, and the whole namespace (a member sees no more for it; a token acting as no member sees what is shared with the whole org) */
  admin?: boolean;
}

/** The caller in a namespace's org from its token's name (`principal`: absent = the anonymous local owner); `admin`: its token holds org:admin. */
export function orgCaller(org: Org, principal: string | undefined, admin = false): OrgCaller | undefined {
  if (!isOrg(org)) return undefined;
  if (principal === undefined) return { org, all: true, seen: new Set(Object.keys(org.spaces)) };
  const member = memberByToken(org, principal);
  const base = member ? { org, member, all: false, seen: spacesSeenBy(org, member.name) } : { org, all: false, seen: new Set<string>() };
  return admin ? { ...base, admin } : base;
}

/** Whether a log record's actor (`<door>:<token name>`) is this caller's member: who wrote it. */
export function actsAs(actor: string, caller: OrgCaller): boolean {
  const colon = actor.indexOf(':');
  return colon > 0 && caller.member !== undefined && caller.member.tokens.includes(actor.slice(colon + 1));
}

/** What the audience policy reads of an item (`ns`: its namespace, named when it is not found). */
export interface Audienced {
  owner?: string | undefined;
  audience?: readonly string[] | undefined;
  ns?: string | undefined;
}

/**
 * The one "not found" of an item: a missing item and one the caller may not see get this same
 * answer (message, code and details), so the answer tells nothing of what is hidden (issue 34).
 */
export function notFoundItem(noun: string, id: string, ns: string | undefined, field = 'id'): KiokuError {
  return new KiokuError('KIOKU_NOT_FOUND', `no ${noun} "${id}" in namespace ${ns ?? DEFAULT_NAMESPACE}`, { details: { field, id } });
}

/**
 * The one rule: may this caller see this item? Items without an owner (documents, writes of the
 * local owner) are the namespace's: every caller of it sees them. A member's item is its owner's,
 * and whoever its audience names. A token acting as no member of the org is no one's audience: it
 * sees no member's item — only, with org:admin, what is shared with the whole org. The local owner
 * (no token) sees everything.
 */
export function canSee(item: Audienced, caller: OrgCaller | undefined): boolean {
  if (caller === undefined || caller.all || item.owner === undefined) return true;
  if (caller.member === undefined) return caller.admin === true && item.audience?.includes(ORG_AUDIENCE) === true;
  if (item.owner === caller.member.name) return true;
  for (const a of item.audience ?? []) {
    if (a === ORG_AUDIENCE) return true;
    if (a.startsWith(SPACE_PREFIX) && caller.seen.has(a.slice(SPACE_PREFIX.length))) return true;
  }
  return false;
}

/**
 * Whether every caller sees both items or neither (same owner and the same audience; [] and ["me"]
 * are both the owner only). What lends one item's words or score to another — a conversation's
 * neighbours, a window vector embedded from several texts — keeps to such pairs: else a caller who
 * sees one item would find it by the words of one it may not see.
 */
export function sameReaders(a: Audienced, b: Audienced): boolean {
  if (a.owner !== b.owner) return false;
  if (!a.audience?.length && !b.audience?.length) return true; // most items: no allocation (the indexer asks for every pair)
  const wide = (x: Audienced): string => [...new Set((x.audience ?? []).filter((e) => e !== SELF_AUDIENCE))].sort().join('\n');
  return wide(a) === wide(b);
}

/** `owner` and `mine` for an answer (in an org only): mine is false for an item someone else owns. */
export function ownerMark(item: Audienced, caller: OrgCaller | undefined): { owner?: string; mine: boolean } | undefined {
  if (caller === undefined) return undefined;
  const mine = item.owner === undefined ? caller.member === undefined : item.owner === caller.member?.name;
  return { ...(item.owner !== undefined ? { owner: item.owner } : {}), mine };
}

/**
 * Check an audience a writer asks for and answer its stored form. Without an org only the owner;
 * in an org: "org" for a member (or the local owner), spaces only within the writer's own subtree
 * (the spaces it belongs to and those below them; the local owner: any space). A refusal refuses
 * the whole write (nothing appended), naming the entry.
 */
export function decideAudience(input: AudienceInput | undefined, caller: OrgCaller | undefined, field: string, what: string): string[] | undefined {
  const entries = audienceEntries(input);
  if (caller === undefined) {
    requireOwnAudience(entries, field, what);
    return entries;
  }
  const refuse = (entry: string, why: string): never => {
    throw new KiokuError('KIOKU_AUDIENCE_REFUSED', `${what}: ${field}: "${entry.slice(0, 80)}" ${why}`, { details: { field, value: entry.slice(0, 200) } });
  };
  if (!caller.all && caller.member === undefined && entries?.some((e) => e !== SELF_AUDIENCE))
    refuse(entries.find((e) => e !== SELF_AUDIENCE) as string, 'is refused: this token acts as no member of the org (kioku org member add), so it cannot widen an audience');
  const subtree = caller.member ? memberSubtree(caller.org, caller.member.name) : new Set(Object.keys(caller.org.spaces));
  const out: string[] = [];
  for (const e of entries ?? []) {
    const space = e.startsWith(SPACE_PREFIX) ? e.slice(SPACE_PREFIX.length) : caller.org.spaces[e] ? e : undefined;
    if (e === SELF_AUDIENCE || e === ORG_AUDIENCE) out.push(e);
    else if (space === undefined) refuse(e, 'is no space of this org: an audience is {org: true} or {spaces: [...]} (list_spaces), never a member');
    else if (!caller.org.spaces[space]) refuse(e, 'is no space of this org (list_spaces names them)');
    else if (!subtree.has(space)) refuse(e, `is outside your subtree: you may share with ${[...subtree].sort().join(', ') || 'no space'} (or the whole org)`);
    else out.push(`${SPACE_PREFIX}${space}`);
  }
  return [...new Set(out)];
}

/**
 * The member a write is recorded for (memories, episodes, assets): none without an org or for the
 * local owner; in an org, a token acting as no member is refused (KIOKU_FORBIDDEN): what it wrote
 * would be nobody's — shown to every member, and removable by none but an admin (issue 34).
 */
export function writerOf(caller: OrgCaller | undefined, what: string): string | undefined {
  if (caller === undefined || caller.all) return undefined;
  if (caller.member === undefined)
    throw new KiokuError('KIOKU_FORBIDDEN', `${what}: this token acts as no member of the namespace's org: map this token to a member (kioku org member add) before it writes`, {
      details: { field: 'token' },
    });
  return caller.member.name;
}

/** The owner recorded for a write: the writer's member in an org (a token acting as no member is refused); a request naming another owner is refused. */
export function decideOwner(asked: string | undefined, caller: OrgCaller | undefined, field: string, what: string): string | undefined {
  if (writerOf(caller, what) === undefined || caller?.member === undefined) return asked;
  if (asked !== undefined && asked !== caller.member.name)
    throw new KiokuError('KIOKU_AUDIENCE_REFUSED', `${what}: ${field}: "${asked.slice(0, 80)}" is not you: what you write is yours (${caller.member.name})`, {
      details: { field, value: asked.slice(0, 200) },
    });
  return caller.member.name;
}

/** Only its owner changes who sees an item (the local owner may change any): one the caller cannot see is not found. */
export function requireOwner(item: (Audienced & { key: string }) | undefined, caller: OrgCaller | undefined, what: string, id: string): void {
  if (caller === undefined || item === undefined || caller.all) return;
  if (!canSee(item, caller)) throw notFoundItem('memory', id, item.ns);
  if (item.owner === undefined || item.owner !== caller.member?.name)
    throw new KiokuError('KIOKU_FORBIDDEN', `${what}: memory "${id}" is ${item.owner ?? "the namespace's"}, not yours: only its owner changes who sees it`, {
      details: { field: 'id', id, ...(item.owner !== undefined ? { owner: item.owner } : {}) },
    });
}

/**
 * Who may act on items beyond seeing them — forget, purge, supersede (an act that hides or destroys
 * them for everyone): each item's owner, a holder of org:admin, or the local owner; single user:
 * anyone with write scope, as before. An item the caller cannot see is not found (none of them
 * seen: 404, no existence oracle); one it sees but does not own is refused naming its owner.
 * `noun` and `target` name what was asked for ("memory", "A-own"; "session", "s-1").
 */
export function requireActor(items: readonly Audienced[], caller: OrgCaller | undefined, what: string, noun: string, target: string): void {
  if (caller === undefined || caller.all || caller.admin === true) return;
  const seen = items.filter((i) => canSee(i, caller));
  if (seen.length < items.length && (seen.length === 0 || noun !== 'session')) throw notFoundItem(noun, target, items[0]?.ns);
  const notMine = (i: Audienced): boolean => i.owner === undefined || i.owner !== caller.member?.name;
  if (!items.some(notMine)) return;
  // named only when the caller may see it: a hidden item's owner is not told
  const other = seen.find(notMine);
  const whose = other === undefined ? "other members'" : other.owner ? `${other.owner}'s` : "the namespace's";
  throw new KiokuError(
    'KIOKU_FORBIDDEN',
    `${what}: ${noun} "${target}" ${noun === 'session' ? 'holds items that are' : 'is'} ${whose}, not yours: only its owner (or an org admin, org:admin) may ${what} it`,
    { details: { field: 'id', id: target, ...(other?.owner !== undefined ? { owner: other.owner } : {}) } },
  );
}

/** A whole namespace is every member's: in an org only an org admin (or the local owner) acts on all of it. */
export function requireNamespaceActor(caller: OrgCaller | undefined, what: string, ns: string): void {
  if (caller === undefined || caller.all || caller.admin === true) return;
  throw new KiokuError('KIOKU_FORBIDDEN', `${what}: namespace "${ns}" holds every member's items: only an org admin (a token with org:admin) may ${what} it whole`, {
    details: { field: 'scope', namespace: ns },
  });
}
