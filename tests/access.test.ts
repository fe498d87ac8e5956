// The one access policy (src/access.ts): what every adapter resolves before it calls the core.
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, namespaceOf, resolveAccess, SCOPES, seesService, type Principal } from '../src/access.js';
import { isKiokuError } from '../src/errors.js';
import { parseEvidenceKey } from '../src/knowledge/evidence.js';

const token = (scopes: Principal['scopes'] = new Set(SCOPES)): Principal => ({ name: 'ci-bot', namespace: 'team', scopes, anonymous: false });
const refusal = (fn: () => unknown): { code?: string; details?: unknown; message?: string } => {
  try {
    fn();
  } catch (err) {
    return isKiokuError(err) ? { code: err.code, details: err.details, message: err.message } : { message: String(err) };
  }
  return {};
};

describe('resolveAccess', () => {
  it('lets the anonymous local user choose, defaulting to private, recorded as the adapter, and see the whole service (it owns every namespace)', () => {
    expect(resolveAccess(ANONYMOUS, undefined, 'memory:read')).toEqual({ namespace: 'private', access: { namespaces: ['private'], actor: 'http', service: true } });
    expect(resolveAccess(ANONYMOUS, 'team-b', 'memory:write', 'mcp')).toEqual({
      namespace: 'team-b',
      // named by the caller itself: a recall there that finds nothing written warns unknown_namespace (issue 31)
      access: { namespaces: ['team-b'], actor: 'mcp', service: true, namespaceChosen: true },
    });
  });

  it('lets a token see the whole service only with the service:read scope', () => {
    expect(seesService(resolveAccess(token(new Set(['memory:read'])), undefined, 'memory:read').access)).toBe(false);
    expect(seesService(resolveAccess(token(new Set(['memory:read', 'service:read'])), undefined, 'memory:read').access)).toBe(true);
    expect(seesService({})).toBe(true); // in-process, unrestricted
  });

  it("fixes a token to its namespace and records the token's name", () => {
    expect(resolveAccess(token(new Set(['memory:read'])), undefined, 'memory:read')).toEqual({
      namespace: 'team',
      access: { namespaces: ['team'], actor: 'http:ci-bot' },
    });
    expect(resolveAccess(token(), 'team', 'memory:read').namespace).toBe('team');
  });

  it('refuses another namespace, a missing scope and a malformed namespace, naming each', () => {
    expect(refusal(() => resolveAccess(token(), 'private', 'memory:read'))).toMatchObject({ code: 'KIOKU_FORBIDDEN', details: { field: 'namespace' } });
    expect(refusal(() => resolveAccess(token(new Set(['memory:read'])), undefined, 'memory:write'))).toMatchObject({
      code: 'KIOKU_FORBIDDEN',
      details: { scope: 'memory:write' },
    });
    expect(refusal(() => resolveAccess(ANONYMOUS, 'Not OK', 'memory:read'))).toMatchObject({ code: 'KIOKU_INPUT_INVALID', details: { field: 'namespace' } });
  });
});

describe('namespaceOf (the core’s check)', () => {
  it('takes the asked namespace, else the caller’s first, else private, and refuses one the caller may not use', () => {
    expect(namespaceOf(undefined)).toBe('private');
    expect(namespaceOf(undefined, { namespaces: ['team'] })).toBe('team');
    expect(namespaceOf('team', { namespaces: ['team'] })).toBe('team');
    const r = refusal(() => namespaceOf('secret', { namespaces: ['team'] }));
    expect(r).toMatchObject({ code: 'KIOKU_FORBIDDEN', details: { field: 'namespace' } });
    expect(r.message).toContain('"secret"');
  });
});

describe('evidence keys', () => {
  it('give no section field at all when the key has none', () => {
    expect(Object.keys(parseEvidenceKey('ev1:p:memory:a') ?? {})).toEqual(['ns', 'layer', 'id']);
  });
});

describe('a write-only token over HTTP', () => {
  it('reads nothing, on every kind of read route', async () => {
    const { startTestServer } = await import('./server-helpers.js');
    const token = 'w'.repeat(24);
    const s = await startTestServer({ tokens: { tokens: [{ name: 'drop-box', token, namespace: 'team', scopes: ['memory:write'] }] } });
    try {
      expect((await s.call('POST', '/v1/memories', { memories: [{ id: 'x', kind: 'fact', text: 'a fact' }] }, token)).status).toBe(200);
      for (const path of ['/v1/evidence/ev1:team:memory:x', '/v1/pipeline/jobs', '/v1/ingest/status', '/v1/stats', '/v1/knowledge/cold'])
        expect((await s.call('GET', path, undefined, token)).body, path).toMatchObject({
          error: { code: 'KIOKU_FORBIDDEN', details: { scope: 'memory:read' } },
        });
    } finally {
      await s.stop();
    }
  });
});
