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
