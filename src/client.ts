// A Kioku HTTP client for Kioku's own tools (the CLI while a server holds the store, the
// eval harness against a running service): one place that sends the bearer token, refuses
// redirects (a redirect could carry the token elsewhere) and turns an error body back into
// the typed error the core raised.
import { ERROR_REGISTRY, KiokuError, type ErrorCode } from './errors.js';

export interface KiokuRequest {
  method: 'GET' | 'POST';
  body?: unknown;
  token?: string | undefined;
  timeoutMs?: number;
}

/**
 * The JSON answer of `base + path`. A non-2xx answer throws its `KiokuError` (code kept when
 * known); an unreachable server rejects with fetch's own error, for the caller to name.
 */
export async function requestKioku<T>(base: string, path: string, request: KiokuRequest): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: request.method,
    headers: {
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
    },
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    redirect: 'error',
    signal: AbortSignal.timeout(request.timeoutMs ?? 30_000),
  });
  const json = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (!res.ok) {
    const code = (json.error?.code && json.error.code in ERROR_REGISTRY ? json.error.code : 'KIOKU_INTERNAL') as ErrorCode;
    throw new KiokuError(code, `${base}: ${res.status} ${json.error?.message ?? res.statusText}`);
  }
  return json as T;
}
