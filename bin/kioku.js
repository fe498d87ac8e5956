#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` via `prepare`).
// `kioku hook run` is spawned by the agent host on every prompt: it takes a lean path.
if (process.argv[2] === 'hook' && process.argv[3] === 'run') await import('../dist/tools/hook-main.js');
else await import('../dist/tools/kioku.js');
