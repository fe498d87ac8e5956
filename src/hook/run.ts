// One hook call from Claude Code or Codex: the host's JSON on stdin, Kioku's answer on stdout in
// the host's format. UserPromptSubmit → start a turn (recall once) and inject the delivery;
// Stop → complete the turn with the final answer (it becomes evidence); SessionStart → the
// standing directives, constraints and the time. Reads fail open: whatever goes wrong, the
// prompt is never blocked (exit 0, nothing injected, one line on stderr and in the hook log).
// A capture that fails is spooled and sent with the next successful call.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolvePaths, type PathOverrides } from '../config.js';
import { DEFAULT_NAMESPACE } from '../events/index.js';
import { openVault, redactWithVault } from '../privacy/index.js';
import type { Kioku } from '../kioku.js';
import { connect } from '../connect.js';
import { hookMaxChars, renderDelivery, renderStanding } from './render.js';
import { readTranscriptTail, type TranscriptTail } from './transcript.js';
import { headOf, keepingTheRule } from '../text/well-formed.js';

const MAX_ANSWER_CHARS = 1_000_000;

/** What a person already wrote, made to keep the one text rule and cut between whole characters: the hook cannot ask for it again. */
function capturable(text: string, max: number): string {
  return headOf(keepingTheRule(text), max);
}

export type Host = 'claude' | 'codex';

export interface HookInput {
  hook_event_name: string;
  session_id: string;
  transcript_path?: string;
  prompt?: string;
  cwd?: string;
  /** the answer that ended the turn, where the host sends it on Stop (Codex does; Claude Code's recent versions too) */
  last_assistant_message?: string;
}

