// The HTTP service: fastify, one route module per concern, every route calling the
// same facade as MCP, the hook and the CLI. A request passes the gate (gate.ts: size, auth,
// rate limit, readiness), then its route's edge (edge.ts: scope, caller, one parse), then
// one facade call.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { KiokuError } from '../errors.js';
import { errorBody, errorHandler } from './errors.js';
import { passThroughSerializer, zodValidator } from './edge.js';
import { installGate } from './gate.js';
import { installJsonBodyParser } from './json-body.js';
import { registerOpenApi, serveOpenApi } from './openapi.js';
import { healthRoutes } from './routes/health.js';
import { turnRoutes } from './routes/turns.js';
import { recallRoutes } from './routes/recall.js';
import { memoryRoutes } from './routes/memories.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { assetRoutes } from './routes/assets.js';
import { pipelineRoutes } from './routes/pipeline.js';
import { reportRoutes } from './routes/reports.js';
import { itemRoutes } from './routes/items.js';
import { operationRoutes } from './routes/operations.js';
import { orgRoutes } from './routes/org.js';
import { uiRoutes } from './routes/ui.js';
import { activityRoutes } from './routes/activity.js';
import { noticeRoutes } from './routes/notices.js';
import { privacyRoutes } from './routes/privacy.js';
import { UiSessions } from '../ui/sessions.js';
import type { AppOptions } from './state.js';

export type { ServerState, AppOptions } from './state.js';
export { MAX_JSON_DEPTH, nestingDepth } from './json-body.js';

const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;

export async function buildApp(given: AppOptions): Promise<FastifyInstance> {
  // the web page's sessions: one set per server, seen by the gate, health and the sign-in route
  const options: AppOptions = { ...given, uiSessions: given.uiSessions ?? new UiSessions() };
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify(fastifyOptions(options, bodyLimit));
  // fastify's own validator, fed the facade methods' zod schemas (edge.ts): one parse per request
  app.setValidatorCompiler(zodValidator('request'));
  app.setSerializerCompiler(passThroughSerializer);
  installJsonBodyParser(app);
  await registerOpenApi(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(
    (req, reply) => void reply.status(404).send({ error: { code: 'KIOKU_NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }),
  );
  installGate(app, options, bodyLimit);
  serveOpenApi(app);
  await app.register(healthRoutes(options));
  await app.register(uiRoutes(options, options.uiSessions as UiSessions));
  await app.register(activityRoutes(options.state));
  await app.register(noticeRoutes(options.state));
  await app.register(privacyRoutes(options.state));
  for (const routes of [turnRoutes, recallRoutes, memoryRoutes, knowledgeRoutes, assetRoutes, pipelineRoutes, reportRoutes, itemRoutes, operationRoutes, orgRoutes])
    await app.register(routes(options.state));
  return app;
}

function fastifyOptions(options: AppOptions, bodyLimit: number): FastifyServerOptions {
  return {
    // request logs only on request (kioku serve --log-requests); query strings never reach them
    logger: options.logger
      ? {
          serializers: {
            req: (req: { method: string; url: string }) => ({ method: req.method, url: redactQuery(req.url) }),
          },
        }
      : false,
    bodyLimit,
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
  };
}

/** A URL for a log line: the query string's values replaced, whatever they are. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  return `${url.slice(0, at)}?${names.map((n) => `${encodeURIComponent(n)}=[redacted]`).join('&')}`;
}
