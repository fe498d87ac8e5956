// kioku org …: the team's spaces and members (issue 34), each change an appended event.
import type { Command } from 'commander';
import type { OrgFlags } from '../org.js';
import type { OrgChangeInput } from '../../../src/wire.js';
import { action, onStore, type Define } from './options.js';

const run = (change: OrgChangeInput, flags: OrgFlags) => import('../org.js').then((m) => m.orgChangeCommand(change, flags));
const withNs = (command: Command): Command => onStore(command).option('--ns <namespace>', "the org's namespace (default: the token's, or private)");

export const org: Define = (program) => {
  const org = program.command('org').description("a namespace's team: spaces (a tree) and members (each acting through named tokens of the auth file)");
  withNs(org.command('list').description('the space tree and the members')).action(
    action((flags: OrgFlags) => import('../org.js').then((m) => m.orgListCommand(flags))),
  );
  const space = org.command('space').description('add, move or remove a space');
  withNs(space.command('add').argument('<space>', 'its name').option('--parent <space>', 'the space above it').option('--title <text>', 'a display title')).action(
    action((name: string, flags: OrgFlags) => run({ action: 'space_add', space: name }, flags)),
  );
  withNs(space.command('move').argument('<space>', 'its name').option('--parent <space>', 'the new space above it (none: top level)')).action(
    action((name: string, flags: OrgFlags) => run({ action: 'space_move', space: name }, flags)),
  );
  withNs(space.command('remove').argument('<space>', 'an empty space')).action(action((name: string, flags: OrgFlags) => run({ action: 'space_remove', space: name }, flags)));
  const member = org.command('member').description('add or remove a member; a member joins or leaves a space');
  withNs(
    member
      .command('add')
      .argument('<member>', 'its name')
      .option('--token <name...>', "the auth file's token names that act as this member (default: the member's name)")
      .option('--name <text>', 'a display name'),
  ).action(action((name: string, flags: OrgFlags) => run({ action: 'member_add', member: name }, flags)));
  withNs(member.command('remove').argument('<member>', 'its name')).action(action((name: string, flags: OrgFlags) => run({ action: 'member_remove', member: name }, flags)));
  withNs(member.command('join').argument('<member>', 'the member').argument('<space>', 'the space')).action(
    action((name: string, s: string, flags: OrgFlags) => run({ action: 'member_join', member: name, space: s }, flags)),
  );
  withNs(member.command('leave').argument('<member>', 'the member').argument('<space>', 'the space')).action(
    action((name: string, s: string, flags: OrgFlags) => run({ action: 'member_leave', member: name, space: s }, flags)),
  );
};
