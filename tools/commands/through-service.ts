// Commands that read the store itself when they can, and go through the library's service when
// it holds the store (LevelDB lets one process own it: architecture.md §measured).
import type { PathOverrides } from '../../src/config.js';
import { isKiokuError } from '../../src/errors.js';
import type { Kioku } from '../../src/kioku.js';
import { connectKioku } from '../server-client.js';

/** `local()` on the store; when a service holds it, `remote()` with that service's facade and a phrase naming it. */
export async function storeOrService<T>(flags: PathOverrides, local: () => Promise<T>, remote: (kioku: Kioku, via: string) => Promise<T>): Promise<T> {
  try {
    return await local();
  } catch (err) {
    if (!isKiokuError(err, 'KIOKU_STORE_LOCKED')) throw err;
  }
  const { kioku, via } = await connectKioku(flags);
  try {
    return await remote(kioku, via);
  } finally {
    await kioku.close();
  }
}
