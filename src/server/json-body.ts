// The one body parser: JSON objects only, valid UTF-8, no lone surrogates, no prototype keys,
// nested at most MAX_JSON_DEPTH levels. Everything else is refused here, naming `(body)`.
import type { FastifyInstance } from 'fastify';
import { KiokuError } from '../errors.js';
import { hasLoneSurrogate } from '../text/index.js';

/** Deepest nesting of arrays and objects in a JSON text (strings skipped), without parsing it. */
export const MAX_JSON_DEPTH = 64;
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

const bodyError = (message: string, field = '(body)') => new KiokuError('KIOKU_INPUT_INVALID', message, { details: { field } });

/** JSON.parse with the edge's text policy: prototype keys refused, a string cut inside a character refused, never stored changed. */
function parseJsonText(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new Error(`the key "${key}" is not accepted`);
    if ((typeof value === 'string' && hasLoneSurrogate(value)) || hasLoneSurrogate(key))
      throw bodyError(`"${key}" holds a lone UTF-16 surrogate (a string cut inside a character)`, key || '(body)');
    return value;
  });
}

/** A request body's text as the object every route takes (undefined when empty); a KiokuError naming `(body)` otherwise. */
export function parseJsonBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  const depth = nestingDepth(text);
  if (depth > MAX_JSON_DEPTH) throw bodyError(`the request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted`);
  let body: unknown;
  try {
    body = parseJsonText(text);
  } catch (err) {
    if (err instanceof KiokuError) throw err;
    throw bodyError(`the request body is not valid JSON: ${(err as Error).message}`.slice(0, 300));
  }
  // every route takes an object: null, an array or a scalar is refused here, never read as {}
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw bodyError(`the request body must be a JSON object, not ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`);
  return body as Record<string, unknown>;
}

/** JSON only (a body sent as text/plain is a content-type error, named as such), and valid UTF-8: replacement characters never slip into the log. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(bodyError('the request body is not valid UTF-8'), undefined);
    }
    try {
      done(null, parseJsonBody(text));
    } catch (err) {
      done(err as KiokuError, undefined);
    }
  });
}
