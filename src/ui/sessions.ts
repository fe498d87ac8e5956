// Sign-in for the web page (/ui) when tokens are configured. The browser sends the token once, in
// the body of POST /ui/session; the answer is an HttpOnly, SameSite=Strict cookie naming a random
// session bound to that token's principal (namespace and scopes), so the token never sits in a URL,
// a log line or the page's script. A session is used like the token it stands for: the gate
// (src/server/gate.ts) takes it when no Authorization header is sent, and every write (any method
// but GET/HEAD) must also carry the session's CSRF token in a header — a page on another site can
// neither read it nor (SameSite=Strict) make the browser send the cookie.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { KiokuError } from '../errors.js';
import type { Principal } from '../access.js';

export const SESSION_COOKIE = 'kioku_ui';
export const CSRF_HEADER = 'x-kioku-csrf';
/** how long a sign-in lasts: a working day */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** the most sessions kept at once (the oldest is dropped beyond) */
const MAX_SESSIONS = 1_000;

export interface UiSession {
  principal: Principal;
  csrf: string;
  expires: number;
}

/** The value of one cookie in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The sessions of one running server (in memory: a restart signs everyone out). */
export class UiSessions {
  private readonly sessions = new Map<string, UiSession>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new session for a principal the token resolved to: its id (the cookie) and CSRF token. */
  create(principal: Principal): { id: string; session: UiSession } {
    this.prune();
    const id = randomBytes(32).toString('base64url');
    const session = { principal, csrf: randomBytes(24).toString('base64url'), expires: this.now() + SESSION_TTL_MS };
    this.sessions.set(id, session);
    return { id, session };
  }

  /** The live session a Cookie header names, or undefined. */
  find(cookieHeader: string | undefined): UiSession | undefined {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (session && session.expires <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  end(cookieHeader: string | undefined): void {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id) this.sessions.delete(id);
  }

  /**
   * The principal of a request that sent no Authorization header: its session's, when the cookie
   * names a live one (undefined otherwise: the gate answers 401). A write without the session's CSRF
   * header is refused (403): the cookie alone never authorises a change.
   */
  principalOf(req: { method: string; headers: Record<string, string | string[] | undefined> }): Principal | undefined {
    const session = this.find(req.headers['cookie'] as string | undefined);
    if (!session) return undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const sent = req.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameText(sent, session.csrf))
        throw new KiokuError('KIOKU_FORBIDDEN', `a write from the web page must carry its ${CSRF_HEADER} header`, { details: { field: CSRF_HEADER } });
    }
    return session.principal;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expires <= now) this.sessions.delete(id);
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
  }
}

/** The Set-Cookie value of a session (Secure when the page was reached over https). */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that ends a session in the browser. */
export function clearedCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
