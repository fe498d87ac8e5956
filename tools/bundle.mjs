// The two entries a host waits for — `kioku mcp` (its handshake) and `kioku hook run` (every
// prompt) — bundled into one file each after tsc: Node then reads one module instead of
// hundreds (the MCP handshake goes from ~340 to ~235 ms). bin/kioku.js prefers the bundles.
import { build } from 'esbuild';

const banner = { js: "import { createRequire as __kiokuRequire } from 'node:module'; const require = __kiokuRequire(import.meta.url);" };
await Promise.all(
  [
    ['dist/tools/mcp-main.js', 'dist/mcp.mjs'],
    ['dist/tools/hook-main.js', 'dist/hook.mjs'],
  ].map(([entry, outfile]) =>
    build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      banner,
      logLevel: 'warning',
      legalComments: 'none',
    }),
  ),
);
