// The asset path policy on a real file system (src/knowledge/asset-policy.ts): configuration
// parsed and checked at start, nested and shared roots, hard links to protected files, FIFOs and
// directories, and a server that will not start with a root it cannot use.
import { execFileSync } from 'node:child_process';
import { closeSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AssetPolicy, parseAssetRoots } from '../src/knowledge/asset-policy.js';
import { startServer } from '../src/server/index.js';
import { tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
const at = (...p: string[]) => join(dir.path, ...p);
beforeEach(() => {
  dir = tempDir();
  for (const d of ['data', 'base/beta', 'shared', 'other']) mkdirSync(at(d), { recursive: true });
  writeFileSync(at('data', 'auth.json'), '{"tokens":[]}');
  writeFileSync(at('base', 'a.txt'), 'a');
  writeFileSync(at('base', 'beta', 'b.txt'), 'b');
  writeFileSync(at('shared', 's.txt'), 's');
});
afterEach(() => dir.cleanup());

const reason = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code: string; details?: { reason?: string } }).details?.reason ?? (err as { code: string }).code;
  }
};

describe('configuration', () => {
  it('reads namespace=/dir entries split by ":" or new lines, a namespace repeating', () => {
    expect(parseAssetRoots('alpha=/srv/a:beta=/srv/b\nalpha=/srv/c')).toEqual({ alpha: ['/srv/a', '/srv/c'], beta: ['/srv/b'] });
    expect(parseAssetRoots(undefined)).toEqual({});
    for (const bad of ['alpha', '=/srv', 'alpha=relative', 'Not A Namespace=/srv'])
      expect(() => parseAssetRoots(bad)).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE', message: expect.stringContaining('KIOKU_ASSET_ROOTS') }));
  });

  it('refuses a root that is missing, a file, inside the data dir or a system folder', () => {
    for (const root of [at('nope'), at('base', 'a.txt'), at('data'), '/proc', '/dev'])
      expect(() => new AssetPolicy({ roots: { alpha: [root] }, dataDir: at('data') }), root).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE' }));
  });

  it('keeps a server from starting with a root it cannot use', async () => {
    await expect(startServer({ data: at('data'), port: 0, authFile: at('data', 'none.json'), assetRoots: { alpha: [at('nope')] } })).rejects.toMatchObject({
      code: 'KIOKU_USAGE',
    });
  });
});

describe('which paths a namespace may have read', () => {
  it('gives a deeper root of another namespace to that namespace, and a shared root to both', () => {
    const policy = new AssetPolicy({ roots: { alpha: [at('base'), at('shared')], beta: [at('base', 'beta'), at('shared')] }, dataDir: at('data') });
    expect(policy.authorize('alpha', at('base', 'a.txt'))).toMatch(/a\.txt$/);
    expect(reason(() => policy.authorize('alpha', at('base', 'beta', 'b.txt')))).toBe('other_namespace');
    expect(policy.authorize('beta', at('base', 'beta', 'b.txt'))).toMatch(/b\.txt$/);
    expect(reason(() => policy.authorize('beta', at('base', 'a.txt')))).toBe('outside_root');
    expect(policy.authorize('alpha', at('shared', 's.txt'))).toMatch(/s\.txt$/);
    expect(policy.authorize('beta', at('shared', 's.txt'))).toMatch(/s\.txt$/);
    expect(reason(() => policy.authorize('gamma', at('shared', 's.txt')))).toBe('no_root');
  });

  it('follows symlinks inside the root, refuses them out, and does not touch the disk outside the roots', () => {
    const policy = new AssetPolicy({ roots: { alpha: [at('base')] }, dataDir: at('data') });
    symlinkSync(at('base', 'a.txt'), at('base', 'inner'));
    symlinkSync(at('other'), at('base', 'away'));
    expect(policy.authorize('alpha', at('base', 'inner'))).toMatch(/a\.txt$/);
    expect(reason(() => policy.authorize('alpha', at('base', 'away', 'x')))).toBe('KIOKU_INPUT_INVALID');
    writeFileSync(at('other', 'x'), 'x');
    expect(reason(() => policy.authorize('alpha', at('base', 'away', 'x')))).toBe('outside_root');
    // outside the roots: refused the same whether the file exists or not (no existence oracle)
    expect(reason(() => policy.authorize('alpha', at('other', 'x')))).toBe('outside_root');
    expect(reason(() => policy.authorize('alpha', at('other', 'missing')))).toBe('outside_root');
  });

  it('refuses a hard link to the auth file inside a root, a FIFO and a directory, without hanging', () => {
    const policy = new AssetPolicy({ roots: { alpha: [at('base')] }, dataDir: at('data'), protect: [at('data', 'auth.json')] });
    linkSync(at('data', 'auth.json'), at('base', 'innocent.txt'));
    expect(reason(() => policy.open('alpha', at('base', 'innocent.txt')))).toBe('protected');
    execFileSync('mkfifo', [at('base', 'pipe')]);
    expect(reason(() => policy.open('alpha', at('base', 'pipe')))).toBe('KIOKU_INPUT_INVALID');
    expect(reason(() => policy.open('alpha', at('base', 'beta')))).toBe('KIOKU_INPUT_INVALID');
    const ok = policy.open('alpha', at('base', 'a.txt'));
    expect(ok.size).toBe(1);
    closeSync(ok.fd);
  });

  it("reads a namespace's own uploads in the data dir, and nothing else there", () => {
    const policy = new AssetPolicy({ dataDir: at('data') });
    mkdirSync(at('data', 'assets', 'alpha', 'f'), { recursive: true });
    writeFileSync(at('data', 'assets', 'alpha', 'f', 'up.txt'), 'up');
    expect(policy.authorize('alpha', at('data', 'assets', 'alpha', 'f', 'up.txt'))).toMatch(/up\.txt$/);
    expect(reason(() => policy.authorize('beta', at('data', 'assets', 'alpha', 'f', 'up.txt')))).toBe('no_root');
    symlinkSync(at('data', 'auth.json'), at('data', 'assets', 'alpha', 'f', 'auth'));
    expect(reason(() => policy.authorize('alpha', at('data', 'assets', 'alpha', 'f', 'auth')))).toBe('outside_root');
  });
});
