import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Scope } from '../auth.js';
import { resolveAccess } from '../../access.js';
import { requireScope, withoutNamespace } from '../context.js';
import type { z } from 'zod';
import type { LocalKioku } from '../../kioku.js';
import type { KiokuStore } from '../../store.js';
import type { RecallContext } from '../../recall/index.js';
import type { ServerState } from '../state.js';
import { jsonSchema } from '../schemas.js';

export type Ready = { store: KiokuStore; core: NonNullable<ServerState['core']>; kioku: LocalKioku };

/** The open store, core and facade (the onRequest hook answers 503 before they exist). */
export function ready(state: ServerState): Ready {
  return { store: state.store as KiokuStore, core: state.core as NonNullable<ServerState['core']>, kioku: state.kioku as LocalKioku };
}

/** Route options: OpenAPI docs from the zod schema of the body. */
export function doc(summary: string, body?: z.ZodType, tags: string[] = []): { schema: Record<string, unknown> } {
  return { schema: { summary, tags, security: [{ bearer: [] }], ...(body ? { body: jsonSchema(body) } : {}) } };
}

export function plugin(fn: (app: FastifyInstance) => void | Promise<void>): FastifyPluginAsync {
  return async (app) => {
    await fn(app);
  };
}

/** The common start of a body route: check the scope, split off and resolve the namespace. */
export function scopedBody(
  req: FastifyRequest,
  scope: Scope,
  body: 'optional' | 'required' = 'optional',
): { ns: string; rest: Record<string, unknown>; context: RecallContext } {
  requireScope(req, scope); // before the body is read: a token without the scope learns nothing about its shape
  const { namespace, rest } = withoutNamespace(body === 'required' ? req.body : (req.body ?? {}));
  const resolved = resolveAccess(req.principal, namespace, scope);
  return { ns: resolved.namespace, rest, context: resolved.access };
}

/** A body handed on as the facade's input type: the core parses every input with its zod schema and names the failing field. */
export function unvalidated<T>(body: Record<string, unknown>): T {
  return body as T;
}

/** The common start of a GET route: check the scope and resolve `?namespace=` (the token's when absent). */
export function queryAccess(req: FastifyRequest, scope: Scope): { namespace: string; access: RecallContext } {
  return resolveAccess(req.principal, (req.query as { namespace?: string }).namespace, scope);
}
