#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` via `prepare`).
// `kioku hook run` (spawned on every prompt) and `kioku mcp` (whose handshake a client waits for)
// take lean paths that skip the rest of the CLI, bundled into one file each (tools/bundle.mjs).
import { existsSync } from 'node:fs';

const [command, sub] = process.argv.slice(2);
const lean = (bundle, entry) => (existsSync(new URL(bundle, import.meta.url)) ? import(bundle) : import(entry));
if (command === 'hook' && sub === 'run') await lean('../dist/hook.mjs', '../dist/tools/hook-main.js');
else if (command === 'mcp' && !process.argv.includes('--help') && !process.argv.includes('-h')) await lean('../dist/mcp.mjs', '../dist/tools/mcp-main.js');
else await import('../dist/tools/kioku.js');
