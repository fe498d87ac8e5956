// `kioku log import` and secrets (issue 33): a chain is imported byte for byte and verified against
// the exported head, so a frame cannot be redacted on the way in (its hash, and every hash after
// it, would change, and the export's anchors would no longer verify). Every frame is read first —
// sealed texts opened with the keys exported beside the chain — and an export whose text holds
// what the rules take for a credential is refused before anything is written, naming the record,
// its field and the kind (never the value). `--keep-secrets` imports it as it is, knowingly.
import { existsSync, readFileSync } from 'node:fs';
import { KiokuError } from '../../src/errors.js';
import type { LogRecord } from '../../src/events/index.js';
import { decodeBody } from '../../src/log/index.js';
import { readChainFile } from '../../src/log/transfer.js';
import { openRecord, redactEventData } from '../../src/privacy/index.js';

export interface SecretInChain {
  seq: number;
  type: string;
  field: string;
  kind: string;
}

/** The data keys of an export's key file (`<file>.keys`), by key id; none without the file. */
function keysBeside(keysFile: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  if (!existsSync(keysFile)) return keys;
  for (const line of readFileSync(keysFile, 'utf8').split('\n')) {
    try {
      const k = JSON.parse(line) as { kid?: unknown; key?: unknown };
      if (typeof k.kid === 'string' && typeof k.key === 'string') keys.set(k.kid, Buffer.from(k.key, 'base64'));
    } catch {
      // a torn or empty line holds no key
    }
  }
  return keys;
}

/** The first record of the export `file` whose text holds a secret, or undefined. */
export async function firstSecretInChain(file: string, keysFile: string): Promise<SecretInChain | undefined> {
  const keys = keysBeside(keysFile);
  const { frames } = await readChainFile(file);
  for await (const frame of frames) {
    const envelope = decodeBody(frame.body);
    const record = openRecord({ ...envelope, seq: frame.seq } as LogRecord, (kid) => keys.get(kid));
    const { findings } = redactEventData(record.type, record.data, () => 'scan');
    const f = findings[0];
    if (f) {
      await frames.return(undefined);
      return { seq: frame.seq, type: record.type, field: f.field, kind: f.kind };
    }
  }
  return undefined;
}

export function secretInChainError(file: string, found: SecretInChain): KiokuError {
  return new KiokuError(
    'KIOKU_INPUT_INVALID',
    `${file}: record ${found.seq} (${found.type}, ${found.field}) holds what looks like a credential (${found.kind}). ` +
      'A chain is imported byte for byte, so it cannot be redacted without changing every hash after it: nothing was imported. ' +
      'Import it as it is with --keep-secrets (then purge or forget what holds it), or move the library with `kioku export` and `kioku import jsonl`, which redact.',
    { details: { field: found.field, seq: found.seq, kind: found.kind } },
  );
}
