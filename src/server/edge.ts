// The edge of the HTTP door: each route declares the scope it needs and the facade method it
// calls. Per request, in this order and once each:
//   1. preValidation: the scope is checked before anything of the body is read (a token without
//      it learns nothing of the body's shape), then the caller is resolved: the principal and the
//      namespace the request names become a `Caller` (src/api) — the one resolution;
//   2. fastify's validator parses the body (or query) with the method's own zod schema — the one
//      parse; its KIOKU_INPUT_INVALID names the failing field as the facade would;
//   3. the handler calls one facade method with the parsed input and the Caller, and renders.
// The facade takes the parsed input as parsed (src/api parseInput marks it) and the Caller's
// namespace as settled, so nothing below parses or resolves again.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, FastifySchemaCompiler, RouteShorthandOptions } from 'fastify';
import { z } from 'zod';
import { checkScope, inputSchemas, parseInput, parsedWith, resolveCaller, type Caller, type MethodWithInput, type Scope } from '../api/index.js';
import { KiokuError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** who is calling, resolved once in the route's preValidation hook */
    caller: Caller;
  }
}

/** A validator of one request part: src/api's parse (counted; its error names the field), labelled as the facade labels it. */
export function edgeParser(schema: z.ZodType, label: string, prepare: (raw: unknown) => unknown = (raw) => raw) {
  return (data: unknown): { value?: unknown; error?: Error } => {
    try {
      return { value: parseInput(schema, prepare(data), label) };
    } catch (error) {
      return { error: error as Error };
    }
  };
}

/** fastify's validator compiler, fed the zod schemas routes declare (every route schema here is zod: openapi.ts documents them). */
export function zodValidator(label: string): FastifySchemaCompiler<FastifySchema> {
  return ({ schema }) => {
    if (!(schema instanceof z.ZodType)) throw new Error('route schemas are zod schemas (src/server/edge.ts)');
    return edgeParser(schema, label);
  };
}

/** Responses are sent as the facade answered (JSON.stringify): a response schema documents, it never strips a field. */
export const passThroughSerializer = () => (data: unknown) => JSON.stringify(data);

/** What every documented route carries: its summary, tags and the bearer scheme. */
export function described(summary: string, tags: readonly string[] = []): { summary: string; tags: string[]; security: { bearer: string[] }[] } {
  return { summary, tags: [...tags], security: [{ bearer: [] }] };
}

/**
 * The labels the facade's own parses carry (`start turn: session_id: …`): the edge parses first, so
 * its errors read exactly as the core's would.
 */
export const INPUT_LABELS: Record<MethodWithInput, string> = {
  openSession: 'open session',
  startTurn: 'start turn',
  completeTurn: 'complete turn',
  recall: 'recall',
  context: 'recall',
  candidates: 'recall',
  writeMemories: 'write memories',
  forget: 'forget',
  purge: 'purge',
  supersede: 'supersede',
  importDocuments: 'import',
  replay: 'replay',
  lifecycleRun: 'lifecycle run',
  setAudience: 'set audience',
  notify: 'notify',
  ack: 'ack',
  changeOrg: 'org',
  items: 'items',
  logEpisode: 'log episode',
  registerAsset: 'register asset',
  recordJobEvent: 'job event',
  list: 'list',
  importItems: 'import items',
  revealSecret: 'reveal secret',
};

/** A body route: the facade method it calls, the scope it needs, whether a body must be sent. */
export interface BodyRoute<M extends MethodWithInput> {
  url: string;
  method: M;
  summary: string;
  tags: readonly string[];
  scope: Scope;
  /** no body at all is refused (`(body)`); otherwise an absent body is `{}` */
  required?: boolean;
  /** the method's output schema, for the OpenAPI document */
  response?: z.ZodType;
}

type Input<M extends MethodWithInput> = z.output<(typeof inputSchemas)[M]>;

