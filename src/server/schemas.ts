// Wire schemas: the HTTP bodies, built from the core's zod schemas (one source of
// truth). They document the API in OpenAPI; validation itself happens in the core,
// which names the failing field.
import { z } from 'zod';
import { namespaceSchema } from '../events/index.js';
import { itemIdSchema } from '../knowledge/evidence.js';
import { memoryInputSchema } from '../knowledge/index.js';
import { recallRequestSchema } from '../recall/index.js';
import { completeTurnSchema, openSessionSchema, startTurnSchema } from '../recall/turns.js';

export const wire = {
  openSession: openSessionSchema,
  startTurn: startTurnSchema,
  completeTurn: completeTurnSchema,
  recall: recallRequestSchema,
  memories: z.strictObject({
    memories: z.array(memoryInputSchema).min(1).max(500),
    namespace: namespaceSchema.optional(),
    /** answer only once the written memories have vectors: true (up to 60 s) or a timeout in ms */
    wait_for_vectors: z.union([z.boolean(), z.number().int().min(1).max(600_000)]).optional(),
  }),
  forget: z.strictObject({ reason: z.string().max(2_000).optional(), namespace: namespaceSchema.optional() }),
  supersede: z.strictObject({
    superseded_ids: z.array(itemIdSchema).min(1).max(100),
    reason: z.string().max(2_000).optional(),
    namespace: namespaceSchema.optional(),
  }),
  audience: z.strictObject({ audience: z.array(z.string().min(1).max(200)).max(100), namespace: namespaceSchema.optional() }),
  jobEvent: z.strictObject({
    job_id: z.string().min(1).max(512),
    stage: z.string().min(1).max(100),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
    detail: z.string().max(10_000).optional(),
    progress: z.strictObject({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }).optional(),
    namespace: namespaceSchema.optional(),
  }),
};

/** JSON Schema for OpenAPI, from a zod schema. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
