// kioku purge --memory ID | --session ID | --namespace NS [--reason TEXT] [--yes] [--json]
// Crypto-shredding (issue 33): the data keys of a memory, a session or a whole namespace are
// deleted, a `purged` event names what is gone, and the projections and their snapshots are
// rewritten without it. It cannot be undone, so it asks for --yes. Through the service when one
// runs (POST /v1/purge), else on the store itself.
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import type { PurgeInput } from '../../src/wire.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface PurgeFlags extends OutputOptions, PathOverrides {
  memory?: string;
  session?: string;
  namespace?: string;
  /** the namespace of --memory or --session (default: the token's, or private) */
  ns?: string;
  reason?: string;
  yes?: boolean;
}

/** The one scope the flags name (exactly one of --memory, --session, --namespace). */
export function purgeInputOf(flags: PurgeFlags): PurgeInput {
  const named = [flags.memory !== undefined, flags.session !== undefined, flags.namespace !== undefined].filter(Boolean).length;
  if (named !== 1) throw new KiokuError('KIOKU_USAGE', 'name what to purge: exactly one of --memory ID, --session ID, --namespace NS');
  const reason = flags.reason !== undefined ? { reason: flags.reason } : {};
  if (flags.namespace !== undefined) return { scope: 'namespace', namespace: flags.namespace, ...reason };
  const ns = flags.ns !== undefined ? { namespace: flags.ns } : {};
  return flags.memory !== undefined ? { scope: 'memory', id: flags.memory, ...ns, ...reason } : { scope: 'session', id: flags.session as string, ...ns, ...reason };
}

export async function purgeCommand(flags: PurgeFlags): Promise<number> {
  const input = purgeInputOf(flags);
  const what = input.scope === 'namespace' ? `namespace ${input.namespace}` : `${input.scope} ${input.id}`;
  if (!flags.yes) throw new KiokuError('KIOKU_USAGE', `purging ${what} cannot be undone (its text becomes unrecoverable): run again with --yes`);
  const { kioku, via } = await connectKioku(flags);
  try {
    const answer = await kioku.purge(input);
    emit(flags, () => `purged ${what}: ${answer.units} data key(s) deleted, ${answer.items} item(s) without text (event ${answer.seq}), through ${via}`, { ok: true, via, ...answer });
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}
