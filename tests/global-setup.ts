// Tests that run the installed entry (bin/kioku.js → dist/, the MCP and hook bundles) need a
// dist/ built from the current sources. `npm test` builds first; a direct `npx vitest run` gets
// the same build here when any source is newer than the build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const BUILT = ['dist/tools/kioku.js', 'dist/mcp.mjs', 'dist/hook.mjs'].map((f) => join(ROOT, f));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'bench' && entry.name !== 'node_modules') newest = Math.max(newest, newestSource(path));
    } else if (entry.name.endsWith('.ts') || entry.name.endsWith('.mjs') || entry.name.endsWith('.cjs')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = BUILT.every(existsSync) ? Math.min(...BUILT.map((f) => statSync(f).mtimeMs)) : 0;
  const sources = Math.max(...['src', 'projections', 'tools'].map((d) => newestSource(join(ROOT, d))));
  if (sources <= built) return;
  process.stderr.write('dist/ is older than the sources: building it first (npm run build)\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
