// `kioku serve` in its own process for a bench that measures through the front door: a free
// loopback port, the hashed embedder, no auth; resolved once the service says it is ready.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

export async function serveChild(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await new Promise<number>((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => done(typeof a === 'object' && a ? a.port : 0));
    });
  });
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'tools/kioku.ts'), 'serve', '--quiet', '--data', dataDir, '--port', String(port)], {
    cwd: REPO,
    env: { ...process.env, KIOKU_EMBEDDER: 'hash', KIOKU_AUTH_FILE: join(dataDir, 'no-auth.json') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((done, fail) => {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('kioku: ready')) done();
    });
    child.once('exit', (code) => fail(new Error(`kioku serve exited (${code}): ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
