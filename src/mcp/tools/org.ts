// The org tools (issue 34): list_spaces and list_members answer from the org projection through
// the facade (GET /v1/org). Without an org they answer empty and say why (the seed: local mode
// answers empty with an explanation).
import { namespaceReadTool, type McpTool } from '../tool.js';
import type { OrgAnswer } from '../../kioku.js';

function youLine(org: OrgAnswer): string {
  return org.you ? `You are member "${org.you.member}"; you may share with: ${org.you.subtree.join(', ') || '(no space: owner only or the whole org)'}.` : '';
}

export const listSpaces: McpTool = namespaceReadTool({
  name: 'list_spaces',
  description:
    "The org's space tree (teams, departments): call it before widening a memory's audience to {spaces: [...]} — you may only name spaces in your own subtree. Empty, with the reason, when the library has no org.",
  call: async (k, input, caller) => {
    const org = await k.org(input, caller);
    if (!org.org && org.spaces.length === 0)
      return { text: org.explanation ?? '', data: { spaces: [], single_user: true, explanation: org.explanation } };
    const lines = org.spaces.map((s) => `- ${s.path.join(' / ')}${s.title ? ` (${s.title})` : ''}: ${s.members.join(', ') || 'no members'}`);
    return { text: [`${org.spaces.length} space(s):`, ...lines, youLine(org)].filter(Boolean).join('\n'), data: { spaces: org.spaces, ...(org.you ? { you: org.you } : {}) } };
  },
});

export const listMembers: McpTool = namespaceReadTool({
  name: 'list_members',
  description:
    "The org's members and the spaces each belongs to: who a memory marked mine: false belongs to, and who you can notify. Empty, with the reason, when the library has no org.",
  call: async (k, input, caller) => {
    const org = await k.org(input, caller);
    if (!org.org) return { text: org.explanation ?? '', data: { members: [], single_user: true, explanation: org.explanation } };
    const lines = org.members.map((m) => `- ${m.name}${m.display_name ? ` (${m.display_name})` : ''}: ${m.spaces.join(', ') || 'no space'}`);
    return { text: [`${org.members.length} member(s):`, ...lines, youLine(org)].filter(Boolean).join('\n'), data: { members: org.members, ...(org.you ? { you: org.you } : {}) } };
  },
});
