// kioku mcp [--data DIR]   — the MCP tool set over stdio, for Claude Code, Codex or any MCP client.
// The handshake answers at once; the service is found (or started) on the first tool call.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { PathOverrides } from '../../src/config.js';
import type { Kioku } from '../../src/kioku.js';
import { connect, type Connection } from '../../src/connect.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { clockFromEnv } from '../../src/recall/clock.js';

export async function mcpCommand(flags: PathOverrides): Promise<number> {
  let connecting: Promise<Connection> | undefined;
  const kioku = async (): Promise<Kioku> => {
    connecting ??= connect({ ...flags, client: 'mcp', keepAlive: true, log: (line) => process.stderr.write(`${line}\n`) }).catch((err: unknown) => {
      connecting = undefined; // try again on the next call
      throw err;
    });
    return (await connecting).kioku;
  };
  const now = clockFromEnv();
  const server = createMcpServer({ kioku, namespace: process.env['KIOKU_NAMESPACE'] || undefined, ...(now ? { now } : {}) });
  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await server.close();
  return 0;
}