/** Register POST `route.url`: scope, caller and body settled at the edge, then `handle` calls the facade. */
export function bodyRoute<M extends MethodWithInput, P = Record<string, string>>(
  app: FastifyInstance,
  route: BodyRoute<M>,
  handle: (input: Input<M>, caller: Caller, req: FastifyRequest & { params: P }) => Promise<unknown>,
): void {
  const schema = inputSchemas[route.method];
  const options: RouteShorthandOptions = {
    schema: { ...described(route.summary, route.tags), operationId: route.method, body: schema, ...(route.response ? { response: { 200: route.response } } : {}) },
    validatorCompiler: zodValidator(INPUT_LABELS[route.method]),
    preValidation: async (req) => {
      req.caller = bodyCaller(req, route.scope, route.required === true, 'namespace' in schema.shape);
    },
  };
  app.post(route.url, options, async (req) => handle(req.body as Input<M>, req.caller, req as FastifyRequest & { params: P }));
}

/**
 * The scope, then the caller from the body's `namespace`, before the body is parsed. A method whose
 * input has no namespace (completing a turn) gets the body without it: the namespace named the
 * caller only.
 */
function bodyCaller(req: FastifyRequest, scope: Scope, required: boolean, inputHasNamespace: boolean): Caller {
  checkScope(req.principal, scope); // before the body is read: a token without the scope learns nothing about its shape
  if (req.body === undefined || req.body === null) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    if (required) throw new KiokuError('KIOKU_INPUT_INVALID', 'the request body must be a JSON object', { details: { field: '(body)' } });
    req.body = {};
  }
  const body = req.body as Record<string, unknown>; // the JSON parser (json-body.ts) hands on objects only
  // a POST names its namespace in the body; a ?namespace= beside it would be ignored, a silent switch
  if ((req.query as Record<string, unknown> | undefined)?.['namespace'] !== undefined)
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_INPUT_INVALID', 'namespace: name it in the request body, not as ?namespace= on a POST', { details: { field: 'namespace' } });
  const namespace = body['namespace'];
  if (namespace !== undefined && typeof namespace !== 'string')
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_INPUT_INVALID', 'namespace must be a string', { details: { field: 'namespace' } });
  if (!inputHasNamespace) delete body['namespace'];
  return resolveCaller(req.principal, namespace, scope);
}

/** A GET route whose caller is resolved from `?namespace=` (the token's when absent) once, in preValidation. */
export interface QueryRoute {
  url: string;
  summary: string;
  tags: readonly string[];
  scope: Scope;
  /** the query as the facade method's input, parsed once by fastify's validator */
  query?: { method: MethodWithInput; schema: z.ZodType; toInput: (query: Record<string, unknown>) => unknown };
  response?: z.ZodType;
}

export function queryRoute<P = Record<string, string>>(
  app: FastifyInstance,
  route: QueryRoute,
  handle: (caller: Caller, req: FastifyRequest & { params: P; query: Record<string, unknown> }, reply: FastifyReply) => Promise<unknown>,
): void {
  const q = route.query;
  const options: RouteShorthandOptions = {
    schema: {
      ...described(route.summary, route.tags),
      ...(q ? { operationId: q.method, querystring: q.schema } : {}),
      ...(route.response ? { response: { 200: route.response } } : {}),
    },
    // the facade's schema parses the query turned into its input (names as the facade spells them)
    ...(q ? { validatorCompiler: () => edgeParser(inputSchemas[q.method], INPUT_LABELS[q.method], (raw) => q.toInput(raw as Record<string, unknown>)) } : {}),
    preValidation: async (req) => {
      req.caller = resolveCaller(req.principal, (req.query as { namespace?: string }).namespace, route.scope);
    },
  };
  app.get(route.url, options, async (req, reply) => handle(req.caller, req as FastifyRequest & { params: P; query: Record<string, unknown> }, reply));
}

/** A query route's input as fastify's validator parsed it with the method's schema (checked, not assumed). */
export function parsedQuery<M extends MethodWithInput>(req: FastifyRequest, method: M): Input<M> {
  if (!parsedWith(inputSchemas[method], req.query)) throw new Error(`the query of ${req.url.split('?')[0]} was not parsed as ${method}'s input`);
  return req.query as Input<M>;
}
