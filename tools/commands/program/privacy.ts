// kioku secret reveal ID: the value behind a placeholder, from this machine's vault (issue 33).
import type { ForgetFlags } from '../forget.js';
import type { PurgeFlags } from '../purge.js';
import type { SecretRevealFlags } from '../secret.js';
import { action, onStore, type Define } from './options.js';

export const secret: Define = (program) => {
  const secret = program.command('secret').description('credentials Kioku replaced by placeholders ⟦secret:kind:id⟧ before storing text');
  onStore(
    secret
      .command('reveal')
      .description("print the value behind a placeholder, from this machine's vault (refused to a remote service's callers)")
      .argument('<id>', 'the placeholder id, or the whole ⟦secret:kind:id⟧'),
  )
    .option('--ns <namespace>', "namespace (default: the token's, private without one)")
    .action(action((id: string, flags: SecretRevealFlags) => import('../secret.js').then((m) => m.secretRevealCommand(id, flags))));
};

// kioku purge: crypto-shredding of a memory, a session or a namespace (issue 33)
export const purge: Define = (program) =>
  onStore(
    program
      .command('purge')
      .description('make a memory, a session or a whole namespace unrecoverable: its data keys deleted, its text gone from every view and snapshot (asks for --yes)'),
  )
    .option('--memory <id>', 'the memory to purge (in --ns or the token’s namespace)')
    .option('--session <id>', 'the session whose turns (and the memories and episodes written in it) to purge')
    .option('--namespace <ns>', 'purge every memory, trace, episode and asset of this namespace')
    .option('--ns <namespace>', 'the namespace of --memory or --session')
    .option('--reason <text>', 'why (kept in the purged event)')
    .option('--yes', 'yes: it cannot be undone')
    .action(action((flags: PurgeFlags) => import('../purge.js').then((m) => m.purgeCommand(flags))));

// kioku forget: the facade's forget, a tombstone (issue 33)
export const forget: Define = (program) =>
  onStore(
    program
      .command('forget')
      .description('forget a memory (by id or evidence key) or a trace, an episode or an asset (by evidence key): no view returns its text again; the log keeps it sealed (kioku purge destroys it)')
      .argument('<id>', 'a memory id, or an evidence key ev1:<namespace>:<layer>:<id>'),
  )
    .option('--ns <namespace>', "namespace of a bare memory id (default: the token's, private without one)")
    .option('--reason <text>', 'why (kept in the tombstone)')
    .action(action((id: string, flags: ForgetFlags) => import('../forget.js').then((m) => m.forgetCommand(id, flags))));
