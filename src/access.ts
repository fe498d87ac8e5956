// The one access policy. A caller is a principal (from a token, or the anonymous local
// user); a call names a namespace (or not) and needs a scope. Every adapter (HTTP, MCP,
// hook, CLI) resolves access here, and the core checks the namespace a call acts in here.
import { KiokuError } from './errors.js';
import { DEFAULT_NAMESPACE, namespaceSchema } from './events/index.js';

// service:read is the operator's: the service as a whole (log head, projections, replication),
// which moves with every namespace's writes; a namespaced token without it sees its own counts only.
// log:read is the whole log's content (records, stored frames, backups): every namespace's text, so
// it is never implied by service:read (a monitoring token must not read other namespaces' memories)
// org:admin changes a namespace's org (spaces, members: issue 34); the anonymous local owner has it
export const SCOPES = ['memory:read', 'memory:write', 'service:read', 'log:read', 'org:admin'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  name: string;
  namespace: string;
  scopes: ReadonlySet<Scope>;
  anonymous: boolean;
}

export const ANONYMOUS: Principal = { name: 'anonymous', namespace: DEFAULT_NAMESPACE, scopes: new Set(SCOPES), anonymous: true };

/**
 * The mark of a caller resolved at a door (src/api/caller.ts): the namespace it was settled to. A
 * symbol-keyed property, so it survives the spreads that add call options (`{ ...access, readOnly }`)
 * and cannot collide with a field; `namespaceOf` takes it as settled instead of resolving again.
 */
export const SETTLED: unique symbol = Symbol('kioku.settled-namespace');

/** How many times a namespace was resolved (a door's resolution, or the core's own for a caller not resolved at a door). */
export const resolutionCounter = { resolutions: 0 };

/** What the core is told about a caller: the namespaces they may use (first = default) and the actor recorded. */
export interface Access {
  /** set by resolveCaller (src/api/caller.ts) only: the namespace this caller was resolved to */
  readonly [SETTLED]?: string;
  namespaces?: readonly string[];
  actor?: string;
  /** the token's name (the auth file's `name`), for a caller with a token: which org member it acts as (issue 34) */
  principal?: string;
  /** the token holds org:admin: it may forget and purge any member's items, and purge the namespace (issue 34) */
  orgAdmin?: boolean;
  /** the token names the door knows for this namespace (its auth file): an org member is given only these (issue 34) */
  knownTokens?: readonly string[];
  /** may see the service as a whole (the log head, other namespaces' activity); implied when namespaces is absent */
  service?: boolean;
  /** the caller named the namespace itself (no token fixed it): one nothing was written in is likely a typo */
  namespaceChosen?: boolean;
}

/** Whether a principal may see the service as a whole: the anonymous single user, or a token with service:read. */
export function principalSeesService(principal: Principal): boolean {
  return principal.anonymous || principal.scopes.has('service:read');
}

/** Whether a caller may see what moves with every namespace's writes (the log head, projection positions). */
export function seesService(access: Access): boolean {
  return access.namespaces === undefined || access.service === true;
}

/** Whether a caller may see something recorded in namespace `ns`. */
export function mayUseNamespace(access: Access, ns: string): boolean {
  return access.namespaces === undefined || access.namespaces.includes(ns);
}

/**
 * Check the scope and settle the namespace: without tokens the caller chooses (default private);
 * with a token it must be the token's or absent — never a silent switch.
 */
export function resolveAccess(principal: Principal, requested: string | undefined, scope: Scope, adapter = 'http'): { namespace: string; access: Access } {
  resolutionCounter.resolutions += 1;
  if (!principal.scopes.has(scope)) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_FORBIDDEN', `this token lacks the ${scope} scope`, { details: { scope } });
  }
  // named as the client wrote it ("namespace"), whatever the core calls it
  if (requested !== undefined && !namespaceSchema.safeParse(requested).success)
    throw new KiokuError(
      'KIOKU_INPUT_INVALID',
      `namespace: 1–64 characters of a-z, 0-9, ".", "_", "-", starting with a letter or digit (got "${requested.slice(0, 80)}")`,
      { details: { field: 'namespace' } },
    );
  let namespace: string;
  if (principal.anonymous) namespace = requested ?? DEFAULT_NAMESPACE;
  else if (requested !== undefined && requested !== principal.namespace) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_FORBIDDEN', `this token is for namespace "${principal.namespace}", not "${requested}"`, { details: { field: 'namespace' } });
  } else namespace = principal.namespace;
  const service = principalSeesService(principal);
  return {
    namespace,
    access: {
      namespaces: [namespace],
      actor: principal.anonymous ? adapter : `${adapter}:${principal.name}`,
      ...(service ? { service } : {}),
      ...(principal.anonymous && requested !== undefined ? { namespaceChosen: true } : {}),
    },
  };
}

/** The namespace a core call acts in: the one asked for, else the caller's first, else private; never one the caller may not use. */
export function namespaceOf(requested: string | undefined, access: Access = {}): string {
  // resolved at the door already: the same namespace again (or none) is that one, not a second resolution
  const settled = access[SETTLED];
  if (settled !== undefined && (requested === undefined || requested === settled) && access.namespaces?.[0] === settled) return settled;
  resolutionCounter.resolutions += 1;
  const ns = requested ?? access.namespaces?.[0] ?? DEFAULT_NAMESPACE;
  if (access.namespaces && !access.namespaces.includes(ns))
    throw new KiokuError('KIOKU_FORBIDDEN', `namespace "${ns}" is not allowed with these credentials`, { details: { field: 'namespace' } });
  return ns;
}
