// The team (issue 34): a namespace's space tree and its members, folded from org.* events. A
// namespace with at least one member is an org; one without is single-user Kioku, unchanged. A
// member is reached by the names of its tokens (the auth file's `name`), never by a token itself.
// Pure: the fold (`evolveOrg`) and the questions asked of it; projections/org.ts holds the state.
import type { EventData, LogRecord } from '../events/index.js';

export interface OrgSpace {
  name: string;
  parent?: string;
  title?: string;
}

export interface OrgMember {
  name: string;
  /** names of the auth file's tokens that act as this member */
  tokens: string[];
  /** the spaces the member belongs to, in the order joined */
  spaces: string[];
  display_name?: string;
}

/** One namespace's org. */
export interface Org {
  spaces: Record<string, OrgSpace>;
  members: Record<string, OrgMember>;
}

export type OrgState = Record<string, Org>;

export const ORG_EVENT_TYPES = [
  'org.space_added',
  'org.space_moved',
  'org.space_removed',
  'org.member_added',
  'org.member_removed',
  'org.member_joined',
  'org.member_left',
] as const;

const EMPTY_ORG: Org = Object.freeze({ spaces: Object.freeze({}), members: Object.freeze({}) }) as Org;

/** Fold one record into the state (events were decided against the state, so each applies as written). */
export function evolveOrg(state: OrgState, record: LogRecord): void {
  if (!record.type.startsWith('org.')) return;
  const org = (state[record.ns] ??= { spaces: {}, members: {} });
  switch (record.type) {
    case 'org.space_added': {
      const d = record.data as EventData<'org.space_added'>;
      org.spaces[d.space] = { name: d.space, ...(d.parent ? { parent: d.parent } : {}), ...(d.title ? { title: d.title } : {}) };
      break;
    }
    case 'org.space_moved': {
      const d = record.data as EventData<'org.space_moved'>;
      const s = org.spaces[d.space];
      if (s && d.parent) s.parent = d.parent;
      else if (s) delete s.parent;
      break;
    }
    case 'org.space_removed':
      delete org.spaces[(record.data as EventData<'org.space_removed'>).space];
      break;
    case 'org.member_added': {
      const d = record.data as EventData<'org.member_added'>;
      org.members[d.member] = { name: d.member, tokens: [...d.tokens], spaces: [], ...(d.display_name ? { display_name: d.display_name } : {}) };
      break;
    }
    case 'org.member_removed':
      delete org.members[(record.data as EventData<'org.member_removed'>).member];
      break;
    case 'org.member_joined': {
      const d = record.data as EventData<'org.member_joined'>;
      const m = org.members[d.member];
      if (m && !m.spaces.includes(d.space)) m.spaces.push(d.space);
      break;
    }
    case 'org.member_left': {
      const d = record.data as EventData<'org.member_left'>;
      const m = org.members[d.member];
      if (m) m.spaces = m.spaces.filter((s) => s !== d.space);
      break;
    }
  }
}

/** A namespace's org (empty when it has none). */
export function orgOf(state: OrgState, ns: string): Org {
  return state[ns] ?? EMPTY_ORG;
}

/** Whether a namespace runs as a team: it has at least one member. */
export function isOrg(org: Org): boolean {
  return Object.keys(org.members).length > 0;
}

/** The member a token (by its name in the auth file) acts as, if any. */
export function memberByToken(org: Org, tokenName: string): OrgMember | undefined {
  return Object.values(org.members).find((m) => m.tokens.includes(tokenName));
}

/** A space and every space below it. */
export function spaceSubtree(org: Org, roots: readonly string[]): Set<string> {
  const out = new Set<string>(roots.filter((r) => org.spaces[r]));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of Object.values(org.spaces))
      if (s.parent !== undefined && out.has(s.parent) && !out.has(s.name)) {
        out.add(s.name);
        grew = true;
      }
  }
  return out;
}

/** A space's ancestors, nearest first (a cycle cannot be folded: the decider refuses the move that would make one). */
export function ancestorsOf(org: Org, space: string): string[] {
  const out: string[] = [];
  for (let p = org.spaces[space]?.parent; p !== undefined && !out.includes(p); p = org.spaces[p]?.parent) out.push(p);
  return out;
}

/** The spaces a member may share with: the spaces it belongs to and every space below them. */
export function memberSubtree(org: Org, member: string): Set<string> {
  return spaceSubtree(org, org.members[member]?.spaces ?? []);
}

/**
 * The spaces whose shared items a member sees: its subtree (what it could share with itself) and
 * the spaces above its own (what a department shares reaches its teams).
 */
export function spacesSeenBy(org: Org, member: string): Set<string> {
  const seen = memberSubtree(org, member);
  for (const s of org.members[member]?.spaces ?? []) for (const a of ancestorsOf(org, s)) seen.add(a);
  return seen;
}

/** A space with its place in the tree, as list_spaces answers. */
export interface SpaceView {
  name: string;
  parent?: string;
  title?: string;
  /** root first, the space last */
  path: string[];
  members: string[];
}

export function spaceViews(org: Org): SpaceView[] {
  return Object.values(org.spaces)
    .map((s) => ({
      name: s.name,
      ...(s.parent ? { parent: s.parent } : {}),
      ...(s.title ? { title: s.title } : {}),
      path: [...ancestorsOf(org, s.name).reverse(), s.name],
      members: Object.values(org.members)
        .filter((m) => m.spaces.includes(s.name))
        .map((m) => m.name)
        .sort(),
    }))
    .sort((a, b) => (a.path.join('/') < b.path.join('/') ? -1 : 1));
}

/** A member as list_members answers (its token names are the operator's business: counted, not listed). */
export interface MemberView {
  name: string;
  display_name?: string;
  spaces: string[];
  tokens: number;
}

export function memberViews(org: Org): MemberView[] {
  return Object.values(org.members)
    .map((m) => ({ name: m.name, ...(m.display_name ? { display_name: m.display_name } : {}), spaces: [...m.spaces], tokens: m.tokens.length }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}
