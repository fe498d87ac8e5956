// Input validation for knowledge commands: one clear error naming the first failing field.
import type { z } from 'zod';
import { KiokuError } from '../errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? issue.path.map(String) : [];
  // name the unknown field itself, not only the object holding it
  if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  const field = path.length ? path.join('.') : '(input)';
  throw new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${field}: ${issue?.message ?? 'invalid'}`, {
    details: { field, issues: result.error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}
