// The one identity of every recallable item, and the one body fingerprint.
// Used for fusion, usage counting, demotion, delivery dedup and eval labels.
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const LAYERS = ['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'] as const;
export type Layer = (typeof LAYERS)[number];
/** Small integer per layer, for group ids (namespace × layer) that gate index searches. */
export const LAYER_SLOTS = 8;
export const LAYER_INDEX = Object.fromEntries(LAYERS.map((l, i) => [l, i])) as Record<Layer, number>;

/** Reusable knowledge vs what happened (history needs a higher verdict to be delivered). */
export const KNOWLEDGE_LAYERS: ReadonlySet<Layer> = new Set(['card', 'wiki', 'memory', 'asset']);

/** Ids: any non-empty text without whitespace, ':' or '#', which the key syntax reserves. */
export const itemIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s:#]+$/, 'an id may not contain whitespace, ":" or "#"');

export interface EvidenceRef {
  ns: string;
  layer: Layer;
  id: string;
  section?: string | undefined;
}

/** `ev1:<ns>:<layer>:<id>[#section]` — explicit ids only; titles never take part. */
export function evidenceKey(ref: EvidenceRef): string {
  return `ev1:${ref.ns}:${ref.layer}:${ref.id}${ref.section !== undefined ? `#${ref.section}` : ''}`;
}

export function parseEvidenceKey(key: string): EvidenceRef | undefined {
  const m = /^ev1:([^:\s]+):([a-z]+):([^\s#]+)(?:#(\S+))?$/.exec(key);
  if (!m || !(LAYERS as readonly string[]).includes(m[2] as string)) return undefined;
  return { ns: m[1] as string, layer: m[2] as Layer, id: m[3] as string, ...(m[4] !== undefined ? { section: m[4] } : {}) };
}

/** The document part of a key (without #section). */
export function documentKey(key: string): string {
  const hash = key.indexOf('#');
  return hash < 0 ? key : key.slice(0, hash);
}

/** Whitespace-collapsed, NFKC, lower-cased body: edits that only reflow text keep their fingerprint. */
export function normaliseBody(body: string): string {
  return body.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** sha256 (hex) of the normalised body. */
export function fingerprint(body: string): string {
  return createHash('sha256').update(normaliseBody(body)).digest('hex');
}

/** sha256 (hex) of exact bytes: import idempotence (any change to a file counts). */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
