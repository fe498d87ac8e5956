// org: each namespace's space tree and members (issue 34), folded from org.* events by the pure
// fold of src/knowledge/org.ts. The typed lookup the rest of Kioku asks: is this namespace an
// org, which member does a token act as, which spaces does a member reach.
import type { LogRecord } from '../src/events/index.js';
import {
  evolveOrg,
  isOrg,
  memberByToken,
  memberSubtree,
  memberViews,
  orgOf,
  ORG_EVENT_TYPES,
  spaceViews,
  type MemberView,
  type Org,
  type OrgMember,
  type OrgState,
  type SpaceView,
} from '../src/knowledge/org.js';
import { PlainStateProjection } from './projection.js';

export class OrgProjection extends PlainStateProjection<OrgState> {
  readonly name = 'org';
  readonly version = 1;
  readonly types: ReadonlySet<string> = new Set(ORG_EVENT_TYPES);

  constructor() {
    super(() => ({}));
  }

  apply(record: LogRecord): void {
    evolveOrg(this.state, record);
  }

  /** A namespace's org as it stands (empty when it has none). */
  org(ns: string): Org {
    return orgOf(this.state, ns);
  }

  /** Whether a namespace runs as a team (at least one member). */
  isOrg(ns: string): boolean {
    return isOrg(this.org(ns));
  }

  spaces(ns: string): SpaceView[] {
    return spaceViews(this.org(ns));
  }

  members(ns: string): MemberView[] {
    return memberViews(this.org(ns));
  }

  /** The member a token acts as (by the token's name in the auth file). */
  memberOf(ns: string, tokenName: string): OrgMember | undefined {
    return memberByToken(this.org(ns), tokenName);
  }

  /** A member by name. */
  memberByName(ns: string, name: string): OrgMember | undefined {
    return this.org(ns).members[name];
  }

  /** The spaces a member may share with: its own and every space below them. */
  subtree(ns: string, member: string): string[] {
    return [...memberSubtree(this.org(ns), member)].sort();
  }
}
