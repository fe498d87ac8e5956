// `kioku mcp` without the rest of the CLI: a client spawns it and waits for its handshake, so it
// loads only the MCP server (bin/kioku.js routes here).
import { parseArgs } from 'node:util';
import { mcpCommand } from './commands/mcp.js';

const { values } = parseArgs({ args: process.argv.slice(3), options: { data: { type: 'string' } }, strict: false });
try {
  process.exitCode = await mcpCommand(typeof values.data === 'string' ? { data: values.data } : {});
} catch (err) {
  // the same one-line error as the rest of the CLI (kioku: <message> [<code>]), no stack trace
  const code = (err as { code?: unknown }).code;
  process.stderr.write(`kioku: ${err instanceof Error ? err.message : String(err)} [${typeof code === 'string' ? code : 'KIOKU_INTERNAL'}]\n`);
  process.exitCode = 2;
}
