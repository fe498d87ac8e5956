// Changes to a namespace's org, decided before anything is appended: `decideOrg(org, change)`
// answers the events the change means (none when it changes nothing) or refuses it whole.
// Pure (architecture.md §events: the log holds the org; this only decides what to append).
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { orgName, namespaceSchema, type AppendInput } from '../events/index.js';
import type { EventStore } from '../log/index.js';
import { ancestorsOf, ORG_EVENT_TYPES, type Org } from './org.js';

export const ORG_ACTIONS = ['space_add', 'space_move', 'space_remove', 'member_add', 'member_remove', 'member_join', 'member_leave'] as const;
export type OrgAction = (typeof ORG_ACTIONS)[number];

/** One change to the org: what each action needs is checked by decideOrg (a flat object, so every door can send it). */
export const orgChangeSchema = z.strictObject({
  ns: namespaceSchema,
  action: z.enum(ORG_ACTIONS),
  /** the space added, moved, removed, joined or left */
  space: orgName.optional(),
  /** space_add, space_move: the space above (absent: a top-level space) */
  parent: orgName.optional(),
  title: z.string().min(1).max(200).optional(),
  /** the member added, removed, joining or leaving */
  member: orgName.optional(),
  /** member_add: the names of the auth file's tokens that act as this member (default: the member's own name) */
  tokens: z.array(z.string().min(1).max(200)).min(1).max(20).optional(),
  display_name: z.string().min(1).max(200).optional(),
});
export type OrgChange = z.output<typeof orgChangeSchema>;

type OrgEvent = AppendInput;

function need<K extends 'space' | 'member'>(change: OrgChange, field: K): string {
  const v = change[field];
  if (v === undefined)
    throw new KiokuError('KIOKU_INPUT_INVALID', `org ${change.action}: ${field} is required`, { details: { field } });
  return v;
}

function spaceOf(org: Org, name: string, field = 'space'): void {
  if (!org.spaces[name]) throw new KiokuError('KIOKU_NOT_FOUND', `no space "${name}" in this org`, { details: { field, value: name } });
}

function memberOf(org: Org, name: string): void {
  if (!org.members[name]) throw new KiokuError('KIOKU_NOT_FOUND', `no member "${name}" in this org`, { details: { field: 'member', value: name } });
}

function decideSpace(org: Org, change: OrgChange): OrgEvent[] {
  const space = need(change, 'space');
  const parent = change.parent;
  switch (change.action) {
    case 'space_add': {
      if (parent !== undefined) spaceOf(org, parent, 'parent');
      const have = org.spaces[space];
      if (have) {
        if (have.parent === parent) return [];
        throw new KiokuError('KIOKU_ID_CONFLICT', `space "${space}" exists already (under ${have.parent ?? 'the top'}): move it instead`, {
          details: { field: 'space', value: space },
        });
      }
      return [{ type: 'org.space_added', data: { space, ...(parent ? { parent } : {}), ...(change.title ? { title: change.title } : {}) } }];
    }
    case 'space_move': {
      spaceOf(org, space);
      if (parent !== undefined) {
        spaceOf(org, parent, 'parent');
        if (parent === space || ancestorsOf(org, parent).includes(space))
          throw new KiokuError('KIOKU_INPUT_INVALID', `space "${space}" cannot move below itself ("${parent}" is in its subtree)`, {
            details: { field: 'parent', value: parent },
          });
      }
      if (org.spaces[space]?.parent === parent) return [];
      return [{ type: 'org.space_moved', data: { space, ...(parent ? { parent } : {}) } }];
    }
    default: {
      spaceOf(org, space);
      const child = Object.values(org.spaces).find((s) => s.parent === space);
      const member = Object.values(org.members).find((m) => m.spaces.includes(space));
      if (child || member)
        throw new KiokuError(
          'KIOKU_INPUT_INVALID',
          `space "${space}" is not empty (${child ? `space "${child.name}" is below it` : `member "${member?.name}" belongs to it`}): move or remove those first`,
          { details: { field: 'space', value: space } },
        );
      return [{ type: 'org.space_removed', data: { space } }];
    }
  }
}

function decideMember(org: Org, change: OrgChange): OrgEvent[] {
  const member = need(change, 'member');
  switch (change.action) {
    case 'member_add': {
      const tokens = change.tokens ?? [member];
      for (const m of Object.values(org.members)) {
        const shared = tokens.find((t) => m.tokens.includes(t));
        if (m.name !== member && shared !== undefined)
          throw new KiokuError('KIOKU_ID_CONFLICT', `token "${shared}" already acts as member "${m.name}"`, { details: { field: 'tokens', value: shared } });
      }
      const have = org.members[member];
      if (have) {
        if (have.tokens.join('\n') === tokens.join('\n')) return [];
        throw new KiokuError('KIOKU_ID_CONFLICT', `member "${member}" exists already with other tokens`, { details: { field: 'member', value: member } });
      }
      return [{ type: 'org.member_added', data: { member, tokens, ...(change.display_name ? { display_name: change.display_name } : {}) } }];
    }
    case 'member_remove':
      if (!org.members[member]) return [];
      return [{ type: 'org.member_removed', data: { member } }];
    case 'member_join': {
      memberOf(org, member);
      const space = need(change, 'space');
      spaceOf(org, space);
      return org.members[member]?.spaces.includes(space) ? [] : [{ type: 'org.member_joined', data: { member, space } }];
    }
    default: {
      memberOf(org, member);
      const space = need(change, 'space');
      return org.members[member]?.spaces.includes(space) ? [{ type: 'org.member_left', data: { member, space } }] : [];
    }
  }
}

/** The events a change means against the namespace's org now; [] when it changes nothing; a refusal appends nothing. */
export function decideOrg(org: Org, change: OrgChange): OrgEvent[] {
  return change.action.startsWith('space_') ? decideSpace(org, change) : decideMember(org, change);
}

/** What a change to the org answers: the events appended (none when it changed nothing). */
export interface OrgChangeAnswer {
  namespace: string;
  action: OrgAction;
  changed: boolean;
  seq?: number;
}

/** The store an org change decides against and appends to (the facade's log and org view). */
export interface OrgWriteStore {
  log: EventStore;
  /** the namespace's org with every appended event folded in */
  orgAt(ns: string): Promise<Org>;
}

/**
 * Decide against the org as it stands at the head and append with that head as expected for org
 * events: another writer's org change in between (another node) means decide again.
 */
export async function commitOrgChange(store: OrgWriteStore, change: OrgChange, actor: string): Promise<OrgChangeAnswer> {
  for (let tries = 1; ; tries++) {
    const seen = store.log.head().seq;
    const events = decideOrg(await store.orgAt(change.ns), change);
    if (events.length === 0) return { namespace: change.ns, action: change.action, changed: false };
    try {
      const appended = await store.log.appendAll(
        events.map((e) => ({ ...e, ns: change.ns, actor })),
        { expectedHead: { seq: seen, types: ORG_EVENT_TYPES } },
      );
      return { namespace: change.ns, action: change.action, changed: true, seq: appended.at(-1)?.seq ?? seen };
    } catch (err) {
      if (!(err instanceof KiokuError && err.code === 'KIOKU_LOG_CONFLICT') || tries >= 20) throw err;
    }
  }
}
