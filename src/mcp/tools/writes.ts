// Writes: memories when a topic closes, and what changes one afterwards (supersede, forget, audience).
import { z } from 'zod';
import { inputSchemas } from '../../api/index.js';
import { BESIDE_INPUT, kiokuTool } from '../tool.js';

/** the memory a call acts on, beside its input (the facade's first parameter): its id or its evidence key */
const memoryId = z.string().min(1).max(512).describe("the memory's id, or its evidence key (ev1:<namespace>:memory:<id>) as answers show it");
/** forget's id: a memory's, or the evidence key of a memory, trace, episode or asset (issue 33) */
const forgettableId = z.string().min(1).max(512).describe("the memory's id, or the evidence key of a memory, trace, episode or asset (ev1:<namespace>:<layer>:<id>)");

/** The facade's memory, told field by field to the agent (what each is for). */
const describedMemory = () =>
  z
    .array(
      inputSchemas.writeMemories.shape.memories.element.extend({
        ...described(inputSchemas.writeMemories.shape.memories.element.shape, {
          id: 'your id for it (makes the write idempotent); generated when absent',
          kind: 'fact, decision, commitment, preference, directive, constraint, procedure, event, observation or note',
          text: 'the memory itself, self-contained: who, what, when, why (stored exactly as sent)',
          terms: 'expansion words a later search might use (synonyms, ids, other languages)',
          entities: 'people, systems, projects it is about',
          tags: 'domains, e.g. "security" for a constraint',
          supersede_ids: 'memories this one replaces: ids or evidence keys',
          occurred_at: 'when it happened (ISO 8601); defaults to now',
          audience: 'who else sees it, in a team: {org: true} or {spaces: [...]} of your subtree (list_spaces); default you only; refused without an org',
          notify: 'members to tell (list_members): a notice in each inbox, a commitment as an assignment; each must be in its audience; refused without an org (KIOKU_SINGLE_USER)',
        }),
      }),
    )
    .min(1)
    .max(500);

function described(shape: Record<string, z.ZodType>, texts: Record<string, string>): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(texts).flatMap(([field, text]) => (shape[field] ? [[field, shape[field].describe(text)]] : [])));
}

export const writeMemory = kiokuTool({
  name: 'write_memory',
  description:
    'Write what should outlive this conversation when a topic closes: a decision and its reason, a fact learned, a preference or standing instruction (kind directive), a hard constraint (kind constraint, tagged by domain). Batch several at once. When you name no supersede_ids, the answer lists older memories that may be replaced (supersede_candidates).',
  input: inputSchemas.writeMemories,
  fields: { memories: 'memories' },
  describe: { memories: describedMemory },
  extra: {},
  into: {},
  scope: 'memory:write',
  call: async (k, input, caller) => {
    const r = await k.writeMemories(input, caller);
    const candidates = Object.entries(r.supersede_candidates);
    return {
      text: `wrote ${r.written.length} of ${r.ids.length} (${r.ids.join(', ')})${candidates.length ? `; may supersede: ${candidates.map(([id, c]) => `${id} → ${c.map((x) => x.id).join(', ')}`).join('; ')}` : ''}`,
      data: r,
    };
  },
});

export const supersede = kiokuTool({
  name: 'supersede',
  description: 'Mark older memories as replaced by a newer one (the newer is the current answer; the older stay in history).',
  input: inputSchemas.supersede,
  fields: { superseded_ids: 'superseded_ids', reason: 'reason' },
  describe: { superseded_ids: 'the older memories: ids or evidence keys' },
  extra: { id: memoryId.describe('the newer memory: its id or its evidence key') },
  into: { id: BESIDE_INPUT },
  scope: 'memory:write',
  call: async (k, input, caller, { id }) => {
    const r = await k.supersede(id, input, caller);
    return { text: `${input.superseded_ids.join(', ')} superseded by ${id}`, data: r };
  },
});

export const forget = kiokuTool({
  name: 'forget',
  description:
    'Forget a memory that is wrong or must not be used (a tombstone: it is never recalled again; the log keeps the history). Also a trace, an episode or an asset, by its evidence key: only its tombstone stays visible.',
  input: inputSchemas.forget,
  fields: { reason: 'reason' },
  extra: { id: forgettableId },
  into: { id: BESIDE_INPUT },
  scope: 'memory:write',
  call: async (k, input, caller, { id }) => {
    const r = await k.forget(id, input, caller);
    return { text: `forgot ${id}`, data: r };
  },
});

export const setMemoryAudience = kiokuTool({
  name: 'set_memory_audience',
  description:
    'Widen or narrow who sees one of your memories. In an org: {org: true} (every member), {spaces: [...]} (spaces of your own subtree: list_spaces) or [] (you only, the default); only its owner may change it. Without an org (single user) the audience can only be you, [] or ["me"]; anything else (a member, a space outside your subtree) is refused with KIOKU_AUDIENCE_REFUSED and nothing changes.',
  input: inputSchemas.setAudience,
  fields: { audience: 'audience' },
  describe: { audience: '{org: true}, {spaces: ["eng"]} or [] (owner only); without an org only []' },
  extra: { id: memoryId },
  into: { id: BESIDE_INPUT },
  scope: 'memory:write',
  call: async (k, input, caller, { id }) => {
    const r = await k.setAudience(id, input, caller);
    return { text: `audience of ${id}: ${r.audience.join(', ') || '(owner only)'}`, data: r };
  },
});

export const writeTools = [writeMemory, supersede, forget, setMemoryAudience];
