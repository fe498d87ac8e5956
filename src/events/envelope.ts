// The envelope every log record carries, and validation of a writer's event
// against the catalog before it may be appended.
import { z } from 'zod';
import { EventInvalidError, UnknownEventTypeError } from '../errors.js';
import { CURRENT_VERSION, UPCASTERS, eventSchemas, isEventType, type EventData, type EventDataInput, type EventType } from './catalog.js';

export const DEFAULT_NAMESPACE = 'private';
export const DEFAULT_ACTOR = 'system';

export const namespaceSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'namespace: 1–64 chars of a-z, 0-9, ".", "_", "-", starting with a letter or digit');
export const actorSchema = z.string().min(1).max(200);

/** The body whose exact msgpack bytes are hashed into the chain. */
export const envelopeSchema = z.strictObject({
  seq: z.number().int().positive(),
  ts: z.number().int().nonnegative(),
  type: z.string().min(1).max(100),
  v: z.number().int().positive(),
  ns: z.string(),
  actor: z.string(),
  data: z.unknown(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** An envelope whose type is catalogued, narrowed to its data shape. */
export type KnownEnvelope = {
  [T in EventType]: Omit<Envelope, 'type' | 'data'> & { type: T; data: EventData<T> };
}[EventType];

/** A record as readers see it: the envelope plus its chain hash (hex). */
export type LogRecord = Envelope & { hash: string; /** stored frame size in bytes */ bytes: number };

/** What a writer hands to `append`. */
export type AppendInput = {
  [T in EventType]: { type: T; data: EventDataInput<T>; ns?: string; actor?: string; v?: number };
}[EventType];

/** A validated event, ready to get a seq and a timestamp. */
export interface ValidatedEvent {
  type: EventType;
  v: number;
  ns: string;
  actor: string;
  data: unknown;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .slice(0, 5)
    .join('; ');
}

/** Validate a writer's event against the catalog. Throws; never returns a partial event. */
export function validateEvent(input: unknown): ValidatedEvent {
  if (typeof input !== 'object' || input === null) throw new EventInvalidError('event must be an object');
  const raw = input as Record<string, unknown>;
  const type = raw['type'];
  if (typeof type !== 'string') throw new EventInvalidError('event.type must be a string', { details: { field: 'type' } });
  if (!isEventType(type)) throw new UnknownEventTypeError(type);
  const current = CURRENT_VERSION[type];
  if (raw['v'] !== undefined && raw['v'] !== current) {
    throw new EventInvalidError(`event ${type} must be written at v${current}, got v${String(raw['v'])}`, {
      details: { type, field: 'v' },
    });
  }
  const ns = namespaceSchema.safeParse(raw['ns'] ?? DEFAULT_NAMESPACE);
  if (!ns.success) throw new EventInvalidError(`event ${type}: ns: ${describeIssues(ns.error)}`, { details: { type, field: 'ns' } });
  const actor = actorSchema.safeParse(raw['actor'] ?? DEFAULT_ACTOR);
  if (!actor.success) {
    throw new EventInvalidError(`event ${type}: actor: ${describeIssues(actor.error)}`, { details: { type, field: 'actor' } });
  }
  const parsed = eventSchemas[type].safeParse(raw['data']);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new EventInvalidError(`event ${type} is invalid: ${describeIssues(parsed.error)}`, {
      details: {
        type,
        field: first ? ['data', ...first.path].join('.') : 'data',
        issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    });
  }
  return { type, v: current, ns: ns.data, actor: actor.data, data: parsed.data };
}

/**
 * Bring an old-version event up to the current shape. Unknown types pass through
 * untouched: they are kept in the log and skipped by projections, never dropped.
 */
export function upcast<E extends Envelope>(event: E): E {
  if (!isEventType(event.type)) return event;
  const steps = UPCASTERS[event.type];
  let { v, data } = event;
  while (v < CURRENT_VERSION[event.type]) {
    const step = steps?.[v];
    if (!step) break;
    data = step(data);
    v += 1;
  }
  return v === event.v ? event : { ...event, v, data };
}

export function isKnown(event: Envelope): event is Envelope & KnownEnvelope {
  return isEventType(event.type);
}
