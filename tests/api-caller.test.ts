// The caller is resolved once and the input parsed once (issue 32): a door resolves a Caller and
// parses with the facade method's schema; the facade and everything below take both as they are.
// Counted in-process here (apiCounters); the HTTP and MCP doors have their own counting tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS, apiCounters, checkScope, inputSchemas, parseInput, resolveCaller, type Principal } from '../src/api/index.js';
import { resolveAccess, seesService, type Scope } from '../src/access.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { isKiokuError } from '../src/errors.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import { LocalJudge } from '../src/recall/index.js';
import { tempDir } from './helpers.js';

const token = (scopes: Scope[] = ['memory:read', 'memory:write']): Principal => ({ name: 'ci', namespace: 'team', scopes: new Set(scopes), anonymous: false });
const refusal = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
};

describe('resolveCaller', () => {
  it('settles what resolveAccess settles, with every field typed', () => {
    for (const [principal, requested] of [
      [ANONYMOUS, undefined],
      [ANONYMOUS, 'team-b'],
      [token(), undefined],
      [token(['memory:read', 'service:read']), 'team'],
    ] as const) {
      const caller = resolveCaller(principal, requested, 'memory:read', 'mcp');
      const { namespace, access } = resolveAccess(principal, requested, 'memory:read', 'mcp');
      expect(caller).toMatchObject({ namespace, namespaces: [namespace], actor: access.actor, service: access.service === true, namespaceChosen: access.namespaceChosen === true });
      expect(seesService(caller)).toBe(seesService(access));
    }
  });

  it('refuses with resolveAccess codes, messages and details', () => {
    for (const [principal, requested, scope] of [
      [token(['memory:read']), undefined, 'memory:write'],
      [token(), 'private', 'memory:read'],
      [ANONYMOUS, 'Not OK', 'memory:read'],
    ] as const) {
      const mine = refusal(() => resolveCaller(principal, requested, scope));
      const theirs = refusal(() => resolveAccess(principal, requested, scope));
      expect(isKiokuError(mine)).toBe(true);
      expect(mine).toMatchObject({ code: (theirs as { code: string }).code, message: (theirs as Error).message, details: (theirs as { details: unknown }).details });
    }
    expect(refusal(() => checkScope(token(['memory:read']), 'memory:write'))).toMatchObject({ code: 'KIOKU_FORBIDDEN', details: { scope: 'memory:write' } });
    expect(refusal(() => checkScope(token(['memory:read']), 'memory:read'))).toBeUndefined();
  });
});

describe('one parse and one resolution per call', () => {
  let kioku: LocalKioku;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    dir = tempDir();
    kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
    await kioku.openSession({ agent: 'count', session_id: 'count-s1', namespace: 'team' });
  });
  afterAll(async () => {
    await kioku.close();
    dir.cleanup();
  });

  it('for a door: parsed and resolved at the edge, nothing again below (memories, turns/start, recall)', async () => {
    const door = <T>(scope: Scope, schema: Parameters<typeof parseInput>[0], raw: unknown, call: (input: never, caller: ReturnType<typeof resolveCaller>) => Promise<T>) =>
      apiCounters.during(() => {
        const input = parseInput(schema, raw, 'door');
        const caller = resolveCaller(token(), (input as { namespace?: string }).namespace, scope);
        return call(input as never, caller);
      });
    const wrote = await door('memory:write', inputSchemas.writeMemories, { memories: [{ id: 'm1', kind: 'fact', text: 'The ledger closes at noon.' }] }, (i, c) =>
      kioku.writeMemories(i, c),
    );
    expect(wrote.result.written).toEqual(['m1']);
    expect(wrote.counts).toEqual({ parses: 1, resolutions: 1 });
    const turn = await door('memory:write', inputSchemas.startTurn, { session_id: 'count-s1', query: 'when does the ledger close?', conversation: [{ role: 'user', content: 'hi' }] }, (i, c) =>
      kioku.startTurn(i, c),
    );
    expect(turn.result.namespace).toBe('team');
    expect(turn.counts).toEqual({ parses: 1, resolutions: 1 });
    const recalled = await door('memory:read', inputSchemas.recall, { query: 'ledger noon' }, (i, c) => kioku.recall(i, c));
    expect(recalled.result.records.map((r) => r.evidence_key)).toContain('ev1:team:memory:m1');
    expect(recalled.counts).toEqual({ parses: 1, resolutions: 1 });
  });

  it('in-process without a door: the facade parses and settles once itself', async () => {
    const { counts } = await apiCounters.during(() => kioku.startTurn({ session_id: 'count-s1', query: 'ledger?', namespace: 'team' }));
    expect(counts).toEqual({ parses: 1, resolutions: 1 });
    const again = await apiCounters.during(() => kioku.recall({ query: 'ledger', namespace: 'team' }));
    expect(again.counts).toEqual({ parses: 1, resolutions: 1 });
  });
});
