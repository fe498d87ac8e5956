// The agent hook with real transcript fixtures (JSONL as Claude Code and Codex write them)
// against a real Kioku server: injected context for a relevant turn in the host's exact
// format, nothing for an acknowledgement, nothing and exit 0 fast when the service is down,
// the capture spooled and delivered after the service comes back, the unattended flag honoured.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_HEADER } from '../src/hook/render.js';
import { runHook } from '../src/hook/run.js';
import { readTranscriptTail } from '../src/hook/transcript.js';
import { REPO, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const fixture = (name: string): string => join(REPO, 'tests/fixtures/hook', name);

describe('reading a transcript from its end', () => {
  it('keeps the text after the last compaction, found by its field, not by a message that mentions it', () => {
    const t = readTranscriptTail(fixture('claude-compacted.jsonl'));
    expect(t.context_since).toBe('2026-11-29T11:00:00.000Z');
    expect(t.dialogue).toEqual([
      { role: 'user', content: 'Did anyone write compact_boundary in the incident notes?' },
      { role: 'assistant', content: 'No; the notes say to roll back billing with scripts/rollback.sh billing.' },
    ]);
    expect(t.last_answer).toBe('No; the notes say to roll back billing with scripts/rollback.sh billing.');
  });

  it('leaves out tool calls, tool output, summaries and a half-written line', () => {
    expect(readTranscriptTail(fixture('claude-tools.jsonl'))).toEqual({
      dialogue: [
        { role: 'user', content: 'How do we roll back billing?' },
        { role: 'assistant', content: 'Run scripts/rollback.sh billing, then check the ledger.' },
      ],
      last_answer: 'Run scripts/rollback.sh billing, then check the ledger.',
    });
  });

  it('reads a Codex rollout, leaving out its environment context', () => {
    expect(readTranscriptTail(fixture('codex-rollout.jsonl')).dialogue).toEqual([
      { role: 'user', content: 'Which script deploys staging?' },
      { role: 'assistant', content: 'scripts/deploy.sh deploys staging.' },
    ]);
  });

  it('reads the dialogue from the end of a long file only, and the compaction before it (issue 30)', () => {
    const t = readTranscriptTail(fixture('claude-compacted.jsonl'), { maxBytes: 400 });
    expect(t.dialogue.length).toBeLessThanOrEqual(2);
    expect(t.context_since).toBe('2026-11-29T11:00:00.000Z');
    const bounded = readTranscriptTail(fixture('claude-compacted.jsonl'), { maxBytes: 400, compactionScan: { maxBytes: 100, budgetMs: 1_000, chunkBytes: 50 } });
    expect(bounded.context_since).toBeUndefined();
    expect(bounded.compaction_scan).toEqual({ scanned_bytes: 100, stopped: 'bytes' });
  });
});

describe('kioku hook run against a real server', () => {
  let server: TestServer;
  const transcript = (): string => {
    const copy = join(server.dir, 'transcript.jsonl');
    copyFileSync(fixture('claude-compacted.jsonl'), copy);
    return copy;
  };
  const event = (hook_event_name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ hook_event_name, session_id: 'sess-1', transcript_path: transcript(), cwd: '/repo', ...extra });
  const env = (more: Record<string, string> = {}) => ({ PATH: process.env['PATH'] ?? '', HOME: server.dir, ...more });

  beforeAll(async () => {
    server = await startTestServer();
    await server.call('POST', '/v1/memories', {
      memories: [
        { id: 'rollback', kind: 'procedure', text: 'Roll back the billing service with scripts/rollback.sh billing, then check the ledger.' },
        { id: 'english', kind: 'directive', text: 'Always answer in English.' },
      ],
    });
  });
  afterAll(async () => server.stop());

  it('injects the delivery for a relevant prompt in exactly the shape Claude Code accepts, through the installed entry (bin/kioku.js → the bundle)', async () => {
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      // what `kioku hook install` writes: node <package>/bin/kioku.js hook run (npm test builds dist/ first)
      const child = spawn(process.execPath, [join(REPO, 'bin/kioku.js'), 'hook', 'run', '--data', server.dir], { cwd: REPO, env: env() });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
      child.stdin.end(event('UserPromptSubmit', { prompt: 'how do I roll back the billing service?' }));
    });
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    // no other keys: Claude Code rejects the whole object when it finds one it does not know
    expect(Object.keys(json)).toEqual(['hookSpecificOutput']);
    const specific = json['hookSpecificOutput'] as Record<string, string>;
    expect(Object.keys(specific).sort()).toEqual(['additionalContext', 'hookEventName']);
    expect(specific['hookEventName']).toBe('UserPromptSubmit');
    expect(specific['additionalContext']).toContain(HOOK_HEADER);
    expect(specific['additionalContext']).toContain('[ev1:private:memory:rollback]');
  }, 60_000);

  it('injects nothing for an acknowledgement, bounds what it injects, and captures the answer on Stop', async () => {
    const opts = { data: server.dir, host: 'claude' as const, env: env() };
    expect(await runHook(event('UserPromptSubmit', { prompt: 'thanks!' }), opts)).toEqual({ stdout: '' });
    // a new session (the first test's session was already handed this item), with a tight bound
    const small = await runHook(event('UserPromptSubmit', { prompt: 'how do I roll back billing?', session_id: 'sess-2' }), {
      ...opts,
      env: env({ KIOKU_HOOK_MAX_CHARS: '450' }),
    });
    const text = (JSON.parse(small.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(text.length).toBeLessThanOrEqual(450);
    expect(text).toContain('[ev1:private:memory:rollback]');
    const turnId = readFileSync(join(server.dir, 'hook', 'claude-sess-2.turn'), 'utf8');
    expect(await runHook(event('Stop', { session_id: 'sess-2' }), opts)).toEqual({ stdout: '' });
    const artifacts = await server.call('GET', `/v1/artifacts/${turnId}`);
    expect(artifacts.body).toMatchObject({ completed: true, session_id: 'claude-sess-2' });
    expect(existsSync(join(server.dir, 'hook', 'claude-sess-2.turn'))).toBe(false);
  });

  it("takes Codex's shapes: a null transcript_path, and the answer from last_assistant_message on Stop", async () => {
    // Codex's hook input (codex-rs/hooks/schema: user-prompt-submit / stop .command.input): turn_id,
    // model and permission_mode beside the common fields, transcript_path nullable
    const codex = (hook_event_name: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        hook_event_name,
        session_id: 'cx-1',
        turn_id: 't-1',
        cwd: '/repo',
        model: 'gpt-5',
        permission_mode: 'default',
        transcript_path: null,
        ...extra,
      });
    const opts = { data: server.dir, host: 'codex' as const, env: env() };
    const r = await runHook(codex('UserPromptSubmit', { prompt: 'how do I roll back the billing service?' }), opts);
    // the same object Codex's output schema allows (additionalProperties: false)
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(out.hookSpecificOutput.additionalContext).toContain('[ev1:private:memory:rollback]');
    const turnId = readFileSync(join(server.dir, 'hook', 'codex-cx-1.turn'), 'utf8');
    const answer = 'Run scripts/rollback.sh billing, then check the ledger.';
    expect(await runHook(codex('Stop', { last_assistant_message: answer, stop_hook_active: false }), opts)).toEqual({ stdout: '' });
    const artifacts = (await server.call('GET', `/v1/artifacts/${turnId}`)).body as Record<string, unknown>;
    expect(artifacts).toMatchObject({ completed: true, session_id: 'codex-cx-1' });
    expect(JSON.stringify(artifacts)).toContain(answer);
  });

  it('gives the standing directives and the time at session start', async () => {
    const r = await runHook(event('SessionStart', { source: 'startup' }), {
      data: server.dir,
      host: 'claude',
      env: env(),
      now: () => new Date('2026-11-29T12:00:00Z'),
    });
    const ctx = (JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;
    expect(ctx.hookEventName).toBe('SessionStart');
    expect(ctx.additionalContext).toContain('2026-11-29T12:00:00.000Z');
    expect(ctx.additionalContext).toContain('Always answer in English. [ev1:private:memory:english]');
  });

  it('honours the unattended flag: no recall, no capture', async () => {
    const before = (await server.call('GET', '/v1/stats')).body as { head: { seq: number } };
    const r = await runHook(event('UserPromptSubmit', { prompt: 'how do I roll back billing?' }), {
      data: server.dir,
      host: 'claude',
      env: env({ CLAUDE_CODE_SESSION_ATTENDED: '0' }),
    });
    expect(r).toEqual({ stdout: '' });
    expect(((await server.call('GET', '/v1/stats')).body as { head: { seq: number } }).head.seq).toBe(before.head.seq);
  });

  it('fails open within a second when the service is down, and delivers the spooled capture once it is back', async () => {
    const opts = { data: server.dir, host: 'claude' as const };
    await runHook(event('UserPromptSubmit', { prompt: 'how do I roll back billing?' }), { ...opts, env: env() });
    const turnId = readFileSync(join(server.dir, 'hook', 'claude-sess-1.turn'), 'utf8');
    const down = env({ KIOKU_URL: 'http://127.0.0.1:9' });
    const started = performance.now();
    const prompt = await runHook(event('UserPromptSubmit', { prompt: 'how do I roll back billing?' }), { ...opts, env: down });
    expect(prompt.stdout).toBe('');
    expect(prompt.problem).toMatch(/the prompt goes on without Kioku/);
    const stop = await runHook(event('Stop'), { ...opts, env: down });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stop.stdout).toBe('');
    expect(readFileSync(join(server.dir, 'hook', 'spool.jsonl'), 'utf8')).toContain(turnId);
    expect(readFileSync(join(server.dir, 'hook', 'hook.log'), 'utf8')).toMatch(/Stop for claude/);
    // the next call that reaches the service sends the spooled capture first
    await runHook(event('UserPromptSubmit', { prompt: 'thanks!' }), { ...opts, env: env() });
    expect(existsSync(join(server.dir, 'hook', 'spool.jsonl'))).toBe(false);
    expect((await server.call('GET', `/v1/artifacts/${turnId}`)).body).toMatchObject({ completed: true });
  });

  it('reports in hook status that the service answers a real recall', async () => {
    const { runCli } = await import('./helpers.js');
    const r = await runCli(['hook', 'status', '--data', server.dir, '--json'], { HOME: server.dir });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ service: { url: server.url, recall_ok: true } });
  }, 60_000);

  it('says what is wrong with input that is not a hook event, and still exits quietly', async () => {
    const r = await runHook('not json', { data: server.dir, host: 'codex', env: env() });
    expect(r.stdout).toBe('');
    expect(r.problem).toMatch(/not a hook event/);
  });
});
