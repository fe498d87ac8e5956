// The team's org (issue 34): spaces and members are events; the org projection folds them and
// answers as a rebuild does; changes are decided whole (a refusal appends nothing); the doors
// (HTTP with the org:admin scope, the CLI) reach it through the facade.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgProjection } from '../projections/org.js';
import { decideOrg, type OrgChange } from '../src/knowledge/org-decide.js';
import { orgOf } from '../src/knowledge/org.js';
import type { LogRecord } from '../src/events/index.js';
import { KiokuError } from '../src/errors.js';
import { openKioku } from '../src/kioku.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { LocalJudge } from '../src/recall/index.js';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let seq = 0;
const rec = (type: string, data: Record<string, unknown>, ns = 'team'): LogRecord =>
  ({ seq: ++seq, ts: seq, type, v: 1, ns, actor: 'test', data, prev: '', hash: '' }) as unknown as LogRecord;

/** given events, when a change is decided, then the events it appends (or its refusal) */
function given(events: LogRecord[]): { when: (change: Omit<OrgChange, 'ns'>) => ReturnType<typeof decideOrg> | { refused: string } } {
  const p = new OrgProjection();
  for (const e of events) p.apply(e);
  return {
    when: (change) => {
      try {
        return decideOrg(p.org('team'), { ns: 'team', ...change });
      } catch (err) {
        return { refused: (err as KiokuError).code };
      }
    },
  };
}

const tree = (): LogRecord[] => [
  rec('org.space_added', { space: 'acme' }),
  rec('org.space_added', { space: 'eng', parent: 'acme' }),
  rec('org.space_added', { space: 'backend', parent: 'eng' }),
  rec('org.member_added', { member: 'alice', tokens: ['alice-laptop'] }),
  rec('org.member_joined', { member: 'alice', space: 'eng' }),
];

describe('org projection', () => {
  it('answers spaces, members, memberOf and subtree from the events', () => {
    const p = new OrgProjection();
    for (const e of tree()) p.apply(e);
    expect(p.isOrg('team')).toBe(true);
    expect(p.isOrg('private')).toBe(false);
    expect(p.spaces('team').map((s) => s.path.join('/'))).toEqual(['acme', 'acme/eng', 'acme/eng/backend']);
    expect(p.memberOf('team', 'alice-laptop')?.name).toBe('alice');
    expect(p.memberOf('team', 'bob')).toBeUndefined();
    expect(p.subtree('team', 'alice')).toEqual(['backend', 'eng']);
    expect(p.members('team')).toEqual([{ name: 'alice', spaces: ['eng'], tokens: 1 }]);
    p.apply(rec('org.member_left', { member: 'alice', space: 'eng' }));
    expect(p.subtree('team', 'alice')).toEqual([]);
  });

  it('folds to the same state in another order of namespaces (digest equal after a snapshot round trip)', () => {
    const a = new OrgProjection();
    for (const e of tree()) a.apply(e);
    const b = new OrgProjection();
    b.load(structuredClone(a.snapshot()));
    expect(b.digest()).toBe(a.digest());
    expect(orgOf(a.snapshot(), 'nobody')).toEqual({ spaces: {}, members: {} });
  });
});

