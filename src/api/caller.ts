// Who is calling, resolved once at the door. A door (HTTP route, MCP tool, hook, CLI) turns its
// principal (a token, or the anonymous local user) and the namespace the request names into a
// `Caller` with one call to `resolveCaller`; the facade and everything below take that Caller and
// never resolve again. The rules, codes, messages and details are src/access.ts's resolveAccess.
import { KiokuError } from '../errors.js';
import { resolveAccess, SETTLED, type Access, type Principal, type Scope } from '../access.js';

/** A caller resolved at a door: an Access the core understands, with every field settled. */
export interface Caller extends Access {
  /** the namespace this request acts in */
  readonly namespace: string;
  /** the namespaces it may use: exactly its own */
  readonly namespaces: readonly [string];
  /** who the log records as the writer: the door, with the token's name (`http:ci`, `mcp`) */
  readonly actor: string;
  /** the principal's scopes (the one asked for was checked) */
  readonly scopes: ReadonlySet<Scope>;
  /** may see the service as a whole (the log head, other namespaces' counts) */
  readonly service: boolean;
  /** an anonymous caller named the namespace itself: one nothing was written in is likely a typo */
  readonly namespaceChosen: boolean;
  readonly [SETTLED]: string;
}

/**
 * Check the scope and settle the namespace, once per request: the door calls this and hands the
 * Caller to one facade method. Throws KIOKU_FORBIDDEN (scope, another namespace than the token's)
 * or KIOKU_INPUT_INVALID (a malformed namespace), exactly as resolveAccess.
 */
export function resolveCaller(principal: Principal, requestedNamespace: string | undefined, scope: Scope, adapter = 'http'): Caller {
  const { namespace, access } = resolveAccess(principal, requestedNamespace, scope, adapter);
  return {
    namespace,
    namespaces: [namespace],
    actor: access.actor ?? adapter,
    scopes: principal.scopes,
    service: access.service === true,
    namespaceChosen: access.namespaceChosen === true,
    ...(principal.anonymous ? {} : { principal: principal.name }),
    ...(!principal.anonymous && principal.scopes.has('org:admin') ? { orgAdmin: true } : {}),
    [SETTLED]: namespace,
  };
}

/**
 * The scope check alone, before a body is read (a token without the scope learns nothing about the
 * body's shape): no namespace is resolved, so it is not counted as a resolution.
 */
export function checkScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope))
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_FORBIDDEN', `this token lacks the ${scope} scope`, { details: { scope } });
}

/** Whether an access was resolved at a door (a Caller), not made up in-process. */
export function isCaller(access: Access | undefined): access is Caller {
  return access?.[SETTLED] !== undefined;
}

