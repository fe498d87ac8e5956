// What every command definition shares: the library options (--data, --store, --json) and the
// action wrapper that turns a command's answer into the exit code and an error into its report.
// Definitions import only commander and these: a command's own module loads when it runs.
import { Command, Option } from 'commander';
import { reportError } from '../../cli-util.js';

/** Adds the commands of one family (service, hook, log, …) to the program. */
export type Define = (program: Command) => void;

export const dataOption = (): Option => new Option('--data <dir>', 'data directory (default $KIOKU_DATA_DIR or ~/.kioku)');
export const storeOption = (): Option =>
  new Option('--store <url>', 'event store: leveldb (default, the log in the data dir) or postgres://… (default $KIOKU_STORE)');
export const jsonOption = (): Option => new Option('--json', 'print one JSON object as the last line');

/** A command over one library's store: --data, --store and --json. */
export function onStore(command: Command): Command {
  return command.addOption(dataOption()).addOption(storeOption()).addOption(jsonOption());
}

/** The command's exit code from `run`, or from its error (reported with code and message, as JSON with --json). */
export function action<A extends unknown[]>(run: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const flags = (args.find((a) => a !== null && typeof a === 'object' && !(a instanceof Command)) ?? {}) as { json?: boolean };
    try {
      process.exitCode = await run(...args);
    } catch (err) {
      process.exitCode = reportError(err, flags);
    }
  };
}
