// Notices are sealed and purged with what they are about (issue 33, fixer F2): a notice's text is
// sealed under the erasure unit of the memory it names (else the namespace's), its sign-off note
// under the notice's own unit, which a purge of that memory deletes too. A forgotten memory's
// notices show no text (text_forgotten); a purge drops text and notes from inbox, outbox and the
// snapshots, and its keys leave the key file (what an export carries); a namespace purge does the
// same for notices about nothing, and a restart brings none of it back. Real server, real LevelDB.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const T = { alice: 'alice-token-0123456789', carol: 'carol-token-0123456789', admin: 'admin-token-0123456789' };
const rw = ['memory:read', 'memory:write'];
const TOKENS = {
  tokens: [
    { name: 'alice', token: T.alice, namespace: 'acme', scopes: rw },
    { name: 'carol', token: T.carol, namespace: 'acme', scopes: rw },
    { name: 'admin', token: T.admin, namespace: 'acme', scopes: ['org:admin', ...rw] },
  ],
};
const dir = tempDir('kioku-notices-sealed-');
let s: TestServer;
const as = (who: keyof typeof T, method: string, path: string, body?: unknown) => s.call(method, path, body, T[who]);

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((f) => {
    const p = join(root, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
const holding = (word: string): string[] => filesUnder(dir.path).filter((f) => readFileSync(f).includes(Buffer.from(word)));
const keyUnits = (): string[] =>
  readFileSync(join(dir.path, 'keys', 'data-keys.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { unit: string }).unit);
const views = async () => JSON.stringify([(await as('carol', 'GET', '/v1/inbox?include_acked=true')).body, (await as('alice', 'GET', '/v1/outbox')).body]);

beforeAll(async () => {
  s = await startTestServer({ dir: dir.path, tokens: TOKENS });
  for (const change of [
    { action: 'space_add', space: 'eng' },
    { action: 'member_add', member: 'alice' },
    { action: 'member_add', member: 'carol' },
    { action: 'member_join', member: 'alice', space: 'eng' },
    { action: 'member_join', member: 'carol', space: 'eng' },
  ])
    expect((await as('admin', 'POST', '/v1/org', change)).status).toBe(200);
  const wrote = await as('alice', 'POST', '/v1/memories', { memories: [{ id: 'm-alice-eng', kind: 'fact', text: 'the eng plan', audience: { spaces: ['eng'] } }] });
  expect(wrote.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  dir.cleanup();
});

const GHP = 'ghp_' + 'Zx9Kq2Lm8Nw4Rt6Yp1Vb3Hj5Gf7Dd0Ss2Aa4';

it('an about naming no memory the caller sees is refused (404, nothing appended), and no refusal echoes a credential', async () => {
  const head = s.state.store!.log.head().seq;
  for (const about of ['m-nothing', `ev1:acme:memory:${GHP}`, GHP, `ev1:other:memory:${GHP}`]) {
    const r = await as('alice', 'POST', '/v1/notices', { to: ['carol'], text: 'about nothing', about });
    expect(r.status, about).toBe(about.startsWith('ev1:other') ? 400 : 404);
    expect(JSON.stringify(r.body), about).not.toContain(GHP);
  }
  // NUL in a short note is refused like a malformed field: a notice of NUL alone, a forget reason holding one
  expect((await as('alice', 'POST', '/v1/notices', { to: ['carol'], text: '\u0000' })).status).toBe(400);
  expect((await as('alice', 'POST', '/v1/memories/m-alice-eng/forget', { reason: 'no\u0000reason' })).status).toBe(400);
  expect((await as('alice', 'POST', '/v1/purge', { scope: 'memory', id: 'm-alice-eng', reason: '\u0000' })).status).toBe(400);
  expect(s.state.store!.log.head().seq).toBe(head);
  const org = await as('admin', 'POST', '/v1/org', { action: 'member_join', member: GHP, space: 'eng' });
  expect(org.status).toBeGreaterThanOrEqual(400);
  expect(JSON.stringify(org.body)).not.toContain(GHP);
  expect(JSON.stringify(org.body)).toContain('⟦secret:github-token⟧');
}, 30_000);

it('a notice about a memory: sealed, textless once it is forgotten, gone with its sign-off note once it is purged', async () => {
  const sent = await as('alice', 'POST', '/v1/notices', { to: ['carol'], text: 'noticewordsecret about the plan', about: 'm-alice-eng' });
  expect(sent.status).toBe(200);
  const id = (sent.body['notice_ids'] as string[])[0] as string;
  expect((await as('carol', 'POST', `/v1/notices/${id}/ack`, { note: 'acknoteword seen' })).status).toBe(200);
  expect(await views()).toContain('noticewordsecret');
  expect(await views()).toContain('acknoteword');
  expect(holding('noticewordsecret').filter((f) => f.includes(`${join(dir.path, 'log')}`))).toEqual([]); // the log holds it sealed
  expect(keyUnits()).toEqual(expect.arrayContaining(['memory:acme:m-alice-eng', `notice:acme:${id}`]));

  expect((await as('alice', 'POST', '/v1/memories/m-alice-eng/forget', { reason: 'wrong' })).status).toBe(200);
  const inbox = (await as('carol', 'GET', '/v1/inbox?include_acked=true')).body['notices'] as Record<string, unknown>[];
  expect(inbox).toEqual([expect.objectContaining({ notice_id: id, text_forgotten: true })]);
  expect(inbox[0]).not.toHaveProperty('text');
  expect(await views()).not.toContain('noticewordsecret');

  expect((await as('alice', 'POST', '/v1/purge', { scope: 'memory', id: 'm-alice-eng' })).status).toBe(200);
  const after = await views();
  expect(after).not.toContain('noticewordsecret');
  expect(after).not.toContain('acknoteword');
  expect(after).toContain('text_purged');
  // replay reads the sealed event: no text, no note, and says why
  const replay = JSON.stringify((await as('alice', 'POST', '/v1/replay', {})).body);
  expect(replay).toContain('text_forgotten'); // forgotten before it was purged
  for (const gone of ['noticewordsecret', 'acknoteword', '⟦purged⟧']) expect(replay).not.toContain(gone);
  for (const word of ['noticewordsecret', 'acknoteword']) expect(holding(word), word).toEqual([]);
  expect(keyUnits()).not.toContain('memory:acme:m-alice-eng');
  expect(keyUnits()).not.toContain(`notice:acme:${id}`);
}, 60_000);

it('a notice about nothing goes with a namespace purge, and a restart brings it back nowhere', async () => {
  expect((await as('alice', 'POST', '/v1/notices', { to: ['carol'], text: 'standalonenoticeword for carol' })).status).toBe(200);
  await s.state.store!.projections.snapshotAll();
  expect(holding('standalonenoticeword').length).toBeGreaterThan(0); // the snapshot holds live text: the scan can fail
  expect(keyUnits()).toContain('notices:acme');
  expect((await as('admin', 'POST', '/v1/purge', { scope: 'namespace' })).status).toBe(200);
  expect(await views()).not.toContain('standalonenoticeword');
  await s.stop();
  s = await startTestServer({ dir: dir.path, tokens: TOKENS });
  expect(await views()).not.toContain('standalonenoticeword');
  expect(holding('standalonenoticeword')).toEqual([]);
  expect(keyUnits().filter((u) => u.includes(':acme'))).toEqual([]);
}, 60_000);
