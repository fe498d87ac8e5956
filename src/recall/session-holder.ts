// Who holds a session or a turn (issue 34): the one rule turns, sessions and recall's session
// dialogue apply, so another member's session is used by none of them.
import type { OrgProjection } from '../../projections/org.js';
import type { Holder, TurnsProjection } from '../../projections/turns.js';
import type { Access } from '../access.js';
import { actsAs, orgCaller, type OrgCaller } from '../knowledge/audience.js';

/** What the turn rules read of the views. */
export interface TurnViews {
  turns: TurnsProjection;
  org: OrgProjection;
}

/**
 * Whether a session or turn is this caller's (issue 34): without an org, or for the local owner,
 * every one; in an org, one a member opened is that member's alone (an org admin included: admin
 * forgets and purges, it does not act in another's session), and one a token acting as no member
 * opened is that token's (by its actor). One opened before the org is the local owner's.
 */
export function holds(held: Holder, caller: OrgCaller | undefined, actor: string | undefined): boolean {
  if (caller === undefined || caller.all) return true;
  if (held.owner !== undefined) return held.owner === caller.member?.name;
  // no owner: a token's acting as no member, or written before sessions named theirs (its actor's member)
  return held.actor !== undefined && (caller.member === undefined ? held.actor === actor : actsAs(held.actor, caller));
}

export const callerIn = (views: TurnViews, ns: string, access: Access): OrgCaller | undefined =>
  orgCaller(views.org.org(ns), access.principal, access.orgAdmin === true);

/** Whether session `id` of namespace `ns` exists and is the caller's (a missing and a hidden one alike: false). */
export function heldSession(views: TurnViews, ns: string, id: string, access: Access): boolean {
  const session = views.turns.session(ns, id);
  return session !== undefined && holds(session, callerIn(views, ns, access), access.actor);
}

/**
 * Whether session `id` of namespace `ns` is someone else's (it exists and the caller does not hold it):
 * a plain recall naming it is answered as one with no session (it neither reads what that session was
 * handed nor records a delivery under it), which is how it answers for a session id nobody opened.
 */
export function othersSession(views: TurnViews, ns: string, id: string, access: Access): boolean {
  const session = views.turns.session(ns, id);
  return session !== undefined && !holds(session, callerIn(views, ns, access), access.actor);
}
