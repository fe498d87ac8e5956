// kioku log stats | show SEQ | export --out FILE | import FILE: the event log itself.
import type { LogFlags } from '../log.js';
import { action, onStore, type Define } from './options.js';

export const log: Define = (program) => {
  const log = program.command('log').description('inspect the event log');
  onStore(log.command('stats').description('event counts and bytes per type and namespace')).action(
    action((flags: LogFlags) => import('../log.js').then((m) => m.logStatsCommand(flags))),
  );
  onStore(log.command('show').description('print one record').argument('<seq>', 'sequence number')).action(
    action((seq: string, flags: LogFlags) => import('../log.js').then((m) => m.logShowCommand(seq, flags))),
  );
  onStore(log.command('export').description('verify the chain, then write it byte for byte to a file (to move a library to another store)'))
    .requiredOption('--out <file>', 'the export file')
    .action(action((flags: LogFlags & { out?: string }) => import('../log.js').then((m) => m.logExportCommand(flags))));
  onStore(
    log
      .command('import')
      .description('write an export into an empty store (every link checked on reading), then verify it')
      .argument('<file>', 'a file made by kioku log export'),
  )
    .option('--keep-secrets', 'import a chain whose text holds credentials as it is (refused otherwise: its frames cannot be redacted without changing their hashes)')
    .action(action((file: string, flags: LogFlags & { keepSecrets?: boolean }) => import('../log.js').then((m) => m.logImportCommand(file, flags))));
};
