// The HTTP service: fastify, one route module per concern, every route calling the
// same core as MCP, the hook and the CLI.
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { KiokuStore } from '../kioku.js';
import { KiokuError } from '../errors.js';
import type { RecallCore } from '../recall/index.js';
import type { EmbeddingIndexer } from '../indexer/embedding-job.js';
import type { Knowledge } from '../knowledge/index.js';
import { ANONYMOUS, type AuthConfig } from './auth.js';
import { errorHandler } from './errors.js';
import { hasLoneSurrogate } from '../text/index.js';
import { RateLimiter } from './rate-limit.js';
import { healthRoutes } from './routes/health.js';
import { turnRoutes } from './routes/turns.js';
import { recallRoutes } from './routes/recall.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { pipelineRoutes } from './routes/pipeline.js';
import { reportRoutes } from './routes/reports.js';

export interface ServerState {
  /** set once the store is open and projections caught up */
  store?: KiokuStore;
  core?: RecallCore & { indexer: EmbeddingIndexer; close: () => Promise<void> };
  /** one Knowledge per store: its commands run one at a time */
  knowledge?: Knowledge;
  ready: boolean;
  startedAt: number;
  progress?: { done: number; total: number };
}

export interface AppOptions {
  auth: AuthConfig;
  state: ServerState;
  bodyLimit?: number;
  rateLimitPerMinute?: number;
  logger?: boolean;
}

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
  });
  // Schemas on routes document the API (OpenAPI at /docs/json); the core validates,
  // naming the failing field — one place, not two.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  // JSON bodies must be valid UTF-8: replacement characters never slip into the log.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(new KiokuError('KIOKU_INPUT_INVALID', 'the request body is not valid UTF-8', { details: { field: '(body)' } }), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(
        null,
        JSON.parse(text, (key, value: unknown) => {
          if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new Error(`the key "${key}" is not accepted`);
          // one text policy at the edge: a string cut inside a character is refused, never stored changed
          if ((typeof value === 'string' && hasLoneSurrogate(value)) || hasLoneSurrogate(key))
            throw new KiokuError('KIOKU_INPUT_INVALID', `"${key}" holds a lone UTF-16 surrogate (a string cut inside a character)`, {
              details: { field: key || '(body)' },
            });
          return value;
        }),
      );
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
  app.addHook('onRequest', async (req) => {
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
    if (!principal) throw new KiokuError('KIOKU_UNAUTHORIZED', options.auth.required ? 'a valid bearer token is required' : 'unauthorised');
    Object.defineProperty(req, 'principal', { value: principal, enumerable: true });
    if (!principal.anonymous) {
      const wait = limiter.take(principal.name);
      if (wait > 0) throw new KiokuError('KIOKU_RATE_LIMITED', `rate limit reached for token ${principal.name}`, { details: { retry_after_ms: wait } });
    }
    if (!options.state.ready)
      throw new KiokuError('KIOKU_NOT_READY', 'the store is still opening; retry shortly', { details: { progress: options.state.progress ?? null } });
  });

  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(healthRoutes(options));
  await app.register(turnRoutes(options.state));
  await app.register(recallRoutes(options.state));
  await app.register(knowledgeRoutes(options.state));
  await app.register(pipelineRoutes(options.state));
  await app.register(reportRoutes(options.state));
  return app;
}

/** A URL for a log line: the query string's values replaced, whatever they are. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  return `${url.slice(0, at)}?${names.map((n) => `${encodeURIComponent(n)}=[redacted]`).join('&')}`;
}