// checked by hand: zod alone would cost the hook ~150 ms of start-up on every prompt
function parseHookInput(raw: string): HookInput {
  const v = JSON.parse(raw) as Record<string, unknown> | null;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected a JSON object');
  const text = (k: string, required = false): string | undefined => {
    const x = v[k];
    // Codex sends null for a transcript it does not have (and for an empty last message)
    if ((x === undefined || x === null) && !required) return undefined;
    if (typeof x !== 'string' || (required && x.length === 0)) throw new Error(`${k} must be a${required ? ' non-empty' : ''} string`);
    return x;
  };
  const sessionId = text('session_id', true) as string;
  if (sessionId.length > 512) throw new Error('session_id is longer than 512 characters');
  const out: HookInput = { hook_event_name: text('hook_event_name', true) as string, session_id: sessionId };
  for (const k of ['transcript_path', 'prompt', 'cwd', 'last_assistant_message'] as const) {
    const x = text(k);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

export interface HookOptions extends PathOverrides {
  host: Host;
  env?: NodeJS.ProcessEnv;
  /** the facade to use (tests); default: the service that owns the data dir, found or started */
  kioku?: () => Promise<Kioku>;
  now?: () => Date;
}

export interface HookResult {
  /** what to print on stdout ('' = nothing) */
  stdout: string;
  /** one line for stderr and the hook log, when something went wrong */
  problem?: string;
}

const DEFAULT_TIMEOUT_MS = 6_000;
const DEFAULT_RECALL_TIMEOUT_MS = 40_000;
/** setTimeout's largest delay; a larger one (and NaN, 0 or a negative) fires after 1 ms */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * KIOKU_HOOK_TIMEOUT / KIOKU_HOOK_RECALL_TIMEOUT: a positive number of milliseconds, else `fallback`.
 * Number('abc') is NaN, and setTimeout runs a NaN delay after 1 ms: every call timed out and the
 * hook injected nothing on any prompt, failing open with no hint of the typo.
 */
export function hookTimeoutMs(value: string | undefined, fallback: number): number {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(n) && n >= 1 ? Math.min(Math.round(n), MAX_TIMER_MS) : fallback;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** Claude Code rejects the whole object when it holds keys it does not know: exactly these. */
export function hostOutput(event: 'UserPromptSubmit' | 'SessionStart', text: string): string {
  return text ? JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }) : '';
}

/** One hook call's settings and files, decided once from the options and the environment. */
interface HookCall {
  options: HookOptions;
  input: HookInput;
  hookDir: string;
  /** the turn this session's prompt started, for its Stop */
  stateFile: string;
  /** captures that could not be sent, sent with the next successful call */
  spool: string;
  sessionId: string;
  timeout: number;
  recallTimeout: number;
  maxChars: number;
  log: (line: string) => void;
}

export async function runHook(raw: string, options: HookOptions): Promise<HookResult> {
  const env = options.env ?? process.env;
  const hookDir = join(resolvePaths(options).dataDir, 'hook');
  const log = (line: string): void => {
    try {
      mkdirSync(hookDir, { recursive: true });
      appendFileSync(join(hookDir, 'hook.log'), `${new Date().toISOString()} ${options.host} ${line}\n`);
    } catch {
      // the log is a courtesy; the hook never fails because of it
    }
  };
  let input: HookInput;
  try {
    input = parseHookInput(raw);
  } catch (err) {
    const problem = `kioku hook: not a hook event on stdin (${(err as Error).message.slice(0, 200)})`;
    log(problem);
    return { stdout: '', problem };
  }
  // scheduled, unattended runs neither recall nor capture
  if (env['CLAUDE_CODE_SESSION_ATTENDED'] === '0') return { stdout: '' };
  const sessionId = `${options.host}-${input.session_id}`.slice(0, 512);
  const call: HookCall = {
    options,
    input,
    hookDir,
    stateFile: join(hookDir, `${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.turn`),
    spool: join(hookDir, 'spool.jsonl'),
    sessionId,
    recallTimeout: hookTimeoutMs(env['KIOKU_HOOK_RECALL_TIMEOUT'], hookTimeoutMs(env['KIOKU_HOOK_TIMEOUT'], DEFAULT_RECALL_TIMEOUT_MS)),
    timeout: hookTimeoutMs(env['KIOKU_HOOK_TIMEOUT'], DEFAULT_TIMEOUT_MS),
    maxChars: hookMaxChars(env['KIOKU_HOOK_MAX_CHARS']),
    log,
  };
  // the hook starts no service unless KIOKU_AUTOSTART=1, and never one the user stopped (src/connect.ts)
  const kioku = options.kioku ?? (async () => (await connect({ ...options, env, client: 'hook', startTimeoutMs: call.timeout })).kioku);
  try {
    const k = await withTimeout(kioku(), call.timeout, 'finding the Kioku service');
    rmSync(join(hookDir, DOWN_NOTICE), { force: true }); // up again: the next outage is told again
    await flushSpool(call, k).catch(() => undefined);
    if (input.hook_event_name === 'UserPromptSubmit') return await onPrompt(call, k);
    if (input.hook_event_name === 'Stop') return await onStop(call, k);
    if (input.hook_event_name === 'SessionStart') return await onSessionStart(call, k);
    // PreCompact, PostCompact and anything else: nothing to do (context_since covers compaction)
    return { stdout: '' };
  } catch (err) {
    return failOpen(call, err);
  }
}

/** UserPromptSubmit: start a turn (recall once) and inject its delivery. */
async function onPrompt(call: HookCall, k: Kioku): Promise<HookResult> {
  const { input, options, timeout } = call;
  const prompt = input.prompt ?? '';
  if (!prompt.trim()) return { stdout: '' };
  const t = tail(input);
  // no compaction found within the scan's bounds: the whole session counts as visible (nothing re-sent)
  if (t.compaction_scan)
    call.log(
      `no compaction in the last ${Math.round(t.compaction_scan.scanned_bytes / 1048576)} MB before the tail (stopped by ${t.compaction_scan.stopped}); the whole session counts as visible`,
    );
  await withTimeout(k.openSession({ agent: options.host === 'claude' ? 'claude-code' : 'codex', session_id: call.sessionId }), timeout, 'opening the session');
  // a prompt holding NUL or cut inside an emoji would be refused whole: the turn is captured without them
  const packet = await withTimeout(
    k.startTurn({
      session_id: call.sessionId,
      query: capturable(prompt, 20_000),
      ...(t.dialogue.length ? { conversation: t.dialogue.map((m) => ({ role: m.role, content: keepingTheRule(m.content) })) } : {}),
      ...(t.context_since ? { context_since: t.context_since } : {}),
    }),
    call.recallTimeout,
    'recall',
  );
  mkdirSync(call.hookDir, { recursive: true });
  writeFileSync(call.stateFile, packet.turn_id);
  return { stdout: hostOutput('UserPromptSubmit', renderDelivery(packet, call.maxChars)) };
}

/** Stop: complete the turn with the final answer (it becomes evidence); spooled when that fails. */
async function onStop(call: HookCall, k: Kioku): Promise<HookResult> {
  if (!existsSync(call.stateFile)) return { stdout: '' };
  const turnId = readFileSync(call.stateFile, 'utf8').trim();
  const last = call.input.last_assistant_message;
  const answer = last?.trim() ? last : tail(call.input).last_answer;
  if (!answer) return { stdout: '' };
  // what a person wrote is captured even when it holds NUL or half an emoji (the service refuses both)
  const sent = capturable(answer, MAX_ANSWER_CHARS);
  try {
    await withTimeout(k.completeTurn(turnId, { answer: sent }), call.timeout, 'capturing the answer');
  } catch (err) {
    appendFileSync(call.spool, spoolLine(call, turnId, sent));
    throw err;
  }
  rmSync(call.stateFile, { force: true });
  return { stdout: '' };
}

/** SessionStart: the standing directives and constraints, and the time. */
async function onSessionStart(call: HookCall, k: Kioku): Promise<HookResult> {
  const [directives, constraints] = await Promise.all([
    withTimeout(k.items({ layers: ['memory'], kinds: ['directive', 'preference'], limit: 30 }), call.timeout, 'directives'),
    withTimeout(k.items({ layers: ['memory'], kinds: ['constraint'], limit: 30 }), call.timeout, 'constraints'),
  ]);
  const view = (a: typeof directives) => a.items.map((e) => ({ evidence_key: e.key, text: e.text }));
  const now = (call.options.now ?? (() => new Date()))();
  return { stdout: hostOutput('SessionStart', renderStanding(now, view(directives), view(constraints), Math.min(call.maxChars, 4_000))) };
}

/** Whatever went wrong, the prompt goes on: one line on stderr and in the log, a down service told once, a Stop's answer spooled. */
function failOpen(call: HookCall, err: unknown): HookResult {
  const { input, options, stateFile, spool } = call;
  const problem = `kioku hook: ${input.hook_event_name} for ${options.host}: ${(err as Error).message.slice(0, 300)} (the prompt goes on without Kioku)`;
  const notRunning = (err as { code?: unknown }).code === 'KIOKU_SERVICE_NOT_RUNNING';
  // a service that is down is told to the user once per outage (not on every prompt), then only on stderr
  const firstTold = notRunning && tellOnce(join(call.hookDir, DOWN_NOTICE), (err as Error).message);
  if (!notRunning || firstTold) call.log(problem);
  if (input.hook_event_name === 'Stop' && existsSync(stateFile)) {
    // the turn's answer was spooled above when the capture itself failed; when the service was not reachable at all, spool it here
    const answer = tail(input).last_answer;
    const turnId = readFileSync(stateFile, 'utf8').trim();
    const spooled = existsSync(spool) && readFileSync(spool, 'utf8').includes(`"turn_id":${JSON.stringify(turnId)}`);
    if (answer && !spooled) appendFileSync(spool, spoolLine(call, turnId, answer));
    rmSync(stateFile, { force: true });
  }
  // Claude Code shows a hook's systemMessage to the user; Codex gets the line on stderr only
  const tell = firstTold && options.host === 'claude' && input.hook_event_name !== 'Stop';
  return { stdout: tell ? JSON.stringify({ systemMessage: `Kioku memory is off: ${(err as Error).message}` }) : '', problem };
}

/** The dialogue at the end of the host's transcript (none when it cannot be read). */
function tail(input: HookInput): TranscriptTail {
  try {
    return input.transcript_path && existsSync(input.transcript_path) ? readTranscriptTail(input.transcript_path) : { dialogue: [] };
  } catch {
    return { dialogue: [] };
  }
}

/**
 * A capture waiting in the spool for the service: its secrets go to this data dir's vault first
 * (issue 33), so no credential waits on disk in plaintext; the store's redaction then finds only
 * placeholders.
 */
function spoolLine(call: HookCall, turnId: string, answer: string): string {
  const env = call.options.env ?? process.env;
  const stored = redactWithVault(openVault(dirname(call.hookDir)), env['KIOKU_NAMESPACE'] || DEFAULT_NAMESPACE, answer);
  return `${JSON.stringify({ turn_id: turnId, answer: stored })}\n`;
}

/** Send the captures spooled while the service was unreachable; keep those that fail again. */
async function flushSpool(call: HookCall, k: Kioku): Promise<void> {
  const { spool } = call;
  if (!existsSync(spool)) return;
  const pending = readFileSync(spool, 'utf8').split('\n').filter(Boolean);
  const left: string[] = [];
  for (const line of pending) {
    try {
      const { turn_id, answer } = JSON.parse(line) as { turn_id: string; answer: string };
      // spooled as written when the service was down (failOpen): made to keep the one text rule now, or it is refused on every prompt
      await withTimeout(k.completeTurn(turn_id, { answer: capturable(answer, MAX_ANSWER_CHARS) }), call.timeout, 'a spooled capture');
    } catch {
      left.push(line);
    }
  }
  if (left.length) writeFileSync(`${spool}.tmp`, `${left.join('\n')}\n`);
  if (left.length) renameSync(`${spool}.tmp`, spool);
  else rmSync(spool, { force: true });
}

const DOWN_NOTICE = 'service-down.notice';

/** Whether `message` is news: not already recorded in `file` (then records it). */
function tellOnce(file: string, message: string): boolean {
  try {
    if (existsSync(file) && readFileSync(file, 'utf8') === message) return false;
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, message);
  } catch {
    // no place to remember it: say it again next time rather than never
  }
  return true;
}
