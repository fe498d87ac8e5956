// A Caller is settled once at a door (src/api/caller.ts); below the door, namespaceOf takes its
// namespace as settled and never resolves it again — but only while the Caller still holds that
// namespace. Pure functions over the one access policy (src/access.ts), no store.
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, apiCounters, isCaller, resolveCaller, type Principal } from '../src/api/index.js';
import { mayUseNamespace, namespaceOf, type Access } from '../src/access.js';
import { isKiokuError } from '../src/errors.js';

const token: Principal = { name: 'ci', namespace: 'team', scopes: new Set(['memory:read']), anonymous: false };
const resolutions = (fn: () => unknown): number => {
  const before = apiCounters.read().resolutions;
  fn();
  return apiCounters.read().resolutions - before;
};
const refusalCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return isKiokuError(err) ? err.code : String(err);
  }
  return undefined;
};

describe('a Caller settled at a door', () => {
  it('is told apart from an Access made up in-process, also after a spread adds call options', () => {
    const caller = resolveCaller(token, undefined, 'memory:read');
    expect(isCaller(caller)).toBe(true);
    expect(isCaller({ ...caller, readOnly: true } as Access)).toBe(true);
    expect(isCaller({ namespaces: ['team'], actor: 'http:ci' })).toBe(false);
    expect(isCaller({})).toBe(false);
    expect(isCaller(undefined)).toBe(false);
  });

  it('acts in its namespace below the door without a second resolution, asked for by name or not', () => {
    const caller = resolveCaller(token, 'team', 'memory:read');
    let ns: string | undefined;
    expect(resolutions(() => (ns = namespaceOf(undefined, caller)))).toBe(0);
    expect(ns).toBe('team');
    expect(resolutions(() => (ns = namespaceOf('team', caller)))).toBe(0);
    expect(ns).toBe('team');
  });

  it('is refused another namespace below the door, and that is a resolution of its own', () => {
    const caller = resolveCaller(token, undefined, 'memory:read');
    let code: string | undefined;
    expect(resolutions(() => (code = refusalCode(() => namespaceOf('private', caller))))).toBe(1);
    expect(code).toBe('KIOKU_FORBIDDEN');
  });

  it('is checked again once its namespaces were replaced: the settled one no longer counts', () => {
    const caller = resolveCaller(ANONYMOUS, 'team', 'memory:read');
    // an in-process narrowing (a spread that swaps the list) must not keep acting in the settled namespace
    const narrowed: Access = { ...caller, namespaces: ['other'] };
    let ns: string | undefined;
    expect(resolutions(() => (ns = namespaceOf(undefined, narrowed)))).toBe(1);
    expect(ns).toBe('other');
    expect(refusalCode(() => namespaceOf('team', narrowed))).toBe('KIOKU_FORBIDDEN');
  });

  it('resolves an Access that was never settled each time it is asked', () => {
    expect(resolutions(() => namespaceOf(undefined, { namespaces: ['team'] }))).toBe(1);
    expect(resolutions(() => namespaceOf(undefined))).toBe(1);
  });
});

describe('mayUseNamespace', () => {
  it('lets an unrestricted in-process caller see every namespace, a restricted one only its own list', () => {
    expect(mayUseNamespace({}, 'anything')).toBe(true);
    expect(mayUseNamespace({ namespaces: ['team', 'ops'] }, 'ops')).toBe(true);
    expect(mayUseNamespace({ namespaces: ['team'] }, 'private')).toBe(false);
    expect(mayUseNamespace({ namespaces: [] }, 'team')).toBe(false);
  });
});

describe('who a Caller says the caller is', () => {
  const admin: Principal = { name: 'ops', namespace: 'team', scopes: new Set(['memory:read', 'org:admin']), anonymous: false };

  it('names a token and marks an org admin, at the door and on the HTTP access alike', async () => {
    const { callerAccess } = await import('../src/server/context.js');
    const request = (principal: Principal) => ({ principal }) as Parameters<typeof callerAccess>[0];
    const plain = resolveCaller(token, undefined, 'memory:read');
    expect(plain.principal).toBe('ci');
    expect(plain.orgAdmin).toBeUndefined();
    expect(callerAccess(request(token))).toEqual({ namespaces: ['team'], actor: 'http:ci', principal: 'ci' });
    const ops = resolveCaller(admin, undefined, 'memory:read');
    expect(ops.principal).toBe('ops');
    expect(ops.orgAdmin).toBe(true);
    expect(callerAccess(request(admin))).toEqual({ namespaces: ['team'], actor: 'http:ops', principal: 'ops', orgAdmin: true });
    const service: Principal = { ...token, scopes: new Set(['memory:read', 'service:read']) };
    expect(callerAccess(request(service))).toEqual({ namespaces: ['team'], actor: 'http:ci', principal: 'ci', service: true });
  });

  it('names no one for the anonymous local user, who holds every scope but is no org admin', async () => {
    const { callerAccess } = await import('../src/server/context.js');
    const anonymous = resolveCaller(ANONYMOUS, undefined, 'memory:read');
    expect(anonymous.principal).toBeUndefined();
    expect(anonymous.orgAdmin).toBeUndefined();
    expect(ANONYMOUS.scopes.has('org:admin')).toBe(true);
    expect(callerAccess({ principal: ANONYMOUS } as Parameters<typeof callerAccess>[0])).toEqual({});
  });
});
