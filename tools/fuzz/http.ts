// Property-based fuzzing of every HTTP route (fast-check): random JSON, mutated valid
// bodies (a field of the wrong type, an unknown key, a broken shape) and valid bodies with
// random text. Properties: never a 5xx; never a 2xx for a body that is invalid by
// construction; the log never moves unless the request succeeded. Used by
// tests/http-fuzz.test.ts (fixed seed, bounded budget) and `npm run fuzz` (larger budget).
import fc from 'fast-check';

export interface FuzzTarget {
  url: string;
  /** the log head's seq, read in process */
  head: () => number;
}

export interface FuzzOutcome {
  requests: number;
  by_status: Record<string, number>;
  /** requests built to be invalid, and how many of them were refused with a 4xx */
  invalid: { sent: number; refused: number };
  violations: { rule: string; method: string; path: string; status: number; body: string }[];
}

type Method = 'GET' | 'POST';
interface Route {
  method: Method;
  path: (id: string) => string;
  /** a valid body, from random text */
  valid?: (text: string, id: string) => Record<string, unknown>;
}

const ROUTES: Route[] = [
  { method: 'POST', path: () => '/v1/memories', valid: (t, id) => ({ memories: [{ id, kind: 'fact', text: t || 'x' }] }) },
  { method: 'POST', path: (id) => `/v1/memories/${encodeURIComponent(id)}/forget`, valid: (t) => ({ reason: t }) },
  { method: 'POST', path: (id) => `/v1/memories/${encodeURIComponent(id)}/supersede`, valid: (_t, id) => ({ superseded_ids: [`${id}-old`] }) },
  { method: 'POST', path: (id) => `/v1/memories/${encodeURIComponent(id)}/audience`, valid: (t) => ({ audience: [t || 'team'] }) },
  { method: 'POST', path: () => '/v1/recall', valid: (t) => ({ query: t || 'x', limit: 5 }) },
  { method: 'POST', path: () => '/v1/context', valid: (t) => ({ query: t || 'x' }) },
  { method: 'POST', path: () => '/v1/candidates/query', valid: (t) => ({ query: t || 'x' }) },
  { method: 'POST', path: () => '/v1/sessions/open', valid: (t) => ({ agent: t.trim() || 'fuzz' }) },
  { method: 'POST', path: () => '/v1/turns/start', valid: (t) => ({ session_id: 'fuzz-session', query: t || 'x' }) },
  { method: 'POST', path: (id) => `/v1/turns/${encodeURIComponent(id)}/complete`, valid: (t) => ({ answer: t || 'x' }) },
  { method: 'POST', path: () => '/v1/replay', valid: () => ({ rules: { max_items: 2 } }) },
  {
    method: 'POST',
    path: () => '/v1/import',
    valid: (t) => ({ kind: 'wiki', root: '/fuzz-root', files: [{ path: '/fuzz-root/a.md', markdown: `# A\n\n${t}` }] }),
  },
  { method: 'POST', path: () => '/v1/pipeline/jobs/events', valid: (_t, id) => ({ job_id: id, stage: 'fuzz', status: 'running' }) },
  { method: 'POST', path: () => '/v1/assets', valid: (t, id) => ({ id, content: t, name: 'fuzz.txt', description: t.trim() || 'x' }) },
  { method: 'POST', path: () => '/v1/assets', valid: (t, id) => ({ id, path: `/etc/${t}`, description: 'x' }) },
  { method: 'GET', path: (id) => `/v1/assets/${encodeURIComponent(id)}?include_content=1&max_bytes=${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/evidence/${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/cards/${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/wiki/topics/${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/artifacts/${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/knowledge/cold?min_considered=${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/pipeline/snapshot?days=${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/pipeline/jobs?limit=${encodeURIComponent(id)}&status=${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/reports/delivery?days=${encodeURIComponent(id)}` },
  { method: 'POST', path: () => '/v1/import/items', valid: (t, id) => ({ items: [{ type: 'memory', id, kind: 'fact', text: t.trim() || 'x' }] }) },
  { method: 'POST', path: () => '/v1/log/verify', valid: () => ({}) },
  {
    method: 'GET',
    path: (id) => `/v1/items?text=${encodeURIComponent(id)}&tag=${encodeURIComponent(id)}&since=${encodeURIComponent(id)}&cursor=${encodeURIComponent(id)}&limit=${encodeURIComponent(id)}`,
  },
  { method: 'GET', path: (id) => `/v1/items?layer=${encodeURIComponent(id)}&session=${encodeURIComponent(id)}&entity=${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/log/records/${encodeURIComponent(id)}` },
  { method: 'GET', path: (id) => `/v1/log/frames?from=${encodeURIComponent(id)}&limit=${encodeURIComponent(id)}` },
  { method: 'GET', path: () => '/v1/log/stats' },
  { method: 'GET', path: () => '/v1/ingest/status' },
  { method: 'GET', path: () => '/v1/health' },
];
const POSTS = ROUTES.filter((r) => r.method === 'POST');

