// kioku ui [--data DIR] [--no-open] [--json]   — open the web page of the library's running service
// (/ui) in the browser; without a browser (no display, --no-open, or no opener found) print its URL.
// Exit 0 when the service runs, 1 when none does (with the command that starts one).
import { spawn } from 'node:child_process';
import type { PathOverrides } from '../../src/config.js';
import { resolveLibrary, serveHint } from '../../src/library.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export type UiFlags = OutputOptions & PathOverrides & { open?: boolean };

/** The command that opens a URL on this platform, or undefined where there is no desktop to open it on. */
export function opener(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): { cmd: string; args: string[] } | undefined {
  if (platform === 'darwin') return { cmd: 'open', args: [] };
  if (platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""'] };
  return env['DISPLAY'] || env['WAYLAND_DISPLAY'] ? { cmd: 'xdg-open', args: [] } : undefined;
}

/** Start the browser on `url` (detached); false when it could not be started. */
function openInBrowser(url: string): Promise<boolean> {
  const how = opener();
  if (!how) return Promise.resolve(false);
  return new Promise((done) => {
    const child = spawn(how.cmd, [...how.args, url], { detached: true, stdio: 'ignore' });
    child.once('error', () => done(false));
    child.once('spawn', () => {
      child.unref();
      done(true);
    });
  });
}

export async function uiCommand(flags: UiFlags): Promise<number> {
  const library = resolveLibrary(flags);
  if (!library.url) {
    emit(flags, () => `Kioku is not running for ${library.dataDir}; start it first: ${serveHint(library)}`, { running: false, hint: serveHint(library) });
    return EXIT.problem;
  }
  const url = `${library.url.replace(/\/$/, '')}/ui`;
  const opened = flags.open === false ? false : await openInBrowser(url);
  emit(flags, () => (opened ? `Opened ${url} in the browser.` : `Open ${url} in a browser.`), { running: true, url, opened });
  return EXIT.ok;
}
