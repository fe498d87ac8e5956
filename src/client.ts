// A Kioku HTTP client for Kioku's own tools (the CLI while a server holds the store, the
// eval harness, RemoteKioku, MCP and the hook): one place that sends the bearer token, never
// follows a redirect (a redirect could carry the token elsewhere) and turns an error body back
// into the typed error the core raised. Built on node:http, not fetch: the hook starts a process
// per prompt, and fetch's first use costs ~100 ms of loading. No keep-alive by default, so a
// short-lived client never waits on an idle socket; a long-lived one (kioku mcp) passes an agent.
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ERROR_REGISTRY, KiokuError, type ErrorCode } from './errors.js';

export interface KiokuRequest {
  method: 'GET' | 'POST';
  body?: unknown;
  token?: string | undefined;
  timeoutMs?: number;
  /** a keep-alive agent (long-lived clients); default: a new connection per request */
  agent?: Agent;
}

/** Keep-alive for a long-lived client: idle sockets are dropped after 4 s, before any server would drop them. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
}

/** Thrown for what is not an answer from a Kioku service: unreachable, timed out, redirected. */
export class TransportError extends Error {
  override name = 'TransportError';
  /** the connection failed or was lost (not a timeout, a redirect or a body that is not JSON): the service may be gone */
  readonly lost: boolean;
  /** the request may have reached the server (false only when no connection was ever made, e.g. ECONNREFUSED) */
  sent: boolean;

  constructor(message: string, options: { lost?: boolean; sent?: boolean } = {}) {
    super(message);
    this.lost = options.lost ?? false;
    this.sent = options.sent ?? true;
  }
}

/** Errors of a connection that was never made: nothing of the request reached a server. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Errors of a connection lost under the request: the server may have read it. */
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * The JSON answer of `base + path`. A non-2xx answer throws its `KiokuError` (code kept when
 * known); an unreachable server, a timeout or a redirect rejects with a TransportError.
 */
export function requestKioku<T>(base: string, path: string, request: KiokuRequest): Promise<T> {
  return send<T>(base, path, request).catch((err: unknown) => {
    // a kept-alive socket the server closed as the request went out: nothing reached the server, so send it once more
    if (err instanceof StaleSocketError)
      return send<T>(base, path, request).catch((again: unknown) => {
        // unless the server died with the first one in hand: whether that reached it is unknown
        if (again instanceof TransportError) again.sent = true;
        throw again;
      });
    throw err;
  });
}

class StaleSocketError extends TransportError {}

/** A 401 told in terms of what the user sets: KIOKU_TOKEN, and where tokens come from. */
function tokenAdvice(message: string, sent: boolean): string {
  const where = "a token from the service's auth file (<data>/auth.json, or the file KIOKU_AUTH_FILE names)";
  return sent
    ? `the service refused the token in KIOKU_TOKEN (${message}); set KIOKU_TOKEN to ${where}`
    : `the service requires a token (${message}); set KIOKU_TOKEN to ${where}`;
}

function send<T>(base: string, path: string, request: KiokuRequest): Promise<T> {
  const url = new URL(`${base}${path}`);
  const body = request.body !== undefined ? Buffer.from(JSON.stringify(request.body)) : undefined;
  const timeoutMs = request.timeoutMs ?? 30_000;
  return new Promise<T>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: request.method,
        agent: request.agent ?? false,
        headers: {
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new TransportError(err.message, { lost: true })));
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) return reject(new TransportError(`redirected (${status}) to ${res.headers.location ?? '?'}; not followed`));
          let json: { error?: { code?: string; message?: string; details?: Record<string, unknown> } } = {};
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof json;
          } catch {
            if (status < 300) return reject(new TransportError(`${base}: ${status} with a body that is not JSON`));
          }
          if (status >= 200 && status < 300) return resolve(json as T);
          const code = (json.error?.code && json.error.code in ERROR_REGISTRY ? json.error.code : 'KIOKU_INTERNAL') as ErrorCode;
          // the service's own message and code, never the transport (issue 31: "http://127.0.0.1:18972: 401 …"); the URL is in details
          const message = json.error?.message ?? `${status} ${res.statusMessage ?? ''}`.trim();
          reject(
            new KiokuError(code, code === 'KIOKU_UNAUTHORIZED' ? tokenAdvice(message, Boolean(request.token)) : message, {
              details: { ...json.error?.details, url: base, status },
            }),
          );
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new TransportError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (req.reusedSocket && code === 'ECONNRESET') return reject(new StaleSocketError(err.message, { lost: true }));
      if (err instanceof TransportError) return reject(err);
      reject(new TransportError(err.message, { lost: NOT_CONNECTED.has(code) || LOST.has(code), sent: !NOT_CONNECTED.has(code) }));
    });
    req.end(body);
  });
}
