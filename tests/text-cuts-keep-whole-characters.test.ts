// A text Kioku cuts or a person already wrote never reaches the service as a text the one rule
// (src/text/well-formed.ts: no NUL, no lone surrogate) refuses or UTF-8 cannot keep:
//  - a turn's dialogue message is clipped to its last 600 characters; a clip inside an emoji left a
//    lone surrogate, stored as U+FFFD, so the log held another text than its conversation_fingerprint;
//  - the hook cut a prompt at 20,000 and an answer at 1,000,000 UTF-16 units, and sent NUL as
//    written: the service refused the whole turn (400), so the prompt got no recall and was never
//    captured, and a refused answer sat in the spool for ever.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHook } from '../src/hook/run.js';
import { conversationFingerprint } from '../src/recall/conversation.js';
import { renderItems, type ItemView } from '../src/mcp/render.js';
import { repairTitle } from '../src/recall/delivery.js';
import { excerpt } from '../src/text/excerpt.js';
import { hasLoneSurrogate, headOf, tailOf } from '../src/text/index.js';
import { startTestServer, type TestServer } from './server-helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

/** Every record of `type` in the server's log, in order. */
async function recordsOfType(type: string): Promise<{ data: unknown }[]> {
  const out: { data: unknown }[] = [];
  for await (const r of s.state.store!.log.read({ types: [type] })) out.push({ data: r.data });
  return out;
}

type Started = { query: string; conversation?: { role: string; text: string }[]; conversation_fingerprint?: string };
const started = async (): Promise<Started[]> => (await recordsOfType('turn.started')).map((r) => r.data as Started);

it('cuts a text only between whole characters', () => {
  const emoji = '😀'.repeat(3); // 6 UTF-16 units
  expect(headOf(emoji, 3)).toBe('😀');
  expect(headOf(emoji, 4)).toBe('😀😀');
  expect(tailOf(emoji, 3)).toBe('😀');
  expect(tailOf(`a${emoji}`, 6)).toBe(emoji);
  expect(headOf('abc', 5)).toBe('abc');
});

it('a memory titled by its long first line keeps whole characters (defect: the 120-unit cut split an emoji)', async () => {
  const text = `${'a'.repeat(118)}😀 and the rest of the line`; // the emoji's halves at units 118 and 119
  const r = await s.call('POST', '/v1/memories', { memories: [{ id: 'emoji-title', kind: 'fact', text }] });
  expect(r.status).toBeLessThan(300);
  const title = s.state.store!.projections.views.records.get('ev1:private:memory:emoji-title')?.title ?? '';
  expect(hasLoneSurrogate(title)).toBe(false);
  expect(title).toBe(`${'a'.repeat(118)}…`);
});

it('a repaired title, an excerpt cut mid-word and a replayed query keep whole characters too (defect: each split an emoji)', async () => {
  const title = repairTitle('', `${'a'.repeat(118)}😀 and the rest of the sentence.`);
  expect(hasLoneSurrogate(title)).toBe(false);
  expect(title).toBe(`${'a'.repeat(118)}…`);
  const cut = excerpt('😀'.repeat(2_000), 1_001).text; // no space, no block boundary: the hard cut
  expect(hasLoneSurrogate(cut)).toBe(false);
  expect(cut).toBe('😀'.repeat(500));
  const session = ((await s.call('POST', '/v1/sessions/open', { agent: 'replay-cut' })).body as { session_id: string }).session_id;
  const query = `${'q'.repeat(199)}😀 what did we decide?`; // the replay's 200-unit cut falls inside the emoji
  expect((await s.call('POST', '/v1/turns/start', { session_id: session, query })).status).toBe(200);
  const turns = ((await s.call('POST', '/v1/replay', {})).body as { turns: { session_id: string; query: string }[] }).turns;
  const replayed = turns.find((t) => t.session_id === session)?.query ?? '';
  expect(hasLoneSurrogate(replayed)).toBe(false);
  expect(replayed).toBe('q'.repeat(199));
});

