// The team tools (issue 34): the org (list_spaces, list_members: src/mcp/tools/org.ts) and the
// notices between its members (inbox, outbox, ack, notify: src/mcp/tools/notices.ts). Without an
// org they answer empty and say why, and anything that would need another member is refused,
// never silently dropped.
import type { McpTool } from '../tool.js';
import { ack, inbox, notify, outbox } from './notices.js';
import { listMembers, listSpaces } from './org.js';

export const teamTools: McpTool[] = [inbox, outbox, listSpaces, listMembers, ack, notify];
