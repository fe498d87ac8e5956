// One error shape for every failure: {error: {code, message, details?}}.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isKiokuError, KiokuError } from '../errors.js';

export function errorBody(err: KiokuError): { error: { code: string; message: string; details?: Record<string, unknown> } } {
  const details = err.details;
  return { error: { code: err.code, message: err.message, ...(details ? { details } : {}) } };
}

export function toKiokuError(err: unknown): KiokuError {
  if (isKiokuError(err)) return err;
  const e = err as FastifyError & { statusCode?: number };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return new KiokuError('KIOKU_BODY_TOO_LARGE', 'request body is too large');
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415)
    return new KiokuError('KIOKU_INPUT_INVALID', 'send JSON with content-type application/json', { details: { field: '(content-type)' } });
  if (e.code?.startsWith('FST_ERR_CTP') || e instanceof SyntaxError || e.statusCode === 400) {
    return new KiokuError('KIOKU_INPUT_INVALID', `the request body is not valid JSON: ${e.message}`.slice(0, 300), { details: { field: '(body)' } });
  }
  return new KiokuError('KIOKU_INTERNAL', 'internal error', { cause: err });
}

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const k = toKiokuError(err);
  if (k.status >= 500) req.log.error({ err }, k.message);
  const retry = k.details?.['retry_after_ms'];
  if (typeof retry === 'number') void reply.header('retry-after', Math.ceil(retry / 1000));
  void reply.status(k.status).send(errorBody(k));
}

/** One line for a failure outside any request: its code when it is Kioku's, else its message. */
export function describeFailure(err: unknown): string {
  if (isKiokuError(err)) return `${err.message} [${err.code}]`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A background task's failure (the embedding job's append refused on a full disk, …) is logged
 * and the service goes on answering: an unhandled rejection used to end the process (issue 29
 * item 5). Returns the function that removes the guard.
 */
export function guardBackgroundFailures(write: (line: string) => void = (line) => process.stderr.write(line)): () => void {
  const onRejection = (reason: unknown): void => write(`kioku: error: a background task failed: ${describeFailure(reason)}\n`);
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}
