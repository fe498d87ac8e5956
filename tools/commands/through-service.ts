// Commands that read the store itself (verify, log stats/show/export) — or, when the library's
// service owns it, go through that service (LevelDB lets one process own a store:
// architecture.md §measured). Which service: src/library.ts, the one resolution every command uses.
import type { PathOverrides } from '../../src/config.js';
import { isKiokuError } from '../../src/errors.js';
import type { Kioku } from '../../src/kioku.js';
import { connectKioku, resolveLibrary } from '../server-client.js';

/** `local()` on the store unless a service owns the library (or KIOKU_URL names one); else, or when the store turns out held, `remote()` with that service's facade and a phrase naming it. */
export async function storeOrService<T>(flags: PathOverrides, local: () => Promise<T>, remote: (kioku: Kioku, via: string) => Promise<T>): Promise<T> {
  if (!resolveLibrary(flags).url) {
    try {
      return await local();
    } catch (err) {
      if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
    }
  }
  const { kioku, via } = await connectKioku(flags);
  try {
    return await remote(kioku, via);
  } finally {
    await kioku.close();
  }
}
