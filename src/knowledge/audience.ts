// Who a memory is for. Kioku runs for a single user here (team mode, with members, is a later
// issue): the audience can only be the owner — [] (the default) or "me". Naming anyone else is
// refused, never stored and silently ignored (the notebook seed: audience arguments are refused
// in local mode). Decided from the request alone, before any lookup.
import { KiokuError } from '../errors.js';

/** The one audience entry single-user Kioku accepts: the caller, who owns every memory. */
export const SELF_AUDIENCE = 'me';

/** Refuse an audience naming anyone but the caller; `field` is the request's name for it, `what` the command. */
export function requireOwnAudience(audience: readonly string[] | undefined, field: string, what: string): void {
  const other = audience?.find((a) => a !== SELF_AUDIENCE);
  if (other === undefined) return;
  throw new KiokuError(
    'KIOKU_AUDIENCE_REFUSED',
    `${what}: ${field}: "${other.slice(0, 80)}" is not you: Kioku runs for a single user here, so a memory's audience can only be you ([] or ["${SELF_AUDIENCE}"])`,
    { details: { field, value: other.slice(0, 200) } },
  );
}
