// kioku secret reveal ID [--ns NS] [--json]: one facade call (revealSecret) through the library's
// service when one runs (over loopback: local), else on the store itself.
import type { PathOverrides } from '../../src/config.js';
import type { RevealedSecret } from '../../src/privacy/index.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface SecretRevealFlags extends OutputOptions, PathOverrides {
  ns?: string;
}

export async function secretRevealCommand(id: string, flags: SecretRevealFlags): Promise<number> {
  const { kioku } = await connectKioku(flags);
  let revealed: RevealedSecret;
  try {
    revealed = await kioku.revealSecret({ id, ...(flags.ns ? { namespace: flags.ns } : {}) }, { actor: 'cli' });
  } finally {
    await kioku.close();
  }
  // the value alone on its line, so `$(kioku secret reveal ID)` is the credential
  emit(flags, () => revealed.value, revealed);
  return EXIT.ok;
}
