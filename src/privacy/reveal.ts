// reveal_secret / kioku secret reveal / POST /v1/secrets/reveal (issue 33): the value behind a
// placeholder, from this machine's vault, to a caller on this machine only. A door that cannot
// tell where its caller is (HTTP from another address, or through a proxy) marks it `remote`, and
// a remote caller is refused whatever its token: a credential leaves the machine that holds it
// only by someone sitting at it.
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { namespaceSchema } from '../events/index.js';
import { placeholder, PLACEHOLDER_PATTERN } from './detect.js';
import type { SecretKind } from './rules.js';
import type { SecretVault, VaultEntry } from './vault.js';

export const revealSecretSchema = z.strictObject({
  /** the placeholder id (`3f9a1c2b7d4e`) or the whole placeholder (`⟦secret:openai-key:3f9a1c2b7d4e⟧`) */
  id: z.string().min(4).max(200),
  ns: namespaceSchema,
});

export interface RevealedSecret {
  id: string;
  kind: SecretKind;
  namespace: string;
  placeholder: string;
  value: string;
}

/** The id a caller named: a bare id, or the one inside a placeholder. */
export function placeholderId(raw: string): string {
  const trimmed = raw.trim();
  const whole = new RegExp(`^${PLACEHOLDER_PATTERN.source}$`).exec(trimmed);
  const id = whole ? (whole[2] as string) : trimmed;
  if (!/^[a-z0-9]{4,40}$/.test(id))
    throw new KiokuError('KIOKU_INPUT_INVALID', 'reveal secret: id: expected a placeholder id (a-z, 0-9) or a whole ⟦secret:kind:id⟧', { details: { field: 'id' } });
  return id;
}

/** `mayReveal`: the audience policy's answer for this caller (issue 34); a value it may not have is not found, as a missing one. */
export function revealSecret(
  vault: SecretVault,
  input: z.output<typeof revealSecretSchema>,
  caller: { remote?: boolean },
  mayReveal: (entry: VaultEntry) => boolean = () => true,
): RevealedSecret {
  if (caller.remote === true)
    throw new KiokuError(
      'KIOKU_SECRET_REMOTE',
      'secrets are revealed only to a caller on the machine that holds the vault (loopback, no proxy); ask there with `kioku secret reveal ID`',
      { details: { field: 'id' } },
    );
  const id = placeholderId(input.id);
  const entry = vault.get(input.ns, id);
  if (!entry || !mayReveal(entry))
    throw new KiokuError('KIOKU_NOT_FOUND', `no secret ${id} in namespace ${input.ns} in this machine's vault`, { details: { field: 'id', id, namespace: input.ns } });
  return { id, kind: entry.kind, namespace: entry.namespace, placeholder: placeholder(entry.kind, id), value: entry.value };
}
