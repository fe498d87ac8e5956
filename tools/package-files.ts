// What the published tarball may hold (package.json `files`): the launcher, the build (no tests,
// evals, benches, fuzzers or checks), the embedder's worker (plain CommonJS, found at src/embed/ in an installed
// package), the web page's files (plain HTML, CSS and JavaScript modules served from src/ui/static/), docs. Shared by `npm run check:package` and tests/package-contents.test.ts.
export const isRuntimeFile = (path: string): boolean =>
  /^(package\.json|README\.md|LICENSE|bin\/kioku\.js|src\/embed\/use-worker\.cjs|src\/ui\/static\/[a-z0-9][a-z0-9-]*\.(html|js|css|svg)|docs\/[^/]+\.md)$/.test(path) ||
  (/^dist\/.*\.(js|mjs|json)$/.test(path) && !/^dist\/(tests\/|evals\/|tools\/(bench\/|fuzz\/|mutate\.js|check-|package-files\.js))/.test(path));

/** Files an installed `kioku` cannot run without. */
export const REQUIRED_FILES = [
  'package.json',
  'bin/kioku.js',
  'dist/tools/kioku.js',
  'dist/mcp.mjs',
  'dist/hook.mjs',
  'dist/projections/worker-fold/thread.js',
  'dist/src/recall/judge/calibration.json',
  'src/embed/use-worker.cjs',
  'src/ui/static/index.html',
  'src/ui/static/app.js',
];

/** The packed size the tarball must stay under (0.56 MB on 2026-12-03, most of it the bundled MCP entry). */
export const MAX_PACKED_BYTES = 1_500_000;
