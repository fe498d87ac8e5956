// A memory named the way an agent has it at hand: its id, or its evidence key as every answer
// shows it (`ev1:<ns>:memory:<id>`, issue 34). Resolved once, where the namespace of the call is
// known; a key of another namespace or of another layer is refused, naming the item and the field,
// never acted on as if it were an id in this namespace.
import { KiokuError } from '../errors.js';
import { parseEvidenceKey } from './evidence.js';

/** The memory id `ref` names in namespace `ns`: the id itself, or the id of a memory's evidence key. */
export function memoryIdOf(ref: string, ns: string, field: string, what: string): string {
  if (!ref.startsWith('ev1:')) return ref;
  const key = parseEvidenceKey(ref);
  if (key === undefined) return ref; // an id that only looks like a key (`ev1:draft`): taken as written
  if (key.layer !== 'memory' || key.section !== undefined)
    throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${field}: ${ref.slice(0, 200)} is not a memory (expected ev1:<namespace>:memory:<id> or the id)`, {
      details: { field, key: ref.slice(0, 200) },
    });
  if (key.ns !== ns)
    throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${field}: ${ref.slice(0, 200)} is in namespace "${key.ns}", this call acts in "${ns}"`, {
      details: { field, key: ref.slice(0, 200) },
    });
  return key.id;
}

/**
 * What `forget` names (issue 33): a memory by id or key, or a trace, an episode or an asset by its
 * evidence key (`ev1:<ns>:trace:<turn id>`); another layer, a section or another namespace is refused.
 */
export function forgetTargetOf(ref: string, ns: string, field: string): { layer: 'memory' | 'trace' | 'episode' | 'asset'; id: string } {
  const key = ref.startsWith('ev1:') ? parseEvidenceKey(ref) : undefined;
  if (key === undefined || key.layer === 'memory') return { layer: 'memory', id: memoryIdOf(ref, ns, field, 'forget') };
  if ((key.layer !== 'trace' && key.layer !== 'episode' && key.layer !== 'asset') || key.section !== undefined)
    throw new KiokuError('KIOKU_INPUT_INVALID', `forget: ${field}: ${ref.slice(0, 200)} is not a memory, trace, episode or asset`, {
      details: { field, key: ref.slice(0, 200) },
    });
  if (key.ns !== ns)
    throw new KiokuError('KIOKU_INPUT_INVALID', `forget: ${field}: ${ref.slice(0, 200)} is in namespace "${key.ns}", this call acts in "${ns}"`, {
      details: { field, key: ref.slice(0, 200) },
    });
  return { layer: key.layer, id: key.id };
}

/** Each of `refs` as a memory id in `ns` (supersede_ids, superseded_ids). */
export function memoryIdsOf(refs: readonly string[], ns: string, field: string, what: string): string[] {
  return refs.map((r, i) => memoryIdOf(r, ns, `${field}.${i}`, what));
}
