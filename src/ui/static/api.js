// Every read and write of the page goes through the /v1 HTTP API, the same routes and the same
// auth as any client: the session cookie stands for the token, and writes carry the CSRF header.
let csrf = null;

export function setCsrf(value) {
  csrf = value ?? null;
}

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** One call: JSON in, JSON out; a refusal becomes an ApiError with Kioku's code. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-kioku-csrf'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { raw: text };
  }
  if (!res.ok) {
    const e = data.error ?? {};
    throw new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? res.statusText, e.details);
  }
  return data;
}

/** A query string from the defined values of an object. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** An evidence key as a path segment. */
export const keyPath = (key) => encodeURIComponent(key);
