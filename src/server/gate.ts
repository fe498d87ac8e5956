// The gate every request passes before its route (onRequest): the declared body size, no token
// in the URL, who is calling (token → principal), the rate limit, and whether the service is
// ready or stopping. A node cut off from its shared store says so on every answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KiokuError } from '../errors.js';
import { principalSeesService } from '../access.js';
import { ANONYMOUS } from './auth.js';
import { RateLimiter } from './rate-limit.js';
import type { AppOptions } from './state.js';

/** The parameter names a token is usually sent under: refused in any URL. */
const TOKEN_PARAMS = ['token', 'access_token', 'api_key', 'apikey', 'key', 'auth', 'bearer', 'authorization'];

export function installGate(app: FastifyInstance, options: AppOptions, bodyLimit: number): void {
  const limiter = new RateLimiter(options.rateLimitPerMinute ?? Number(process.env['KIOKU_RATE_LIMIT'] ?? 6_000));
  app.decorateRequest('principal', { getter: () => ANONYMOUS });
  app.addHook('onRequest', async (req) => {
    await refuseDeclaredOversize(req, bodyLimit);
    refuseTokenInUrl(req, options);
    const path = req.url.split('?')[0] ?? '';
    // the web page's files and its sign-in are open (the page asks the /v1 routes with the session)
    if (path === '/v1/health' || path.startsWith('/docs') || path === '/ui' || path.startsWith('/ui/')) return;
    authenticate(req, options, limiter);
    refuseUnlessServing(req, options);
  });
  // a node cut off from its shared store answers from its projections; every answer says so
  app.addHook('onRequest', async (req, reply) => {
    const shared = options.state.store?.log.health?.();
    if (!shared || shared.connected) return;
    // the node's head moves with every namespace's writes: only for callers who may see the whole service
    const head = (!options.auth.required || !req.principal.anonymous) && principalSeesService(req.principal) ? `; node_head=${shared.node_head}` : '';
    void reply.header('kioku-stale', `disconnected_ms=${shared.disconnected_ms ?? 0}${head}`);
  });
}

/**
 * A declared body over the limit: read it to the end (up to 64 MiB) before answering 413, so the
 * client, still uploading, gets the answer instead of a reset connection.
 */
async function refuseDeclaredOversize(req: FastifyRequest, bodyLimit: number): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared <= bodyLimit) return;
  if (declared <= 64 * 1024 * 1024) {
    req.raw.resume();
    await new Promise<void>((done) => {
      req.raw.once('end', done);
      req.raw.once('error', () => done());
      req.raw.once('close', () => done());
    });
  }
  throw new KiokuError('KIOKU_BODY_TOO_LARGE', `request body is too large (${declared} bytes; the limit is ${bodyLimit})`);
}

/** A token in a URL ends up in logs and histories: refuse the usual names, and any parameter whose value is a configured token. */
function refuseTokenInUrl(req: FastifyRequest, options: AppOptions): void {
  if (!req.url.includes('?')) return;
  const query = new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1));
  if (TOKEN_PARAMS.some((k) => query.has(k)) || [...query.values()].some((v) => options.auth.isToken?.(v)))
    throw new KiokuError('KIOKU_UNAUTHORIZED', 'tokens are accepted only in the Authorization header, never in the URL', { details: { field: 'query' } });
}

/** The principal of the bearer token (or the anonymous local user without tokens), rate-limited per token. */
function authenticate(req: FastifyRequest, options: AppOptions, limiter: RateLimiter): void {
  // no Authorization header: the web page's session cookie stands for its token (src/ui/sessions.ts)
  const principal =
    options.auth.authenticate(req.headers.authorization) ?? (req.headers.authorization === undefined ? options.uiSessions?.principalOf(req) : undefined);
  if (!principal)
    throw new KiokuError(
      'KIOKU_UNAUTHORIZED',
      options.auth.required ? 'a valid bearer token is required (Authorization: Bearer <token>, a token from the auth file)' : 'unauthorised',
    );
  Object.defineProperty(req, 'principal', { value: principal, enumerable: true });
  if (principal.anonymous) return;
  const wait = limiter.take(principal.name);
  if (wait > 0) throw new KiokuError('KIOKU_RATE_LIMITED', `rate limit reached for token ${principal.name}`, { details: { retry_after_ms: wait } });
}

function refuseUnlessServing(req: FastifyRequest, options: AppOptions): void {
  if (options.state.closing) throw new KiokuError('KIOKU_SHUTTING_DOWN', 'the server is stopping; retry after it restarts');
  if (!options.state.ready)
    // the progress counts the whole log: for a caller who may see the whole service only
    throw new KiokuError('KIOKU_NOT_READY', 'the store is still opening; retry shortly', {
      details: principalSeesService(req.principal) ? { progress: options.state.progress ?? null } : {},
    });
}
