#!/usr/bin/env node
// The `kioku` command line. Each command lives in tools/commands/; this file wires
// flags to them and turns errors into exit codes (0 ok, 1 problem found, 2 usage/IO).
import { Command, CommanderError, Option } from 'commander';
import { EXIT, reportError } from './cli-util.js';
import { verifyCommand } from './commands/verify.js';
import { rebuildCommand } from './commands/rebuild.js';
import { logShowCommand, logStatsCommand } from './commands/log.js';

const dataOption = (): Option => new Option('--data <dir>', 'data directory (default $KIOKU_DATA_DIR or ~/.kioku)');
const jsonOption = (): Option => new Option('--json', 'print one JSON object as the last line');

function action<A extends unknown[]>(run: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const flags = (args.find((a) => a !== null && typeof a === 'object' && !(a instanceof Command)) ?? {}) as { json?: boolean };
    try {
      process.exitCode = await run(...args);
    } catch (err) {
      process.exitCode = reportError(err, flags);
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('kioku')
    .description('Kioku: a local-first, event-sourced knowledge and memory store for AI agents')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('verify')
    .description('verify the hash chain and every signed anchor (exit 0 clean, 1 damaged)')
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--write-anchor', 'after a clean verify, sign the head and append it to the anchors file')
    .option('--key <file>', 'anchor key file (default $KIOKU_ANCHOR_KEY or <data>/keys/anchor-ed25519.pem)')
    .option('--anchors <file>', 'anchors file (default $KIOKU_ANCHORS_FILE or <data>/anchors.jsonl)')
    .action(action((flags: Parameters<typeof verifyCommand>[0]) => verifyCommand(flags)));

  program
    .command('rebuild')
    .description('rebuild projections from genesis (all, or the named ones)')
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--projection <name...>', 'only these projections')
    .action(action((flags: Parameters<typeof rebuildCommand>[0]) => rebuildCommand(flags)));

  const log = program.command('log').description('inspect the event log');
  log
    .command('stats')
    .description('event counts and bytes per type and namespace')
    .addOption(dataOption())
    .addOption(jsonOption())
    .action(action((flags: Parameters<typeof logStatsCommand>[0]) => logStatsCommand(flags)));
  log
    .command('show')
    .description('print one record')
    .argument('<seq>', 'sequence number')
    .addOption(dataOption())
    .addOption(jsonOption())
    .action(action((seq: string, flags: Parameters<typeof logShowCommand>[1]) => logShowCommand(seq, flags)));

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
