// kioku inbox | ack | outbox: notices between org members (issue 34), as the connection's token's member.
import type { Command } from 'commander';
import type { NoticeFlags } from '../notices.js';
import { action, onStore, type Define } from './options.js';

const withNs = (command: Command): Command => onStore(command).option('--ns <namespace>', 'the namespace (default: the token\'s, or private)');

export const inbox: Define = (program) => {
  withNs(program.command('inbox').description('what waits for you from colleagues (notes, assignments); shown = arrived').option('--all', 'also what you signed off')).action(
    action((flags: NoticeFlags) => import('../notices.js').then((m) => m.inboxCommand(flags))),
  );
};

export const ack: Define = (program) => {
  withNs(program.command('ack').description('sign off a notice of your inbox').argument('<notice>', 'its id (n-…) as inbox shows it').option('--note <text>', 'a short reply the sender sees')).action(
    action((id: string, flags: NoticeFlags) => import('../notices.js').then((m) => m.ackCommand(id, flags))),
  );
};

export const outbox: Define = (program) => {
  withNs(program.command('outbox').description('what you sent, per recipient sent, arrived or acked')).action(
    action((flags: NoticeFlags) => import('../notices.js').then((m) => m.outboxCommand(flags))),
  );
};
