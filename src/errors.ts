// One registry of every error Kioku raises on purpose. Codes are stable API:
// clients, the HTTP layer and the CLI branch on them. `docs/errors.md` documents
// each one; tests/errors-documented.test.ts keeps the two in step both ways.
import { findSecrets } from './privacy/detect.js';

export const ERROR_REGISTRY = {
  KIOKU_EVENT_INVALID: { status: 400, summary: 'An event failed validation against the event catalog.' },
  KIOKU_EVENT_UNKNOWN_TYPE: { status: 400, summary: 'A writer tried to append an event type the catalog does not know.' },
  KIOKU_LOG_CONFLICT: { status: 409, summary: 'The expected head given to append() no longer matches the log head.' },
  KIOKU_LOG_CLOSED: { status: 503, summary: 'The log was used after close() or before open().' },
  KIOKU_LOG_WRITE_FAILED: { status: 500, summary: 'The store (LevelDB or PostgreSQL) refused a batch; nothing in that batch was acknowledged.' },
  KIOKU_CHAIN_DAMAGED: { status: 500, summary: 'The hash chain failed verification; the log cannot be trusted as is.' },
  KIOKU_LOG_TRUNCATED: {
    status: 500,
    summary: 'The log ends before the head Kioku acknowledged (LevelDB lost acknowledged records): Kioku refuses to write there.',
  },
  KIOKU_STORAGE_FULL: { status: 507, summary: 'The disk holding the store is full: writes are refused, reads still answer.' },
  KIOKU_STORE_UNREADABLE: { status: 500, summary: 'The LevelDB files could not be opened or read (corruption or I/O error).' },
  KIOKU_STORE_MISSING: { status: 404, summary: 'There is no Kioku store in the data directory (and the command does not create one).' },
  KIOKU_STORE_LOCKED: { status: 503, summary: 'Another process holds the LevelDB lock on this data directory.' },
  KIOKU_SERVICE_UNAVAILABLE: { status: 503, summary: 'No Kioku service answers for this library (it did not start, or the remote one is unreachable).' },
  KIOKU_SERVICE_NOT_RUNNING: {
    status: 503,
    summary: 'No Kioku service runs for this library and this client does not start one (the user stopped it, or auto-start is off).',
  },
  KIOKU_STORE_UNAVAILABLE: {
    status: 503,
    summary: 'The shared event store (PostgreSQL) cannot be reached: writes are refused, reads answer from this node (stale).',
  },
  KIOKU_RECORD_NOT_FOUND: { status: 404, summary: 'No log record with the requested sequence number.' },
  KIOKU_ANCHOR_KEY_INVALID: { status: 500, summary: 'The anchor signing key file exists but cannot be used.' },
  KIOKU_ANCHOR_FILE_INVALID: { status: 500, summary: 'The anchors file is not valid JSON lines of signed checkpoints.' },
  KIOKU_PROJECTION_UNKNOWN: { status: 400, summary: 'A projection name was given that is not registered.' },
  KIOKU_PROJECTION_FAILED: { status: 500, summary: 'A projection threw while applying an event; it stops at the last good position.' },
  KIOKU_INPUT_INVALID: { status: 400, summary: 'A command (memory write, card upsert, asset registration, …) failed validation.' },
  KIOKU_NOT_FOUND: { status: 404, summary: 'The item, memory or document named does not exist in that namespace.' },
  KIOKU_ID_CONFLICT: { status: 409, summary: 'An id is already used by an item with different content.' },
  KIOKU_RETIRED: { status: 409, summary: 'The memory was forgotten or superseded and cannot be changed that way.' },
  KIOKU_AUDIENCE_REFUSED: {
    status: 403,
    summary: "An audience the writer may not give: without an org only you; in an org only the org or spaces of the writer's own subtree.",
  },
  KIOKU_SINGLE_USER: { status: 409, summary: 'The library has no org (single-user Kioku): a notify names members that cannot exist; nothing was written.' },
  KIOKU_EMBEDDER_FAILED: { status: 502, summary: 'The embedding model or provider failed or timed out.' },
  KIOKU_EMBEDDER_UNAVAILABLE: { status: 503, summary: 'The configured embedder cannot be loaded (missing package, bad configuration).' },
  KIOKU_LLM_FAILED: { status: 502, summary: 'The answering model (kioku ask) failed, timed out or gave no answer text.' },
  KIOKU_FORBIDDEN: { status: 403, summary: 'The credentials do not allow this namespace or operation.' },
  KIOKU_ASSET_PATH_REFUSED: {
    status: 403,
    summary: "An asset path is outside the namespace's asset roots, or names the data dir, a key, the auth file or a system file: not read.",
  },
  KIOKU_UNAUTHORIZED: { status: 401, summary: 'A token is required (or the one given is unknown, or was not sent in the Authorization header).' },
  KIOKU_RATE_LIMITED: { status: 429, summary: 'Too many requests for this token; retry after the time given.' },
  KIOKU_BODY_TOO_LARGE: { status: 413, summary: 'The request body exceeds the server limit.' },
  KIOKU_URI_TOO_LONG: { status: 414, summary: 'A path segment (an id or evidence key in the URL) is longer than the server accepts.' },
  KIOKU_SHUTTING_DOWN: { status: 503, summary: 'The server is stopping; retry against the next instance or after it restarts.' },
  KIOKU_NOT_READY: { status: 503, summary: 'The server is still opening the store and catching its projections up.' },
  KIOKU_AUTH_FILE_INVALID: { status: 500, summary: 'The auth file cannot be used; the server refuses to start.' },
  KIOKU_BIND_REFUSED: { status: 500, summary: 'A non-loopback address was asked for without KIOKU_ALLOW_NON_LOOPBACK=1 and tokens.' },
  KIOKU_INTERNAL: { status: 500, summary: 'An unexpected failure inside Kioku; the server log has the details.' },
  KIOKU_USAGE: { status: 400, summary: 'A command-line invocation was malformed (bad flag or argument).' },
  KIOKU_CURSOR_INVALID: { status: 400, summary: 'A listing cursor is not one this listing gave out, or was given with other filters.' },
  KIOKU_BACKUP_INVALID: { status: 400, summary: 'A backup directory is incomplete or damaged, or a restore target is not empty.' },
  KIOKU_SECRET_REMOTE: { status: 403, summary: 'A redacted secret is revealed only to a caller on the machine that holds the vault (loopback, no proxy).' },
  KIOKU_SEAL_KEY_PURGED: {
    status: 409,
    summary: 'A write was sealed with the data key of an item or session purged meanwhile (PostgreSQL, another node): nothing was written; write again.',
  },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export interface KiokuErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class KiokuError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: KiokuErrorOptions = {}) {
    super(unechoed(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KiokuError';
    this.code = code;
    this.status = ERROR_REGISTRY[code].status;
    this.details = options.details && unechoedDetails(options.details);
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * A refusal never echoes a credential it was handed (issue 33): a refused id, name or key holding
 * one (`ev1:acme:memory:ghp_…`, a member named like a token) names it by its kind only, in the
 * message and in every string of details. Texts without one come back as they are.
 */
function unechoed(text: string): string {
  const found = findSecrets(text);
  let out = text;
  for (const f of found.reverse()) out = `${out.slice(0, f.start)}⟦secret:${f.kind}⟧${out.slice(f.end)}`;
  return out;
}

function unechoedDetails(details: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(details)) {
    const next = typeof v === 'string' ? unechoed(v) : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? unechoed(x) : x)) : v;
    if (typeof v === 'string' ? next !== v : Array.isArray(v) && (next as unknown[]).some((x, i) => x !== v[i])) (copy ??= { ...details })[k] = next;
  }
  return copy ?? details;
}

export class EventInvalidError extends KiokuError {
  constructor(message: string, options: KiokuErrorOptions = {}) {
    super('KIOKU_EVENT_INVALID', message, options);
    this.name = 'EventInvalidError';
  }
}

export class UnknownEventTypeError extends KiokuError {
  constructor(type: string) {
    super('KIOKU_EVENT_UNKNOWN_TYPE', `unknown event type "${type}": writers may only append catalogued types`, {
      details: { type },
    });
    this.name = 'UnknownEventTypeError';
  }
}

export class LogConflictError extends KiokuError {
  constructor(expected: { seq?: number; hash?: string }, actual: { seq: number; hash: string }) {
    super(
      'KIOKU_LOG_CONFLICT',
      `log head moved: expected ${expected.seq !== undefined ? `seq ${expected.seq}` : `hash ${expected.hash}`}, head is seq ${actual.seq}`,
      { details: { expected, actual } },
    );
    this.name = 'LogConflictError';
  }
}

export function isKiokuError(err: unknown, code?: ErrorCode): err is KiokuError {
  return err instanceof KiokuError && (code === undefined || err.code === code);
}
