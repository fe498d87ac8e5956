// What list_spaces, list_members, `kioku org list` and GET /v1/org answer: the namespace's org from
// the projection, and who the caller is in it. Without an org, empty with the reason (the seed: local
// mode answers empty with an explanation, never an error).
import { isOrg, memberByToken, memberSubtree, memberViews, spaceViews, type MemberView, type Org, type SpaceView } from './org.js';

export const NO_ORG_EXPLANATION =
  'This namespace has no org: Kioku runs for a single user here, so there are no spaces or other members. An org:admin (the local owner without tokens) adds them with `kioku org space add` and `kioku org member add`.';

export interface OrgAnswer {
  namespace: string;
  /** whether the namespace runs as a team (it has members) */
  org: boolean;
  spaces: SpaceView[];
  members: MemberView[];
  /** the member the caller acts as, and the spaces it may share with (its subtree) */
  you?: { member: string; subtree: string[] };
  explanation?: string;
}

export function orgAnswer(ns: string, org: Org, principal: string | undefined): OrgAnswer {
  const spaces = spaceViews(org);
  const members = memberViews(org);
  if (!isOrg(org) && spaces.length === 0) return { namespace: ns, org: false, spaces, members, explanation: NO_ORG_EXPLANATION };
  const me = principal === undefined ? undefined : memberByToken(org, principal);
  return {
    namespace: ns,
    org: isOrg(org),
    spaces,
    members,
    ...(me ? { you: { member: me.name, subtree: [...memberSubtree(org, me.name)].sort() } } : {}),
    ...(isOrg(org) ? {} : { explanation: 'This namespace has spaces but no members yet: add members with `kioku org member add`.' }),
  };
}

export type { MemberView, SpaceView };
