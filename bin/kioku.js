#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` via `prepare`).
// `kioku hook run` (spawned on every prompt) and `kioku mcp` (whose handshake a client waits for)
// take lean paths that skip the rest of the CLI.
const [command, sub] = process.argv.slice(2);
if (command === 'hook' && sub === 'run') await import('../dist/tools/hook-main.js');
else if (command === 'mcp' && !process.argv.includes('--help') && !process.argv.includes('-h')) await import('../dist/tools/mcp-main.js');
else await import('../dist/tools/kioku.js');
