// kioku secret reveal ID: the value behind a placeholder, from this machine's vault (issue 33).
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
