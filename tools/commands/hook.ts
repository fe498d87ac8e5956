// kioku hook run [--host claude|codex] [--data DIR]   — the agent hook: the host's JSON on stdin.
// Always exit 0: a hook that fails must never block the user's prompt.
import type { PathOverrides } from '../../src/config.js';
import { runHook, type Host } from '../../src/hook/run.js';

export interface HookFlags extends PathOverrides {
  host?: string;
}

export async function hookRunCommand(flags: HookFlags): Promise<number> {
  const host: Host = flags.host === 'codex' ? 'codex' : 'claude';
  let raw = '';
  for await (const chunk of process.stdin) raw += chunk;
  const result = await runHook(raw, { ...flags, host });
  if (result.stdout) process.stdout.write(`${result.stdout}\n`);
  if (result.problem) process.stderr.write(`${result.problem}\n`);
  return 0;
}
