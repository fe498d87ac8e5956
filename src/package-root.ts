// The installed package's root (where package.json, evals/ and src/ live), found from
// this module whether it runs from source (tsx) or from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'kioku') return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find the kioku package root');
}

/** The package's version (package.json), for what Kioku tells its peers. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
