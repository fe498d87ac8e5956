// Per-request context: who is calling (from the token), which namespace they may use,
// and the checks every route shares.
import type { FastifyRequest } from 'fastify';
import { principalSeesService, resolveAccess, SCOPES, type Access, type Principal, type Scope } from '../access.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The scope check of the one access policy (src/access.ts), for routes without a namespace. */
export function requireScope(req: FastifyRequest, scope: Scope): void {
  resolveAccess(req.principal, undefined, scope);
}

/** The namespace a request acts in (src/access.ts); the scope was checked already. */
export function namespaceFor(req: FastifyRequest, requested: string | undefined): string {
  return resolveAccess({ ...req.principal, scopes: ALL_SCOPES }, requested, 'memory:read').namespace;
}

const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

/**
 * What a request that names no namespace may see: a token its own namespace; the anonymous
 * local user every one (it owns them all). A lookup by id outside it answers as a missing id.
 */
export function callerAccess(req: FastifyRequest): Access {
  const p = req.principal;
  return p.anonymous ? {} : { namespaces: [p.namespace], actor: `http:${p.name}`, ...(principalSeesService(p) ? { service: true } : {}) };
}
