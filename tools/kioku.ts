#!/usr/bin/env node
// The `kioku` command line: the command definitions assembled into one program, and errors
// turned into exit codes (0 ok, 1 problem found, 2 usage/IO). Each command lives in tools/commands/.
import { Command, CommanderError } from 'commander';
import { EXIT, reportError } from './cli-util.js';
// Each family of commands is defined in tools/commands/program/; a command's own module (and what
// it needs: the HTTP server, the model runtime) loads only when that command runs.
import { doctor, hook, mcp } from './commands/program/agents.js';
import { exportItems, importItems, list, reembed } from './commands/program/items.js';
import { backup, rebuild, restore, store, verify } from './commands/program/library.js';
import { log } from './commands/program/log.js';
import { forget, purge, secret } from './commands/program/privacy.js';
import { org } from './commands/program/org.js';
import { ack, inbox, outbox } from './commands/program/notices.js';
import type { Define } from './commands/program/options.js';
import { ask, evaluate, lifecycle, recall, replay, report } from './commands/program/recall.js';
import { serve, status, stop, ui } from './commands/program/service.js';
import { packageVersion } from '../src/package-root.js';

/** The commands in the order `kioku --help` lists them. */
const COMMANDS: readonly Define[] = [
  serve,
  status,
  stop,
  ui,
  mcp,
  doctor,
  hook,
  verify,
  rebuild,
  importItems,
  list,
  exportItems,
  backup,
  restore,
  reembed,
  recall,
  ask,
  report,
  replay,
  lifecycle,
  evaluate,
  store,
  log,
  org,
  inbox,
  ack,
  outbox,
  secret,
  forget,
  purge,
];

export function buildProgram(): Command {
  const program = new Command('kioku')
    .description('Kioku: a local-first, event-sourced knowledge and memory store for AI agents')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();
  for (const define of COMMANDS) define(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version are not errors; everything else commander raises is usage
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(err, {});
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}

process.exitCode = await main(process.argv);
