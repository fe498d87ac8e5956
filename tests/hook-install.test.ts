// The hook installer on settings files that already hold other hooks: idempotent, leaves the
// rest alone, writes atomically (an interrupted write leaves the old file), and uninstall
// restores exactly what was there.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookCommand, hookStatus, hookTarget, installHook, uninstallHook } from '../src/hook/install.js';
import { runCli, tempDir } from './helpers.js';

const existing = {
  model: 'opus',
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard.sh' }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Branch: $(git branch --show-current)"' }] }],
  },
};

describe('kioku hook install', () => {
  let home: ReturnType<typeof tempDir>;
  beforeEach(() => {
    home = tempDir();
  });
  afterEach(() => home.cleanup());

  for (const host of ['claude', 'codex'] as const) {
    it(`adds its three events to ${host}'s file once, however often it runs, and keeps every other hook`, () => {
      const target = hookTarget(host, undefined, home.path);
      mkdirSync(join(target.file, '..'), { recursive: true });
      const original = `${JSON.stringify(existing, null, 4)}\n`;
      writeFileSync(target.file, original);
      chmodSync(target.file, 0o600);
      const command = hookCommand(host, { node: '/usr/bin/node', bin: '/opt/kioku/bin/kioku.js' });
      installHook(target, command);
      installHook(target, command);
      const after = JSON.parse(readFileSync(target.file, 'utf8')) as typeof existing & { hooks: Record<string, { hooks: { command: string }[] }[]> };
      expect(after.model).toBe('opus');
      expect(after.hooks.PreToolUse).toEqual(existing.hooks.PreToolUse);
      expect(after.hooks['UserPromptSubmit']?.map((g) => g.hooks[0]?.command)).toEqual([existing.hooks.UserPromptSubmit[0]?.hooks[0]?.command, command]);
      expect(after.hooks['Stop']).toHaveLength(1);
      expect(after.hooks['SessionStart']).toHaveLength(1);
      expect(command).toBe(`/usr/bin/node /opt/kioku/bin/kioku.js hook run${host === 'codex' ? ' --host codex' : ''}`);
      expect(statSync(target.file).mode & 0o777).toBe(0o600);
      expect(hookStatus(target).events.sort()).toEqual(['SessionStart', 'Stop', 'UserPromptSubmit']);
      // uninstall: the very bytes that were there
      expect(uninstallHook(target).removed).toBe(true);
      expect(readFileSync(target.file, 'utf8')).toBe(original);
      expect(existsSync(`${target.file}.kioku-backup`)).toBe(false);
    });
  }

  it('creates a missing file and removes it again on uninstall; keeps edits made since install', () => {
    const target = hookTarget('claude', join(home.path, 'project'));
    installHook(target, hookCommand('claude', { bin: '/opt/kioku/bin/kioku.js', url: 'http://kioku.internal:18972', token: 'tok en' }));
    const text = readFileSync(target.file, 'utf8');
    expect(text).toContain("KIOKU_URL=http://kioku.internal:18972 KIOKU_TOKEN='tok en'");
    uninstallHook(target);
    expect(existsSync(target.file)).toBe(false);

    writeFileSync(join(home.path, 'x.json'), '');
    const other = hookTarget('codex', undefined, home.path);
    installHook(other, hookCommand('codex', { bin: '/b/kioku.js' }));
    const edited = JSON.parse(readFileSync(other.file, 'utf8')) as Record<string, unknown>;
    writeFileSync(other.file, JSON.stringify({ ...edited, theme: 'dark' }));
    uninstallHook(other);
    expect(JSON.parse(readFileSync(other.file, 'utf8'))).toEqual({ theme: 'dark' });
  });

  it('refuses a settings file that is not JSON and changes nothing; a write never leaves a half file', () => {
    const target = hookTarget('claude', undefined, home.path);
    mkdirSync(join(target.file, '..'), { recursive: true });
    writeFileSync(target.file, '{ "hooks": ');
    expect(() => installHook(target, 'kioku.js hook run')).toThrow(/not valid JSON/);
    expect(readFileSync(target.file, 'utf8')).toBe('{ "hooks": ');
    // the temp file is written and synced beside the target, then renamed over it: no temp is left behind
    writeFileSync(target.file, '{}');
    installHook(target, 'node kioku.js hook run');
    expect(readdirSync(join(target.file, '..')).filter((f) => f.includes('kioku-tmp'))).toEqual([]);
  });

  it('runs from the CLI: install, status, uninstall', async () => {
    const project = join(home.path, 'repo');
    const env = { HOME: home.path };
    const installed = await runCli(['hook', 'install', '--claude', '--codex', '--project', project, '--json'], env);
    expect(installed.code).toBe(0);
    expect(installed.json).toMatchObject({ installed: [{ file: join(project, '.claude', 'settings.json') }, { file: join(project, '.codex', 'hooks.json') }] });
    const status = await runCli(['hook', 'status', '--project', project, '--json'], env);
    expect(status.json).toMatchObject({
      hooks: [{ host: 'claude', events: ['UserPromptSubmit', 'Stop', 'SessionStart'] }, { host: 'codex' }],
      service: { url: null, recall_ok: false },
    });
    expect((await runCli(['hook', 'uninstall', '--claude', '--codex', '--project', project], env)).code).toBe(0);
    expect(existsSync(join(project, '.claude', 'settings.json'))).toBe(false);
  }, 60_000);
});
