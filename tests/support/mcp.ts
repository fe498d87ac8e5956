// `kioku mcp` on stdio, the installed entry as a host runs it, in remote mode against a running
// service (KIOKU_URL + KIOKU_TOKEN): the SDK's own client, and a typed tool call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

export type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

export async function remoteMcpClient(url: string, token: string, home: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'bin/kioku.js'), 'mcp'],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: home, KIOKU_URL: url, KIOKU_TOKEN: token },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kioku-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

export const callTool = (client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  client.callTool({ name, arguments: args }) as Promise<ToolResult>;
