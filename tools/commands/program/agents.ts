// kioku mcp | doctor | hook …: how an agent reaches the library (the MCP tool set, a check of that
// connection, the Claude Code / Codex hook and its installation).
import type { PathOverrides } from '../../../src/config.js';
import type { DoctorFlags } from '../doctor.js';
import type { HookFlags } from '../hook.js';
import type { HookInstallFlags } from '../hook-install.js';
import { action, dataOption, jsonOption, type Define } from './options.js';

export const mcp: Define = (program) =>
  program
    .command('mcp')
    .description('the MCP tool set over stdio (finds or starts the service that owns the data dir; KIOKU_URL for a remote one)')
    .addOption(dataOption())
    .action(action((flags: PathOverrides) => import('../mcp.js').then((m) => m.mcpCommand(flags))));

export const doctor: Define = (program) =>
  program
    .command('doctor')
    .description('check a real connection: start kioku mcp, handshake, list tools, run a recall (exit 0 ready or degraded, 1 failed)')
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--query <text>', 'the recall to run')
    .option('--expect-id <id>', 'fail unless this id or evidence key is among the results')
    .option('--require-semantic', 'fail unless the vector lane was used')
    .option('--require-judge', 'fail unless the judge completed')
    .action(action((flags: DoctorFlags) => import('../doctor.js').then((m) => m.doctorCommand(flags))));

const INSTALL_COMMANDS = [
  ['install', 'add the hook to Claude Code (settings.json) and/or Codex (hooks.json); idempotent, atomic, backed up', 'hookInstallCommand'],
  ['uninstall', 'remove exactly what install added', 'hookUninstallCommand'],
  ['status', 'what is installed where', 'hookStatusCommand'],
] as const;

export const hook: Define = (program) => {
  const hook = program.command('hook').description('the agent hook for Claude Code and Codex');
  hook
    .command('run')
    .description("handle one hook event: the host's JSON on stdin, the host's output on stdout (always exit 0)")
    .addOption(dataOption())
    .option('--host <host>', 'claude (default) or codex', 'claude')
    .action(action((flags: HookFlags) => import('../hook.js').then((m) => m.hookRunCommand(flags))));
  for (const [name, description, run] of INSTALL_COMMANDS)
    hook
      .command(name)
      .description(description)
      .addOption(dataOption())
      .addOption(jsonOption())
      .option('--claude', 'Claude Code (the default when neither is named)')
      .option('--codex', 'Codex')
      .option('--project <dir>', "a project's settings instead of the user's")
      .option('--url <url>', 'a remote Kioku service for the hook to use')
      .option('--token <token>', 'its bearer token')
      .action(action((flags: HookInstallFlags) => import('../hook-install.js').then((m) => m[run](flags))));
};
