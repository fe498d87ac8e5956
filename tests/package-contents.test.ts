// What `npm pack` would put in the tarball (from the dist/ the test run built; the full pack,
// install and run from an empty prefix is `npm run check:package`, minutes long): runtime
// files only, everything an installed kioku needs, a bounded size.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isRuntimeFile, MAX_PACKED_BYTES, REQUIRED_FILES } from '../tools/package-files.js';
import { REPO, runCli } from './helpers.js';

it('the tarball holds the built dist/, the launcher and the embedder worker, and no tests, evals or sources', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as { size: number; files: { path: string }[] }[];
  const paths = (packed?.files ?? []).map((f) => f.path);
  expect(paths.filter((p) => !isRuntimeFile(p))).toEqual([]);
  expect(REQUIRED_FILES.filter((p) => !paths.includes(p))).toEqual([]);
  expect(paths.some((p) => /^(tests|evals)\/|\.ts$|\.map$/.test(p))).toBe(false);
  expect(packed?.size).toBeLessThan(MAX_PACKED_BYTES);
}, 30_000); // npm itself takes seconds to start on a busy machine

it('package.json is ready to publish: bin on a shipped file, engines from what the code needs', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(pkg['private']).toBeUndefined();
  expect(pkg['bin']).toEqual({ kioku: 'bin/kioku.js' });
  // node:crypto's one-shot hash (src/log/codec.ts) came in Node 20.12
  expect(pkg['engines']).toEqual({ node: '>=20.12' });
  expect((pkg['files'] as string[]).includes('bin/kioku.js')).toBe(true);
});

it('kioku eval without its cases (an installed package ships none) says where they are', async () => {
  const r = await runCli(['eval', '--cases', join(REPO, 'no-such-cases.json'), '--json']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('ship with a checkout of Kioku, not with the installed package');
}, 60_000);
