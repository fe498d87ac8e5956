// Per-request context: who is calling (from the token), which namespace they may use,
// and the checks every route shares.
import type { FastifyRequest } from 'fastify';
import { KiokuError } from '../errors.js';
import { namespaceSchema } from '../events/index.js';
import type { Principal, Scope } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

export function requireScope(req: FastifyRequest, scope: Scope): void {
  if (!req.principal.scopes.has(scope)) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_FORBIDDEN', `this token lacks the ${scope} scope`, { details: { scope } });
  }
}

/**
 * The namespace a request acts in. Without tokens the body chooses (default private);
 * with a token it must match the token's or be absent — never a silent switch.
 */
export function namespaceFor(req: FastifyRequest, requested: string | undefined): string {
  const p = req.principal;
  // named as the client wrote it ("namespace"), whatever the core calls it
  if (requested !== undefined && !namespaceSchema.safeParse(requested).success)
    throw new KiokuError(
      'KIOKU_INPUT_INVALID',
      `namespace: 1–64 characters of a-z, 0-9, ".", "_", "-", starting with a letter or digit (got "${requested.slice(0, 80)}")`,
      {
        details: { field: 'namespace' },
      },
    );
  if (p.anonymous) return requested ?? 'private';
  if (requested !== undefined && requested !== p.namespace) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_FORBIDDEN', `this token is for namespace "${p.namespace}", not "${requested}"`, { details: { field: 'namespace' } });
  }
  return p.namespace;
}

/** Split `namespace` off a body for core commands that call it `ns`. */
export function withoutNamespace(body: unknown): { namespace: string | undefined; rest: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_INPUT_INVALID', 'the request body must be a JSON object', { details: { field: '(body)' } });
  }
  const { namespace, ...rest } = body as Record<string, unknown>;
  if (namespace !== undefined && typeof namespace !== 'string')
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_INPUT_INVALID', 'namespace must be a string', { details: { field: 'namespace' } });
  return { namespace: namespace as string | undefined, rest };
}
