// The OpenAPI document (/docs/json), derived from the zod schemas the routes validate with: a
// request body is the facade method's input schema, a response the method's output schema where
// one is declared. Nothing is written twice.
import type { FastifyInstance, FastifySchema } from 'fastify';
import swagger from '@fastify/swagger';
import { z } from 'zod';

/** JSON Schema for OpenAPI, from a zod schema: what a client sends (`input`) or receives (`output`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

const isZod = (s: unknown): s is z.ZodType => s instanceof z.ZodType;

/** A route's schema with each zod part as JSON Schema (request parts as input, responses as output). */
export function documented(schema: FastifySchema): FastifySchema {
  const out: Record<string, unknown> = { ...schema };
  for (const part of ['body', 'querystring', 'params', 'headers'] as const) if (isZod(schema[part])) out[part] = jsonSchema(schema[part]);
  if (schema.response && typeof schema.response === 'object')
    out['response'] = Object.fromEntries(Object.entries(schema.response).map(([code, s]) => [code, isZod(s) ? jsonSchema(s, 'output') : s]));
  return out;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: { title: 'Kioku', description: 'Local-first knowledge and memory for AI agents', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: ({ schema, url }) => ({ schema: documented(schema ?? {}), url }),
  });
}

/** GET /docs/json: the document (after the gate: a token in its URL is refused like anywhere). */
export function serveOpenApi(app: FastifyInstance): void {
  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
}
