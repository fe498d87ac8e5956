// The HTTP service: fastify, one route module per concern, every route calling the
// same core as MCP, the hook and the CLI.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import type { LocalKioku } from '../kioku.js';
import type { KiokuStore } from '../store.js';
import { KiokuError } from '../errors.js';
import type { RecallCore } from '../recall/index.js';
import type { EmbeddingIndexer } from '../indexer/embedding-job.js';
import type { Knowledge } from '../knowledge/index.js';
import { ANONYMOUS, type AuthConfig } from './auth.js';
import { principalSeesService } from '../access.js';
import { errorBody, errorHandler } from './errors.js';
import { hasLoneSurrogate } from '../text/index.js';
import { RateLimiter } from './rate-limit.js';
import { healthRoutes } from './routes/health.js';
import { turnRoutes } from './routes/turns.js';
import { recallRoutes } from './routes/recall.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { pipelineRoutes } from './routes/pipeline.js';
import { reportRoutes } from './routes/reports.js';
import { itemRoutes } from './routes/items.js';
import { operationRoutes } from './routes/operations.js';
import type { AppOptions } from './state.js';

export type { ServerState } from './state.js';

export type { AppOptions } from './state.js';

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // request logs only on request (kioku serve --log-requests); query strings never reach them
    logger: options.logger
      ? {
          serializers: {
            req: (req: { method: string; url: string }) => ({ method: req.method, url: redactQuery(req.url) }),
          },
        }
      : false,
    bodyLimit: options.bodyLimit ?? 2 * 1024 * 1024,
    // ids up to MAX_ID_LENGTH, percent-encoded in the path (×3) inside an evidence key
    routerOptions: { maxParamLength: 8 * 1024 },
    // the framework's own refusals in Kioku's one error shape
    frameworkErrors: (err, _req, reply: FastifyReply) => {
      const k =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new KiokuError('KIOKU_URI_TOO_LONG', 'a path segment is longer than 8 KiB (ids are at most 512 characters)', { details: { field: '(url)' } })
          : new KiokuError('KIOKU_INPUT_INVALID', 'the URL is not valid: a percent-encoding is broken', { details: { field: '(url)' } });
      void reply.status(k.status).send(errorBody(k));
    },
    // while stopping, our own 503 (onRequest below) in the one error shape
    return503OnClosing: false,
  });
  // Schemas on routes document the API (OpenAPI at /docs/json); the core validates,
  // naming the failing field — one place, not two.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  // JSON bodies must be valid UTF-8: replacement characters never slip into the log.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  // JSON only: a body sent as text/plain is a content-type error, named as such
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(new KiokuError('KIOKU_INPUT_INVALID', 'the request body is not valid UTF-8', { details: { field: '(body)' } }), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    const depth = nestingDepth(text);
    if (depth > MAX_JSON_DEPTH)
      return done(
        new KiokuError('KIOKU_INPUT_INVALID', `the request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted`, {
          details: { field: '(body)' },
        }),
        undefined,
      );
    try {
      const body: unknown = JSON.parse(text, (key, value: unknown) => {
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new Error(`the key "${key}" is not accepted`);
        // one text policy at the edge: a string cut inside a character is refused, never stored changed
        if ((typeof value === 'string' && hasLoneSurrogate(value)) || hasLoneSurrogate(key))
          throw new KiokuError('KIOKU_INPUT_INVALID', `"${key}" holds a lone UTF-16 surrogate (a string cut inside a character)`, {
            details: { field: key || '(body)' },
          });
        return value;
      });
      // every route takes an object: null, an array or a scalar is refused here, never read as {}
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return done(
          new KiokuError(
            'KIOKU_INPUT_INVALID',
            `the request body must be a JSON object, not ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
            {
              details: { field: '(body)' },
            },
          ),
          undefined,
        );
      done(null, body);
    } catch (err) {
      if (err instanceof KiokuError) return done(err, undefined);
      done(
        new KiokuError('KIOKU_INPUT_INVALID', `the request body is not valid JSON: ${(err as Error).message}`.slice(0, 300), { details: { field: '(body)' } }),
        undefined,
      );
    }
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Kioku', description: 'Local-first knowledge and memory for AI agents', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(
    (req, reply) => void reply.status(404).send({ error: { code: 'KIOKU_NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }),
  );

  const limiter = new RateLimiter(options.rateLimitPerMinute ?? Number(process.env['KIOKU_RATE_LIMIT'] ?? 6_000));
  app.decorateRequest('principal', { getter: () => ANONYMOUS });
  const bodyLimit = options.bodyLimit ?? 2 * 1024 * 1024;
  app.addHook('onRequest', async (req) => {
    // a declared body over the limit: read it to the end (up to 64 MiB) before answering 413, so
    // the client, still uploading, gets the answer instead of a reset connection
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > bodyLimit) {
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
    const path = req.url.split('?')[0] ?? '';
    const query = req.url.includes('?') ? new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1)) : undefined;
    // a token in a URL ends up in logs and histories: refuse the usual names, and any parameter whose value is a configured token
    if (
      query &&
      (['token', 'access_token', 'api_key', 'apikey', 'key', 'auth', 'bearer', 'authorization'].some((k) => query.has(k)) ||
        [...query.values()].some((v) => options.auth.isToken?.(v)))
    ) {
      throw new KiokuError('KIOKU_UNAUTHORIZED', 'tokens are accepted only in the Authorization header, never in the URL', { details: { field: 'query' } });
    }
    if (path === '/v1/health' || path.startsWith('/docs')) return;
    const principal = options.auth.authenticate(req.headers.authorization);
    if (!principal) throw new KiokuError('KIOKU_UNAUTHORIZED', options.auth.required ? 'a valid bearer token is required (Authorization: Bearer <token>, a token from the auth file)' : 'unauthorised');
    Object.defineProperty(req, 'principal', { value: principal, enumerable: true });
    if (!principal.anonymous) {
      const wait = limiter.take(principal.name);
      if (wait > 0) throw new KiokuError('KIOKU_RATE_LIMITED', `rate limit reached for token ${principal.name}`, { details: { retry_after_ms: wait } });
    }
    if (options.state.closing) throw new KiokuError('KIOKU_SHUTTING_DOWN', 'the server is stopping; retry after it restarts');
    if (!options.state.ready)
      // the progress counts the whole log: for a caller who may see the whole service only
      throw new KiokuError('KIOKU_NOT_READY', 'the store is still opening; retry shortly', {
        details: principalSeesService(principal) ? { progress: options.state.progress ?? null } : {},
      });
  });

  // a node cut off from its shared store answers from its projections; every answer says so
  app.addHook('onRequest', async (req, reply) => {
    const shared = options.state.store?.log.health?.();
    if (!shared || shared.connected) return;
    // the node's head moves with every namespace's writes: only for callers who may see the whole service
    const head = (!options.auth.required || !req.principal.anonymous) && principalSeesService(req.principal) ? `; node_head=${shared.node_head}` : '';
    void reply.header('kioku-stale', `disconnected_ms=${shared.disconnected_ms ?? 0}${head}`);
  });

  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(healthRoutes(options));
  await app.register(turnRoutes(options.state));
  await app.register(recallRoutes(options.state));
  await app.register(knowledgeRoutes(options.state));
  await app.register(pipelineRoutes(options.state));
  await app.register(reportRoutes(options.state));
  await app.register(itemRoutes(options.state));
  await app.register(operationRoutes(options.state));
  return app;
}

/** A URL for a log line: the query string's values replaced, whatever they are. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  return `${url.slice(0, at)}?${names.map((n) => `${encodeURIComponent(n)}=[redacted]`).join('&')}`;
}

/** Deepest nesting of arrays and objects in a JSON text (strings skipped), without parsing it. */
export const MAX_JSON_DEPTH = 64;
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}
