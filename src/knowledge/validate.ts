// Input validation for knowledge commands: one clear error naming the first failing field.
// A value parsed here is remembered with its schema (a WeakMap: nothing is kept alive), so the
// same value handed on to a function that parses with the same schema is not parsed again: a
// door parses once at the edge and everything below takes the parsed value (src/api/index.ts).
import type { z } from 'zod';
import { KiokuError } from '../errors.js';
import { findTextFault } from '../text/well-formed.js';

const parsedBy = new WeakMap<object, z.ZodType>();

/** How many inputs were parsed (not the ones handed on already parsed): src/api/index.ts reads it. */
export const parseCounter = { parses: 0 };

/** Whether `value` is the output of parsing with `schema` (and so needs no parse again). */
export function parsedWith(schema: z.ZodType, value: unknown): boolean {
  return typeof value === 'object' && value !== null && parsedBy.get(value) === schema;
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  if (parsedWith(schema, input)) return input as z.output<S>;
  parseCounter.parses += 1;
  const result = schema.safeParse(input);
  if (result.success) {
    // the one text rule (src/text/well-formed.ts), here because every door's input passes here
    const bad = findTextFault(result.data);
    if (bad) throw invalid(what, bad.path.length ? bad.path.join('.') : '(input)', bad.fault);
    if (typeof result.data === 'object' && result.data !== null) parsedBy.set(result.data, schema);
    return result.data;
  }
  const issue = result.error.issues[0];
  const path = issue ? issue.path.map(String) : [];
  // name the unknown field itself, not only the object holding it
  if (issue?.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  const field = path.length ? path.join('.') : '(input)';
  throw invalid(what, field, issue?.message ?? 'invalid', result.error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String), message: i.message })));
}

function invalid(what: string, field: string, message: string, issues: { path: string[]; message: string }[] = [{ path: field.split('.'), message }]): KiokuError {
  return new KiokuError('KIOKU_INPUT_INVALID', `${what}: ${field}: ${message}`, { details: { field, issues } });
}
