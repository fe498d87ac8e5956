// reveal_secret (issue 33, the notebook seed's tool): a credential Kioku replaced by a placeholder
// before storing it, given back — by the service on this machine only (a remote service refuses).
import { inputSchemas } from '../../api/index.js';
import { kiokuTool, type McpTool } from '../tool.js';

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

export const privacyTools: McpTool[] = [revealSecretTool];
