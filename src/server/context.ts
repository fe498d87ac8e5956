// Per-request context: who is calling (from the token) and the checks the routes without a
// namespace share (the routes with one resolve their Caller at the edge, edge.ts).
import type { FastifyRequest } from 'fastify';
import { checkScope } from '../api/index.js';
import { principalSeesService, type Access, type Principal, type Scope } from '../access.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The scope check of the one access policy, for routes without a namespace (no namespace resolved). */
export function requireScope(req: FastifyRequest, scope: Scope): void {
  checkScope(req.principal, scope);
}

/**
 * What a request that names no namespace may see: a token its own namespace; the anonymous
 * local user every one (it owns them all). A lookup by id outside it answers as a missing id.
 */
export function callerAccess(req: FastifyRequest): Access {
  const p = req.principal;
  // principal: the token's name, the org member it acts as (issue 34)
  return p.anonymous
    ? {}
    : {
        namespaces: [p.namespace],
        actor: `http:${p.name}`,
        principal: p.name,
        ...(principalSeesService(p) ? { service: true } : {}),
        ...(p.scopes.has('org:admin') ? { orgAdmin: true } : {}),
      };
}
