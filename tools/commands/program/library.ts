// kioku verify | rebuild | backup | restore | store init: the library as a whole (its chain, its
// projections, a copy of it, the shared event table).
import type { BackupFlags } from '../backup.js';
import type { RebuildFlags } from '../rebuild.js';
import type { StoreInitFlags } from '../store.js';
import type { VerifyFlags } from '../verify.js';
import { action, jsonOption, onStore, storeOption, type Define } from './options.js';

export const verify: Define = (program) =>
  onStore(program.command('verify').description('verify the hash chain and every signed anchor (exit 0 clean, 1 damaged)'))
    .option('--write-anchor', 'after a clean verify, sign the head and append it to the anchors file')
    .option('--key <file>', 'anchor key file (default $KIOKU_ANCHOR_KEY or <data>/keys/anchor-ed25519.pem)')
    .option('--anchors <file>', 'anchors file (default $KIOKU_ANCHORS_FILE or <data>/anchors.jsonl)')
    .action(action((flags: VerifyFlags) => import('../verify.js').then((m) => m.verifyCommand(flags))));

export const rebuild: Define = (program) =>
  onStore(program.command('rebuild').description('rebuild projections from genesis (all, or the named ones)'))
    .option('--projection <name...>', 'only these projections')
    .action(action((flags: RebuildFlags) => import('../rebuild.js').then((m) => m.rebuildCommand(flags))));

export const backup: Define = (program) =>
  onStore(
    program
      .command('backup')
      .description(
        'a consistent, verified copy of a library into DIR, while its service runs or not (the chain up to a head, checked, and shown to restore; the anchors)',
      )
      .argument('<dir>', 'a new or empty directory'),
  )
    .option('--live-digests', "also compare with the service's own projections at the backup head (the service holds writes while it digests them)")
    .action(action((dir: string, flags: BackupFlags) => import('../backup.js').then((m) => m.backupCommand(dir, flags))));

export const restore: Define = (program) =>
  onStore(
    program
      .command('restore')
      .description(
        'a backup made by kioku backup as a new library (--data NEW): the chain imported and verified, projections rebuilt and checked against the backup (exit 1 if not equal)',
      )
      .argument('<dir>', 'the backup directory'),
  ).action(action((dir: string, flags: BackupFlags) => import('../backup.js').then((m) => m.restoreCommand(dir, flags))));

export const store: Define = (program) =>
  program
    .command('store')
    .description('the shared event store')
    .command('init')
    .description('create the PostgreSQL event table (index, append-only triggers) and data keys table; --grant gives a node role SELECT and INSERT on events, SELECT, INSERT and DELETE on keys')
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--grant <role>', 'a role the nodes log in as')
    .action(action((flags: StoreInitFlags) => import('../store.js').then((m) => m.storeInitCommand(flags))));