it('an MCP tool’s line per item keeps whole characters (defect: the 400-unit cut split an emoji)', () => {
  const line = renderItems([{ evidence_key: 'ev1:private:memory:m', id: 'm', layer: 'memory', title: 't', text: `${'a'.repeat(399)}😀 more`, occurred_at: '', status: 'active' } as ItemView], '');
  expect(hasLoneSurrogate(line)).toBe(false);
  expect(line).toBe(`- [ev1:private:memory:m] ${'a'.repeat(399)}`);
});

it('stores a clipped dialogue message without half an emoji, matching its fingerprint', async () => {
  const session = ((await s.call('POST', '/v1/sessions/open', { agent: 'clip' })).body as { session_id: string }).session_id;
  const content = `${'😀'.repeat(400)}a`; // the last 600 units start inside an emoji
  const r = await s.call('POST', '/v1/turns/start', { session_id: session, query: 'what about the emoji?', conversation: [{ role: 'user', content }] });
  expect(r.status).toBe(200);
  const turn = (await started()).at(-1)!;
  const text = turn.conversation![0]!.text;
  expect(text).not.toContain('\uFFFD');
  expect(text).toBe(`${'😀'.repeat(299)}a`);
  expect(turn.conversation_fingerprint).toBe(conversationFingerprint([{ role: 'user', content: text }]));
});

it('the hook captures a prompt holding NUL or cut inside an emoji, and an answer holding NUL', async () => {
  const opts = { data: s.dir, host: 'claude' as const, env: { PATH: process.env['PATH'] ?? '', HOME: s.dir, KIOKU_URL: s.url } };
  const event = (hook_event_name: string, extra: Record<string, unknown>) =>
    JSON.stringify({ hook_event_name, session_id: 'cuts', transcript_path: null, cwd: '/repo', ...extra });
  await runHook(event('UserPromptSubmit', { prompt: 'the pasted log says\u0000 disk full; what now?' }), opts);
  expect((await started()).at(-1)?.query).toBe('the pasted log says disk full; what now?');

  const long = `${'x'.repeat(19_999)}😀 and more`; // the cut at 20,000 falls inside the emoji
  await runHook(event('UserPromptSubmit', { prompt: long }), opts);
  const query = (await started()).at(-1)!.query;
  expect(query).toBe('x'.repeat(19_999));
  expect(hasLoneSurrogate(query)).toBe(false);

  const turnId = readFileSync(join(s.dir, 'hook', 'claude-cuts.turn'), 'utf8');
  await runHook(event('Stop', { last_assistant_message: 'Free some space:\u0000 run the cleanup.' }), opts);
  const artifacts = await s.call('GET', `/v1/artifacts/${turnId}`);
  expect(artifacts.body).toMatchObject({ completed: true });
  const completed = (await recordsOfType('turn.completed')).map((r) => r.data as { turn_id: string; answer: string });
  expect(completed.find((c) => c.turn_id === turnId)?.answer).toBe('Free some space: run the cleanup.');
}, 60_000);

it('a spooled answer holding NUL (spooled as written while the service was down) is captured by the next prompt', async () => {
  const opts = { data: s.dir, host: 'claude' as const, env: { PATH: process.env['PATH'] ?? '', HOME: s.dir, KIOKU_URL: s.url } };
  const event = (hook_event_name: string, extra: Record<string, unknown>) =>
    JSON.stringify({ hook_event_name, session_id: 'spooled', transcript_path: null, cwd: '/repo', ...extra });
  await runHook(event('UserPromptSubmit', { prompt: 'how do we rotate the staging keys?' }), opts);
  const turnId = readFileSync(join(s.dir, 'hook', 'claude-spooled.turn'), 'utf8').trim();
  appendFileSync(join(s.dir, 'hook', 'spool.jsonl'), `${JSON.stringify({ turn_id: turnId, answer: 'Rotate them with\u0000 the vault CLI.' })}\n`);
  await runHook(event('UserPromptSubmit', { prompt: 'and the production keys?' }), opts);
  const completed = (await recordsOfType('turn.completed')).map((r) => r.data as { turn_id: string; answer: string });
  expect(completed.find((c) => c.turn_id === turnId)?.answer).toBe('Rotate them with the vault CLI.');
  expect(existsSync(join(s.dir, 'hook', 'spool.jsonl'))).toBe(false);
}, 60_000);

