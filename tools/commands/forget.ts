// kioku forget KEY|ID [--ns NS] [--reason TEXT] [--json]: the facade's forget (issue 33) — a memory
// by id or evidence key, a trace, an episode or an asset by its evidence key — tombstoned, so no
// view returns its text again (the log keeps its sealed bytes; `kioku purge` destroys them).
// Through the service when one runs (POST /v1/memories/{id}/forget), else on the store itself.
import type { PathOverrides } from '../../src/config.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface ForgetFlags extends OutputOptions, PathOverrides {
  /** the namespace of a bare memory id (default: the token's, or private) */
  ns?: string;
  reason?: string;
}

export async function forgetCommand(id: string, flags: ForgetFlags): Promise<number> {
  const { kioku, via } = await connectKioku(flags);
  try {
    const input = { ...(flags.ns !== undefined ? { namespace: flags.ns } : {}), ...(flags.reason !== undefined ? { reason: flags.reason } : {}) };
    const answer = await kioku.forget(id, input);
    const said = answer.forgotten ? `forgot ${answer.id}` : `${answer.id} was forgotten already (nothing appended)`;
    emit(flags, () => `${said}, through ${via}`, { ok: true, via, ...answer });
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}