/** A body broken on purpose: the properties say it must be refused. */
type Broken = { kind: 'broken'; body: string };
/** A body that may or may not be valid: it must never cause a 5xx or a write without a 2xx. */
type Free = { kind: 'free'; body: string | undefined };

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('', ' ', '\u0000', 'a:b#c d', '好', '🚀'));
const id = fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('D1:3', 'notes/x.md#s', 'x'.repeat(600), '%', '..', '/'));

/** Replace one top-level field's value with a value of a type no schema accepts there, or add an unknown key. */
function breakBody(valid: Record<string, unknown>, how: number, junk: unknown): string {
  const keys = Object.keys(valid);
  const b: Record<string, unknown> = { ...valid };
  switch (how % 4) {
    case 0:
      b[`unknown_${String(how)}`] = junk ?? 1; // strict objects refuse unknown keys
      return JSON.stringify(b);
    case 1:
      if (keys[0] !== undefined)
        b[keys[0]] = { nested: [junk] }; // an object where a scalar or list belongs
      else b[`unknown_${String(how)}`] = 1;
      return JSON.stringify(b);
    case 2:
      return JSON.stringify([valid]); // an array, not an object
    default:
      return JSON.stringify(valid).slice(0, -1); // cut JSON
  }
}

export async function fuzzHttp(target: FuzzTarget, options: { runs: number; seed: number }): Promise<FuzzOutcome> {
  const outcome: FuzzOutcome = { requests: 0, by_status: {}, invalid: { sent: 0, refused: 0 }, violations: [] };
  const send = async (route: Route, routeId: string, body: Broken | Free): Promise<void> => {
    const path = route.path(routeId);
    const before = target.head();
    let status = 0;
    let answer = '';
    try {
      const res = await fetch(`${target.url}${path}`, {
        method: route.method,
        ...(route.method === 'POST' && body.body !== undefined ? { headers: { 'content-type': 'application/json' }, body: body.body } : {}),
      });
      status = res.status;
      answer = await res.text();
    } catch (err) {
      // a URL fetch itself refuses (it never reached the server) is not a server outcome
      if (err instanceof TypeError && /URL|url/.test(err.message)) return;
      throw err;
    }
    outcome.requests += 1;
    outcome.by_status[String(status)] = (outcome.by_status[String(status)] ?? 0) + 1;
    const violation = (rule: string): void => {
      outcome.violations.push({ rule, method: route.method, path: path.slice(0, 200), status, body: (body.body ?? '').slice(0, 300) });
    };
    if (status >= 500) violation('no 5xx');
    if (!/^\{"/.test(answer) && status !== 204) violation('JSON object answer');
    if (status >= 400 && !/"error":\{"code":"KIOKU_/.test(answer)) violation('one error shape');
    if (body.kind === 'broken' && route.method === 'POST') {
      outcome.invalid.sent += 1;
      if (status >= 400 && status < 500) outcome.invalid.refused += 1;
      else violation('no 2xx for invalid input');
    }
    if ((status < 200 || status >= 300) && target.head() !== before) violation('the log moves only on success');
  };

  const request = fc.oneof(
    // arbitrary JSON to any route
    fc
      .record({ route: fc.constantFrom(...ROUTES), id, body: fc.option(fc.json({ maxDepth: 3 }), { nil: undefined }) })
      .map((x) => ({ ...x, body: { kind: 'free', body: x.body } as Free })),
    // valid shapes with random text
    fc
      .record({ route: fc.constantFrom(...POSTS), id, t: text })
      .map((x) => ({ route: x.route, id: x.id, body: { kind: 'free', body: JSON.stringify(x.route.valid?.(x.t, x.id) ?? {}) } as Free })),
    // valid shapes broken on purpose
    fc.record({ route: fc.constantFrom(...POSTS), id, t: text, how: fc.nat(), junk: fc.jsonValue({ maxDepth: 1 }) }).map((x) => ({
      route: x.route,
      id: x.id,
      body: { kind: 'broken', body: breakBody(x.route.valid?.(x.t, x.id) ?? {}, x.how, x.junk) } as Broken,
    })),
  );
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      await send(r.route, r.id, r.body);
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  return outcome;
}
