// The chain of a library as read through its facade a page at a time (GET /v1/log/frames when a
// service holds it): a ChainSource, so `kioku log export` and `kioku backup` write the same
// chain file (src/log/transfer.ts) whether they read the store or its service.
import type { Kioku } from '../../src/kioku.js';
import { seqKey, type Head } from '../../src/log/index.js';
import type { ChainSource } from '../../src/log/verify.js';
import { exportChainToFile, readChainFile } from '../../src/log/transfer.js';
import { KiokuError } from '../../src/errors.js';
import { renameSync, rmSync } from 'node:fs';

/** Frames per page: a few MB of JSON per request. */
const PAGE = 2_000;

/** Records 1..head.seq of the library behind `kioku`, in pages. */
export function facadeChainSource(kioku: Kioku, head: Head): ChainSource {
  let next = 1;
  return {
    readHead: async () => (head.seq === 0 ? undefined : JSON.stringify(head)),
    nextChunk: async (size) => {
      if (next > head.seq) return [];
      const page = await kioku.logFrames({ from: next, to: head.seq, limit: Math.min(size, PAGE) });
      if (page.frames.length === 0) throw new KiokuError('KIOKU_CHAIN_DAMAGED', `the log answered no record ${next} although its head was ${head.seq}`, { details: { seq: next } });
      return page.frames.map((f): [string, Uint8Array] => [seqKey(next++), Buffer.from(f, 'base64')]);
    },
    close: async () => undefined,
  };
}

/**
 * Write the chain up to `head` to `file` (a partial file renamed into place once whole), then read
 * it back with every link and hash checked against `head`: a file that exists is a verified chain.
 */
export async function writeVerifiedChain(kioku: Kioku, head: Head, file: string): Promise<{ records: number; bytes: number }> {
  const partial = `${file}.partial`;
  try {
    const written = await exportChainToFile(facadeChainSource(kioku, head), head, partial);
    const { frames } = await readChainFile(partial);
    for await (const _ of frames); // throws KIOKU_CHAIN_DAMAGED at the first bad link, or a last hash that is not the head
    renameSync(partial, file);
    return written;
  } finally {
    rmSync(partial, { force: true });
  }
}
