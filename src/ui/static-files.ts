// The web page's files: plain HTML, CSS and JavaScript modules in src/ui/static/ (shipped as they
// are in the package: there is no build step, for us or for a user), read once per server and
// served from memory with the headers a page that shows a library's contents needs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** A file name the page may ask for: flat, lower-case, one of the served types (no path ever reaches the disk). */
export const STATIC_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

/**
 * Headers of every answer under /ui: scripts and styles from this origin only, never framed,
 * nothing sniffed, no referrer carrying a page's address elsewhere.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Where the page's files are: src/ui/static under the package root (the same from source and installed). */
export function staticDir(): string {
  return join(packageRoot(), 'src', 'ui', 'static');
}

/** Every servable file of a directory, read now. */
export function loadStaticFiles(dir: string = staticDir()): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const m = STATIC_NAME.exec(name);
    if (!m) continue;
    const body = readFileSync(join(dir, name));
    files.set(name, { body, type: TYPES[m[1] as string] as string, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return files;
}
