// The one identity of every recallable item, and the one body fingerprint.
// Used for fusion, usage counting, demotion, delivery dedup and eval labels.
import { createHash, hash as oneShotHash } from 'node:crypto';
import { z } from 'zod';
import { lowerNfkc } from '../text/script.js';
import { hasLoneSurrogate } from '../text/well-formed.js';
import { LAYERS, type Layer } from '../events/vocabulary.js';

// the list itself lives once in src/events/vocabulary.ts (the event catalog below knowledge needs it)
export { LAYERS, type Layer } from '../events/vocabulary.js';

/** Small integer per layer, for group ids (namespace × layer) that gate index searches. */
export const LAYER_SLOTS = 8;
export const LAYER_INDEX = Object.fromEntries(LAYERS.map((l, i) => [l, i])) as Record<Layer, number>;

/** Reusable knowledge vs what happened (history needs a higher verdict to be delivered). */
export const KNOWLEDGE_LAYERS: ReadonlySet<Layer> = new Set(['card', 'wiki', 'memory', 'asset']);

/** The longest id any write accepts; every lookup, forget and supersede takes it too. */
export const MAX_ID_LENGTH = 512;

/**
 * Ids: the ids users already have — `D1:3`, `notes/2024-05-01.md#setup`, a URL, a title with
 * spaces. Refused only when they cannot be stored faithfully: empty, all blank, longer than
 * MAX_ID_LENGTH, or holding control characters or lone surrogates.
 */
export const itemIdSchema = z
  .string()
  .min(1, 'an id must not be empty')
  .max(MAX_ID_LENGTH, `an id may have at most ${MAX_ID_LENGTH} characters`)
  .refine((id) => id.trim().length > 0, 'an id must not be blank')
  // eslint-disable-next-line no-control-regex
  .refine((id) => !/[\u0000-\u001f\u007f]/.test(id), 'an id may not contain control characters')
  .refine((id) => !hasLoneSurrogate(id), 'an id may not contain lone surrogates (a string cut inside a character)');

/**
 * A short note a person writes (a notice's text, a sign-off note, a forget or purge reason). NUL
 * (a note of NUL alone passed the non-empty check, issue 33) is refused by the one text rule that
 * parseInput applies to every input (src/text/well-formed.ts).
 */
export const noteText = (max: number) => z.string().max(max);

/** Characters the key syntax reserves in an id: the section mark, the separator, whitespace. */
const RESERVED_IN_KEY = /[\s:#]/u;

/**
 * An id as it appears in an evidence key. Ids without reserved characters appear verbatim,
 * exactly as every earlier version wrote them, so old logs rebuild to the same keys. Any other
 * id appears as ":" + its percent-encoding (`%`, `:`, `#` and whitespace encoded): a form no
 * verbatim id can take, since verbatim ids never contain ":". Unambiguous both ways.
 */
export function keyIdPart(id: string): string {
  if (!RESERVED_IN_KEY.test(id)) return id;
  return `:${id.replace(/[%:#\s]/gu, (c) => `%${c.codePointAt(0)!.toString(16).toUpperCase().padStart(2, '0')}`)}`;
}

/** The inverse of keyIdPart. */
export function idFromKeyPart(part: string): string | undefined {
  if (!part.startsWith(':')) return part;
  try {
    return decodeURIComponent(part.slice(1));
  } catch {
    return undefined;
  }
}

export interface EvidenceRef {
  ns: string;
  layer: Layer;
  id: string;
  section?: string | undefined;
}

/** `ev1:<ns>:<layer>:<id>[#section]` — explicit ids only; titles never take part. */
export function evidenceKey(ref: EvidenceRef): string {
  return `ev1:${ref.ns}:${ref.layer}:${keyIdPart(ref.id)}${ref.section !== undefined ? `#${ref.section}` : ''}`;
}

export function parseEvidenceKey(key: string): EvidenceRef | undefined {
  const m = /^ev1:([^:\s]+):([a-z]+):(:?[^\s#:]+)(?:#(\S+))?$/.exec(key);
  if (!m || !(LAYERS as readonly string[]).includes(m[2] as string)) return undefined;
  const id = idFromKeyPart(m[3] as string);
  if (id === undefined || keyIdPart(id) !== m[3]) return undefined;
  return { ns: m[1] as string, layer: m[2] as Layer, id, ...(m[4] !== undefined ? { section: m[4] } : {}) };
}

/** The document part of a key (without #section). */
export function documentKey(key: string): string {
  const hash = key.indexOf('#');
  return hash < 0 ? key : key.slice(0, hash);
}

/** Whitespace-collapsed, NFKC, lower-cased body: edits that only reflow text keep their fingerprint. */
export function normaliseBody(body: string): string {
  const lower = lowerNfkc(body);
  // most bodies are single-spaced already: the replace (a new string every time) only when it changes something
  return (SPACING_TO_COLLAPSE.test(lower) ? lower.replace(/\s+/g, ' ') : lower).trim();
}

/** two whitespace characters in a row, or one that is not a plain space */
const SPACING_TO_COLLAPSE = /\s\s|[^\S ]/;

/** sha256 (hex) of the normalised body. */
export function fingerprint(body: string): string {
  return oneShotHash('sha256', normaliseBody(body), 'hex');
}

/** sha256 (hex) of exact bytes: import idempotence (any change to a file counts). */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
