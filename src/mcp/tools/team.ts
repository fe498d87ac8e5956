// The team tools. Single-user Kioku has no other members: these answer empty and say why, and
// anything that would need another member is refused, never silently dropped (the team issue
// makes them real).
import { z } from 'zod';
import { errorAnswer, plainTool, type McpTool } from '../tool.js';
import { listMembers, listSpaces } from './org.js';

const ALONE = 'Kioku runs for a single user here: there are no other members, spaces or notices.';

const empty = (name: string, description: string, key: string): McpTool =>
  plainTool({
    name,
    description,
    input: {},
    call: async () => ({ content: [{ type: 'text', text: ALONE }], structuredContent: { [key]: [], single_user: true, explanation: ALONE } }),
  });

export const teamTools: McpTool[] = [
  empty('inbox', 'Notices other members sent you (none in single-user mode).', 'notices'),
  empty('outbox', 'Notices you sent to other members (none in single-user mode).', 'notices'),
  listSpaces,
  listMembers,
  plainTool({
    name: 'ack',
    description: 'Acknowledge a notice from your inbox (there are none in single-user mode).',
    input: { notice_id: z.string().min(1).max(512) },
    call: async (_kioku, a) => errorAnswer('KIOKU_NOT_FOUND', `no notice ${a.notice_id}`, `KIOKU_NOT_FOUND: no notice ${a.notice_id}. ${ALONE}`),
  }),
  plainTool({
    name: 'notify',
    description: 'Send a notice to another member (refused in single-user mode).',
    input: { to: z.string().min(1).max(200), text: z.string().min(1).max(10_000) },
    call: async (_kioku, a) =>
      errorAnswer('KIOKU_FORBIDDEN', `no member "${a.to}" in single-user mode`, `KIOKU_FORBIDDEN: there is no member "${a.to}" to notify. ${ALONE}`),
  }),
];
