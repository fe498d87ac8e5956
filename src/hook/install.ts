// Installing the hook into Claude Code's settings.json and Codex's hooks.json. Idempotent:
// Kioku's own entries (recognised by their `kioku … hook run` command) are replaced, never
// duplicated, and every other hook is left as it was. Writes are atomic (temp file + rename,
// the original mode kept) and the previous file is kept as `<file>.kioku-backup`; uninstall
// removes exactly what install added.
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { KiokuError } from '../errors.js';

export type HookHost = 'claude' | 'codex';
export const HOOK_EVENTS = ['UserPromptSubmit', 'Stop', 'SessionStart'] as const;
/** The installer's own entries: a command that runs `kioku … hook run`. */
const OURS = /kioku(?:\.js|\.ts)?['"]?\s+hook\s+run\b/;
/** A file that did not exist before install: uninstall removes it again when nothing else is left. */
const ABSENT = '{"kioku":"absent"}\n';

export interface HookTarget {
  host: HookHost;
  file: string;
}

export function hookTarget(host: HookHost, project?: string, home = homedir()): HookTarget {
  const base = project ?? home;
  return { host, file: host === 'claude' ? join(base, '.claude', 'settings.json') : join(base, '.codex', 'hooks.json') };
}

interface HookEntry {
  type?: string;
  command?: string;
  timeout?: number;
  [k: string]: unknown;
}
interface HookGroup {
  matcher?: string;
  hooks?: HookEntry[];
  [k: string]: unknown;
}
type Settings = { hooks?: Record<string, HookGroup[] | unknown>; [k: string]: unknown };

function readSettings(file: string): Settings {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new KiokuError('KIOKU_USAGE', `${file} is not valid JSON (${(cause as Error).message}); fix it or move it away, nothing was changed`, { cause });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new KiokuError('KIOKU_USAGE', `${file} does not hold a JSON object; nothing was changed`);
  return parsed as Settings;
}

/** Write atomically: a temp file beside it, synced, renamed over; the original's mode kept. */
export function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const tmp = `${file}.kioku-tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  const fd = openSync(tmp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

const isOurs = (h: HookEntry): boolean => typeof h.command === 'string' && OURS.test(h.command);

/** Settings without Kioku's entries (groups and events emptied by that removed too). */
export function withoutKioku(settings: Settings): Settings {
  if (!settings.hooks || typeof settings.hooks !== 'object') return settings;
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = (groups as HookGroup[])
      .map((g) => (Array.isArray(g.hooks) ? { ...g, hooks: g.hooks.filter((h) => !isOurs(h)) } : g))
      .filter((g, i) => !Array.isArray(g.hooks) || g.hooks.length > 0 || !(groups as HookGroup[])[i]?.hooks?.some(isOurs));
    if (kept.length) hooks[event] = kept;
  }
  const { hooks: _drop, ...rest } = settings;
  return Object.keys(hooks).length ? { ...rest, hooks } : rest;
}

export function hookCommand(host: HookHost, options: { node?: string; bin: string; data?: string; url?: string; token?: string }): string {
  const q = (s: string): string => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const env = [options.url ? `KIOKU_URL=${q(options.url)}` : '', options.token ? `KIOKU_TOKEN=${q(options.token)}` : ''].filter(Boolean);
  return [
    ...env,
    q(options.node ?? process.execPath),
    q(options.bin),
    'hook',
    'run',
    ...(host === 'codex' ? ['--host', 'codex'] : []),
    ...(options.data ? ['--data', q(options.data)] : []),
  ].join(' ');
}

export function installHook(target: HookTarget, command: string): { file: string; events: string[] } {
  const before = existsSync(target.file) ? readFileSync(target.file, 'utf8') : undefined;
  const settings = withoutKioku(readSettings(target.file));
  const hooks = { ...((settings.hooks as Record<string, unknown> | undefined) ?? {}) };
  for (const event of HOOK_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as HookGroup[])] : [];
    groups.push({ hooks: [{ type: 'command', command, timeout: 50 }] });
    hooks[event] = groups;
  }
  if (!existsSync(`${target.file}.kioku-backup`)) writeAtomically(`${target.file}.kioku-backup`, before ?? ABSENT);
  writeAtomically(target.file, `${JSON.stringify({ ...settings, hooks }, null, 2)}\n`);
  return { file: target.file, events: [...HOOK_EVENTS] };
}

export function uninstallHook(target: HookTarget): { file: string; removed: boolean } {
  if (!existsSync(target.file)) return { file: target.file, removed: false };
  const settings = readSettings(target.file);
  const cleaned = withoutKioku(settings);
  const removed = JSON.stringify(cleaned) !== JSON.stringify(settings);
  const backup = `${target.file}.kioku-backup`;
  const original = existsSync(backup) ? readFileSync(backup, 'utf8') : undefined;
  if (original === ABSENT && Object.keys(cleaned).length === 0) rmSync(target.file);
  else if (original !== undefined && original !== ABSENT && sameWithoutKioku(original, cleaned))
    writeAtomically(target.file, original); // nothing else changed since install: the very bytes that were there
  else if (removed) writeAtomically(target.file, `${JSON.stringify(cleaned, null, 2)}\n`);
  rmSync(backup, { force: true });
  return { file: target.file, removed };
}

function sameWithoutKioku(originalText: string, cleaned: Settings): boolean {
  try {
    return JSON.stringify(withoutKioku(JSON.parse(originalText) as Settings)) === JSON.stringify(cleaned);
  } catch {
    return false;
  }
}

export function hookStatus(target: HookTarget): { file: string; exists: boolean; events: string[] } {
  if (!existsSync(target.file)) return { file: target.file, exists: false, events: [] };
  const settings = readSettings(target.file);
  const events = Object.entries((settings.hooks as Record<string, unknown>) ?? {})
    .filter(([, groups]) => Array.isArray(groups) && (groups as HookGroup[]).some((g) => Array.isArray(g.hooks) && g.hooks.some(isOurs)))
    .map(([event]) => event);
  return { file: target.file, exists: true, events };
}
