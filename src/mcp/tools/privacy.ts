// reveal_secret (issue 33, the notebook seed's tool): a credential Kioku replaced by a placeholder
// before storing it, given back — by the service on this machine only (a remote service refuses).
// purge (issue 33): crypto-shredding through the facade's purge, with its owner/admin rules; it cannot
// be undone, so the agent must pass confirm: true (the CLI's --yes).
import { z } from 'zod';
import { inputSchemas } from '../../api/index.js';
import { KiokuError } from '../../errors.js';
import { kiokuTool, TOOL_ONLY, type McpTool } from '../tool.js';

export const revealSecretTool = kiokuTool({
  name: 'reveal_secret',
  description:
    "Get the value behind a placeholder ⟦secret:kind:id⟧ that Kioku put in place of a credential (API key, token, password) before storing a text. Call it only when the user's task needs the credential itself (running a command they asked for); the value then enters this conversation. Answered by a Kioku service on the user's own machine only: a remote one refuses (KIOKU_SECRET_REMOTE). `id` is the placeholder's id or the whole placeholder.",
  input: inputSchemas.revealSecret,
  fields: { id: 'id' },
  extra: {},
  into: {},
  scope: 'memory:write',
  call: async (k, input, caller) => {
    const r = await k.revealSecret(input, caller);
    return { text: `${r.placeholder} (${r.kind}): ${r.value}`, data: r };
  },
});

export const purgeTool = kiokuTool({
  name: 'purge',
  description:
    "Destroy a memory, a session (its turns, and the memories and episodes written in it) or this whole namespace for good: its data keys are deleted, so its text cannot be read again from any view, snapshot or export (the log keeps only unreadable bytes and a `purged` event saying what went and why). Only when the user explicitly asks to erase something (a leaked credential, a person's data); to stop a wrong memory being used, call forget instead. It cannot be undone: ask the user first, then call with confirm: true. Only the item's owner or an org admin may purge it; the namespace only its owner (an org admin in an org).",
  input: inputSchemas.purge,
  fields: { scope: 'scope', id: 'id', reason: 'reason' },
  describe: { id: "the memory's or the session's id (none for scope namespace)", reason: 'why (kept in the purged event)' },
  extra: { confirm: z.boolean().describe('true: the user asked for this purge and knows it cannot be undone') },
  into: { confirm: TOOL_ONLY },
  scope: 'memory:write',
  call: async (k, input, caller, { confirm }) => {
    const what = input.scope === 'namespace' ? 'this namespace' : `${input.scope} ${String(input.id)}`;
    if (!confirm)
      throw new KiokuError('KIOKU_INPUT_INVALID', `purge: confirm: purging ${what} cannot be undone; ask the user, then call again with confirm: true`, {
        details: { field: 'confirm' },
      });
    const r = await k.purge(input, caller);
    return { text: `purged ${what}: ${r.units} data key(s) deleted, ${r.items} item(s) without text`, data: r };
  },
});

export const privacyTools: McpTool[] = [revealSecretTool, purgeTool];
