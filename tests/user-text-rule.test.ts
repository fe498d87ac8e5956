// The one rule for user text that reaches the log (src/text/well-formed.ts): no NUL and no lone
// surrogate, in every door and every field; a refusal is a 400 KIOKU_INPUT_INVALID naming the
// field, and nothing is appended. Other control characters are content, kept as sent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
let session = '';
let turn = '';
beforeAll(async () => {
  s = await startTestServer();
  session = ((await s.call('POST', '/v1/sessions/open', { agent: 'text-rule' })).body as { session_id: string }).session_id;
  turn = ((await s.call('POST', '/v1/turns/start', { session_id: session, query: 'what is the staging database?' })).body as { turn_id: string }).turn_id;
});
afterAll(async () => s.stop());

const head = (): number => s.state.store!.log.head().seq;
const NUL = 'the staging database\u0000 is pg-2';

it.each([
  ['a memory text', '/v1/memories', () => ({ memories: [{ kind: 'fact', text: NUL }] }), 'memories.0.text'],
  ['a memory tag', '/v1/memories', () => ({ memories: [{ kind: 'fact', text: 'fine', tags: ['a\u0000b'] }] }), 'memories.0.tags.0'],
  ['a memory speaker', '/v1/memories', () => ({ memories: [{ kind: 'fact', text: 'fine', speaker: 'Ann\u0000' }] }), 'memories.0.speaker'],
  ['a card', '/v1/import', () => ({ kind: 'cards', root: '/cards', files: [{ path: '/cards/db.md', markdown: `# Staging\n\n${NUL}` }] }), 'files.0.markdown'],
  ['a daily note', '/v1/import', () => ({ kind: 'notes', root: '/notes', files: [{ path: '/notes/2026-12-04.md', markdown: NUL }] }), 'files.0.markdown'],
  ['an episode message', '/v1/episodes', () => ({ messages: [{ role: 'user', text: NUL }] }), 'messages.0.text'],
  ['a turn query', '/v1/turns/start', () => ({ session_id: session, query: NUL }), 'query'],
  ['a turn answer', `/v1/turns/:turn/complete`, () => ({ answer: NUL }), 'answer'],
  ['a notice', '/v1/notices', () => ({ to: ['carol'], text: '\u0000' }), 'text'],
])('refuses NUL in %s with 400 KIOKU_INPUT_INVALID and appends nothing', async (_what, path, body, field) => {
  const before = head();
  const r = await s.call('POST', path.replace(':turn', turn), body());
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: { code: 'KIOKU_INPUT_INVALID', details: { field } } });
  expect(String((r.body['error'] as { message: string }).message)).toContain('NUL');
  expect(head()).toBe(before);
});

it('keeps every other control character of a memory as sent', async () => {
  const text = 'line one\r\n\tindented \u001b[31mred\u001b[0m \u000c page \u007f end';
  const r = await s.call('POST', '/v1/memories', { memories: [{ id: 'controls', kind: 'fact', text }] });
  expect(r.status).toBe(200);
  const got = await s.call('GET', `/v1/evidence/${encodeURIComponent('ev1:private:memory:controls')}`);
  expect(got.status).toBe(200);
  expect(JSON.stringify(got.body)).toContain(JSON.stringify(text).slice(1, -1));
});

it('kioku import reports a file holding NUL as that file\'s error and imports the others', async () => {
  const dir = tempDir('kioku-import-nul-');
  try {
    const cards = join(dir.path, 'cards');
    mkdirSync(cards);
    writeFileSync(join(cards, 'good.md'), '# Staging\n\nThe staging database is pg-2.\n');
    writeFileSync(join(cards, 'binary.md'), '# Blob\n\n\u0000\u0001\u0002');
    const r = await runCli(['import', 'cards', cards, '--data', join(dir.path, 'data'), '--no-embed', '--json']);
    expect(r.json).toMatchObject({ added: ['good'], errors: [{ file: 'binary.md' }] });
    expect(String((r.json?.['errors'] as { message: string }[])[0]?.message)).toContain('NUL');
  } finally {
    dir.cleanup();
  }
}, 60_000);
