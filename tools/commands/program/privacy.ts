// kioku secret reveal ID: the value behind a placeholder, from this machine's vault (issue 33).
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
