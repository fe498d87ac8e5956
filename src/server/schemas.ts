// Wire schemas for OpenAPI: the request schemas live in the core (src/wire.ts).
import { z } from 'zod';

export { wire } from '../wire.js';

/** JSON Schema for OpenAPI, from a zod schema. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
