// Input validation for knowledge commands: one clear error naming the first failing field.
import type { z } from 'zod';
import { KiokuError } from '../errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length ? issue.path.map(String).join('.') : '(input)';
  throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${field}: ${issue?.message ?? 'invalid'}`, {
    details: { field, issues: result.error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}