describe('org decisions', () => {
  it('appends what a change means and nothing for a change already made', () => {
    expect(given(tree()).when({ action: 'space_add', space: 'ops', parent: 'acme' })).toEqual([{ type: 'org.space_added', data: { space: 'ops', parent: 'acme' } }]);
    expect(given(tree()).when({ action: 'space_add', space: 'eng', parent: 'acme' })).toEqual([]);
    expect(given(tree()).when({ action: 'member_join', member: 'alice', space: 'eng' })).toEqual([]);
    expect(given(tree()).when({ action: 'member_add', member: 'bob' })).toEqual([{ type: 'org.member_added', data: { member: 'bob', tokens: ['bob'] } }]);
  });

  it('refuses whole: unknown parent, a cycle, a non-empty space, a token acting as another member, a missing field', () => {
    expect(given(tree()).when({ action: 'space_add', space: 'x', parent: 'nope' })).toEqual({ refused: 'KIOKU_NOT_FOUND' });
    expect(given(tree()).when({ action: 'space_move', space: 'eng', parent: 'backend' })).toEqual({ refused: 'KIOKU_INPUT_INVALID' });
    expect(given(tree()).when({ action: 'space_remove', space: 'eng' })).toEqual({ refused: 'KIOKU_INPUT_INVALID' });
    expect(given(tree()).when({ action: 'member_add', member: 'mallory', tokens: ['alice-laptop'] })).toEqual({ refused: 'KIOKU_ID_CONFLICT' });
    expect(given(tree()).when({ action: 'member_join', member: 'alice' })).toEqual({ refused: 'KIOKU_INPUT_INVALID' });
    expect(given(tree()).when({ action: 'member_join', member: 'zed', space: 'eng' })).toEqual({ refused: 'KIOKU_NOT_FOUND' });
  });
});

describe('org through the doors', () => {
  let server: TestServer;
  const admin = 'admin-token-0123456789';
  const alice = 'alice-token-0123456789';
  beforeAll(async () => {
    server = await startTestServer({
      tokens: {
        tokens: [
          { name: 'admin', token: admin, namespace: 'team', scopes: ['memory:read', 'org:admin'] },
          { name: 'alice-laptop', token: alice, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
        ],
      },
    });
  });
  afterAll(() => server.stop());

  it('an org:admin token changes the org; a member token may read it but not change it; the log holds no token', async () => {
    expect((await server.call('GET', '/v1/org', undefined, alice)).body).toMatchObject({ org: false, spaces: [], members: [], explanation: expect.stringContaining('single user') });
    for (const change of [
      { action: 'space_add', space: 'acme' },
      { action: 'space_add', space: 'eng', parent: 'acme' },
      { action: 'member_add', member: 'alice', tokens: ['alice-laptop'] },
      { action: 'member_join', member: 'alice', space: 'eng' },
    ])
      expect((await server.call('POST', '/v1/org', change, admin)).body).toMatchObject({ namespace: 'team', changed: true });
    const refused = await server.call('POST', '/v1/org', { action: 'space_add', space: 'ops' }, alice);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'KIOKU_FORBIDDEN' } });
    const seen = await server.call('GET', '/v1/org', undefined, alice);
    expect(seen.body).toMatchObject({ org: true, you: { member: 'alice', subtree: ['eng'] }, members: [{ name: 'alice', spaces: ['eng'], tokens: 1 }] });
    const unknown = await server.call('POST', '/v1/org', { action: 'member_join', member: 'alice', space: 'nope' }, admin);
    expect(unknown.status).toBe(404);
  });
});

describe('kioku org', () => {
  it('changes and lists the org of a library (a child process, the anonymous local owner)', async () => {
    const dir = tempDir();
    const k = await openKioku({ data: dir.path, createIfMissing: true, embedder: new HashedEmbedder(32), judge: new LocalJudge() });
    await k.close();
    try {
      const env = { KIOKU_DATA_DIR: dir.path };
      expect((await runCli(['org', 'space', 'add', 'eng', '--title', 'Engineering', '--json'], env)).code).toBe(0);
      expect((await runCli(['org', 'member', 'add', 'alice', '--token', 'alice-laptop', '--json'], env)).code).toBe(0);
      const listed = await runCli(['org', 'list', '--json'], env);
      expect(JSON.parse(listed.stdout.trim().split('\n').at(-1) as string)).toMatchObject({
        org: true,
        spaces: [{ name: 'eng', title: 'Engineering' }],
        members: [{ name: 'alice', spaces: [], tokens: 1 }],
      });
    } finally {
      dir.cleanup();
    }
  });
});
