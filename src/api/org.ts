// The namespace's org (issue 34) as the facade answers it: its space tree and members with who the
// caller is in it, and a change to it (a space or a member) appended as org events. The deciders
// are src/knowledge/org-decide.ts and org-answer.ts; this module settles the namespace, checks a
// new member's tokens against the auth file and waits for the org projection to catch up.
import { namespaceOf, type Access } from '../access.js';
import { KiokuError } from '../errors.js';
import { commitOrgChange, type OrgChangeAnswer } from '../knowledge/org-decide.js';
import { orgAnswer, type OrgAnswer } from '../knowledge/org-answer.js';
import { parseInput } from '../knowledge/validate.js';
import type { KiokuStore } from '../store.js';
import { wire, type InNamespaceInput, type OrgChangeInput } from '../wire.js';

/** The namespace's space tree and members, and who the caller is in it; empty, with the reason, without one. */
export function orgOf(store: KiokuStore, input: InNamespaceInput, access: Access): OrgAnswer {
  const ns = namespaceOf(input.namespace, access);
  return orgAnswer(ns, store.projections.views.org.org(ns), access.principal);
}

/** Change the namespace's org by appending org events, under `actor`; answers once the org projection holds them. */
export async function changeOrgOf(store: KiokuStore, input: OrgChangeInput, access: Access, actor: string): Promise<OrgChangeAnswer> {
  const { namespace, ...change } = parseInput(wire.orgChange, input ?? {}, 'org');
  const ns = namespaceOf(namespace, access);
  // a member reached by a token name the auth file does not hold could never be reached (or a later token of that name would become it)
  const unknown = change.action === 'member_add' && access.knownTokens ? (change.tokens ?? (change.member ? [change.member] : [])).find((t) => !access.knownTokens?.includes(t)) : undefined;
  if (unknown !== undefined)
    throw new KiokuError('KIOKU_INPUT_INVALID', `org: tokens: "${unknown.slice(0, 80)}" is no token of namespace ${ns} in the auth file: add it there first (its name), then the member`, {
      details: { field: 'tokens', value: unknown.slice(0, 200) },
    });
  const projections = store.projections;
  const deps = {
    log: store.log,
    orgAt: async (n: string) => {
      await projections.waitFor(store.log.head().seq);
      return projections.views.org.org(n);
    },
  };
  const answer = await commitOrgChange(deps, { ...change, ns }, actor);
  if (answer.seq !== undefined) await projections.waitFor(answer.seq);
  return answer;
}
