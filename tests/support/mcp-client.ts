// `kioku mcp` as a host runs it — the installed entry bin/kioku.js → the bundled dist/mcp.mjs
// (npm test builds dist/ first) — driven over stdio by the SDK's own client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

export type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

export async function mcpClient(dataDir: string, env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, 'bin/kioku.js'), 'mcp', '--data', dataDir],
    cwd: REPO,
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_EMBEDDER: 'hash', KIOKU_CLOCK: '2026-11-29T12:00:00Z', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kioku-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

export const callTool = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<ToolResult>;
