// The team's org (issue 34): GET /v1/org answers the namespace's space tree and members (any
// reader); POST /v1/org changes it by appending org events (the org:admin scope: the anonymous
// local owner has it, a token only when the auth file grants it). Each a call of the facade.
import type { ServerState } from '../state.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { plugin, ready } from './common.js';

export const orgRoutes = (state: ServerState) =>
  plugin((app) => {
    queryRoute(app, { url: '/v1/org', summary: "the namespace's spaces and members, and who you are in it", scope: 'memory:read', tags: ['org'] }, async (caller) =>
      ready(state).kioku.org({ namespace: caller.namespace }, caller),
    );
    bodyRoute(
      app,
      { url: '/v1/org', method: 'changeOrg', summary: 'add, move or remove a space; add or remove a member; a member joins or leaves a space', scope: 'org:admin', tags: ['org'], required: true },
      // the door knows the auth file: a member is given only token names it holds for this namespace
      (input, caller) => ready(state).kioku.changeOrg(input, state.tokenNames ? { ...caller, knownTokens: state.tokenNames(caller.namespace) } : caller),
    );
  });
