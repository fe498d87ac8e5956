// recall.performed v2: the candidates of a recall in columns. v1 wrote one object per candidate
// (key, layer, score, lanes by name, fingerprint, flags as words): 6–13 KB per recall, a third
// of a small library's log after 36 recalls (issue 31). v2 keeps the same facts — keys in fused
// order, fused and lane scores, flags, the judged candidates' fingerprints, why a judged one was
// held — with each lane named once, numbers as integers and the namespace prefix of keys written
// once. Item text never enters the event: a key and its fingerprint point at it in the log.
// verdict.recorded v2 (below) does the same for the judge's scores. Readers decode with
// recallCandidates / recordedVerdicts; v1 events reach them through the upcasters.
import { z } from 'zod';

/** Scores are kept to the millionth (v1 rounded them so too): an integer packs in 5 bytes, a float in 9. */
export const SCORE_SCALE = 1e6;

/** The flag bits of a candidate. */
export const RECALL_FLAG_BITS = { returned: 1, judged: 2, demoted: 4, meta: 8 } as const;
export type RecallFlag = keyof typeof RECALL_FLAG_BITS;
/** the flags in bit order, listed once (not an Object.keys per candidate: every recall written and read goes through here) */
const RECALL_FLAGS = Object.keys(RECALL_FLAG_BITS) as RecallFlag[];

const backendStatus = z.enum(['disabled', 'unavailable', 'empty', 'used', 'filtered', 'error', 'timeout', 'invalid_response']);
const int = z.number().int();

/** The v2 fields that replace v1's `candidates` and `backends`. */
export const compactRecallFields = {
  /** written before every key of `keys` that does not start with "ev1:" (the recall's own namespace) */
  key_prefix: z.string().max(600),
  /** evidence keys in fused order, each without `key_prefix` when it starts with it */
  keys: z.array(z.string().min(1).max(1_000)).max(500),
  /** fused score of each key, in millionths */
  scores: z.array(int).max(500),
  /** RECALL_FLAG_BITS of each key */
  flags: z.array(int.nonnegative().max(255)).max(500),
  /** per lane: [index in keys, rank in the lane (from 1), lane score in millionths] repeated */
  lanes: z.record(z.string().max(64), z.array(int)).optional(),
  /** fingerprint (32 bytes of sha256) of each judged key that has one, null otherwise; absent when none has */
  fingerprints: z
    .array(z.instanceof(Uint8Array).refine((b) => b.length === 32, 'a fingerprint is 32 bytes').nullable())
    .max(500)
    .optional(),
  /** why judged keys were not delivered: delivery hold reason → indexes in keys */
  held: z.record(z.string().max(64), z.array(int.nonnegative())).optional(),
  /** per channel: [status, attempted 0/1, used 0/1, items waiting for vectors] */
  backends: z.record(z.string(), z.tuple([backendStatus, int, int]).rest(int)).optional(),
};

const compactSchema = z.object(compactRecallFields);
export type CompactRecall = z.infer<typeof compactSchema>;
type BackendStatus = z.infer<typeof backendStatus>;

/** A candidate as readers see it, decoded from either version. */
export interface RecallCandidate {
  evidence_key: string;
  layer: string;
  score: number;
  flags: Record<RecallFlag, boolean>;
  fingerprint?: string;
  lanes: Record<string, { rank: number; score: number }>;
  held?: string;
}

export interface BackendRecord {
  attempted: boolean;
  used: boolean;
  status: BackendStatus;
  waiting_for_vectors?: number;
}

const scaled = (x: number): number => Math.round(x * SCORE_SCALE);
const unscaled = (n: number): number => n / SCORE_SCALE;
const layerOf = (key: string): string => /^ev1:[^:]*:([a-z]+):/.exec(key)?.[1] ?? '';

/** Encode candidates (fused order) and backends into the v2 columns. */
export function compactRecall(input: {
  prefix: string;
  candidates: readonly Omit<RecallCandidate, 'layer'>[];
  backends?: Readonly<Record<string, BackendRecord>>;
}): CompactRecall {
  const { prefix, candidates } = input;
  const lanes: Record<string, number[]> = {};
  const held: Record<string, number[]> = {};
  const fingerprints = candidates.map((c) => (c.flags.judged && c.fingerprint ? Buffer.from(c.fingerprint, 'hex') : null));
  candidates.forEach((c, i) => {
    for (const [lane, r] of Object.entries(c.lanes)) (lanes[lane] ??= []).push(i, r.rank, scaled(r.score));
    if (c.held) (held[c.held] ??= []).push(i);
  });
  return {
    key_prefix: prefix,
    keys: candidates.map((c) => (prefix && c.evidence_key.startsWith(prefix) ? c.evidence_key.slice(prefix.length) : c.evidence_key)),
    scores: candidates.map((c) => scaled(c.score)),
    flags: candidates.map((c) => RECALL_FLAGS.reduce((bits, f) => (c.flags[f] ? bits | RECALL_FLAG_BITS[f] : bits), 0)),
    ...(Object.keys(lanes).length ? { lanes } : {}),
    ...(fingerprints.some((f) => f !== null) ? { fingerprints } : {}),
    ...(Object.keys(held).length ? { held } : {}),
    ...(input.backends
      ? {
          backends: Object.fromEntries(
            Object.entries(input.backends).map(([name, b]) => [
              name,
              [b.status, b.attempted ? 1 : 0, b.used ? 1 : 0, ...(b.waiting_for_vectors !== undefined ? [b.waiting_for_vectors] : [])] as [BackendStatus, number, number, ...number[]],
            ]),
          ),
        }
      : {}),
  };
}

/** The candidates of a v2 recall.performed, in fused order. */
export function recallCandidates(data: Pick<CompactRecall, 'key_prefix' | 'keys' | 'scores' | 'flags' | 'lanes' | 'fingerprints' | 'held'>): RecallCandidate[] {
  const heldAt = new Map<number, string>();
  for (const [reason, indexes] of Object.entries(data.held ?? {})) for (const i of indexes) heldAt.set(i, reason);
  const out: RecallCandidate[] = data.keys.map((k, i) => {
    const key = k.startsWith('ev1:') ? k : data.key_prefix + k;
    const bits = data.flags[i] ?? 0;
    const fp = data.fingerprints?.[i];
    const fingerprint = fp ? Buffer.from(fp.buffer, fp.byteOffset, fp.byteLength).toString('hex') : undefined;
    const held = heldAt.get(i);
    return {
      evidence_key: key,
      layer: layerOf(key),
      score: unscaled(data.scores[i] ?? 0),
      flags: Object.fromEntries(RECALL_FLAGS.map((f) => [f, (bits & RECALL_FLAG_BITS[f]) !== 0])) as Record<RecallFlag, boolean>,
      ...(fingerprint ? { fingerprint } : {}),
      lanes: {},
      ...(held ? { held } : {}),
    };
  });
  for (const [lane, cells] of Object.entries(data.lanes ?? {}))
    for (let j = 0; j + 2 < cells.length; j += 3) {
      const c = out[cells[j] as number];
      if (c) c.lanes[lane] = { rank: cells[j + 1] as number, score: unscaled(cells[j + 2] as number) };
    }
  return out;
}

/** The backends of a v2 recall.performed in their v1 (and packet) form. */
export function recallBackends(data: Pick<CompactRecall, 'backends'>): Record<string, BackendRecord> {
  return Object.fromEntries(
    Object.entries(data.backends ?? {}).map(([name, [status, attempted, used, waiting]]) => [
      name,
      { attempted: attempted === 1, used: used === 1, status, ...(waiting !== undefined ? { waiting_for_vectors: waiting } : {}) },
    ]),
  );
}

interface RecallV1 {
  candidates: { evidence_key: string; score: number; lanes?: Record<string, { rank: number; score: number }>; fingerprint?: string; flags?: string[] }[];
  backends?: Record<string, BackendRecord>;
  [field: string]: unknown;
}

/**
 * v1 → v2. Nothing replay, the reports or usage read is lost: keys, fused scores (already to the
 * millionth), flags; lane ranks and scores; fingerprints of judged candidates (v1 also kept those
 * of candidates never judged, which nothing reads). Keys stay whole (no prefix: an upcaster sees
 * no namespace).
 */
export function upcastRecallV1(data: unknown): unknown {
  const { candidates, backends, ...rest } = data as RecallV1;
  return {
    ...rest,
    ...compactRecall({
      prefix: '',
      candidates: candidates.map((c) => ({
        evidence_key: c.evidence_key,
        score: c.score,
        lanes: c.lanes ?? {},
        ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
        flags: Object.fromEntries(RECALL_FLAGS.map((f) => [f, c.flags?.includes(f) ?? false])) as Record<RecallFlag, boolean>,
      })),
      ...(backends ? { backends } : {}),
    }),
  };
}

/**
 * verdict.recorded v2: the judged keys (namespace prefix written once) and the judge's score of
 * each, in two columns; v1 repeated `evidence_key` and `score` as words per candidate. Scores stay
 * as the judge gave them (a rounded 0.4999996 would cross the delivery floor in replay).
 */
export const compactVerdictFields = {
  key_prefix: z.string().max(600),
  keys: z.array(z.string().min(1).max(1_000)).max(500),
  /** null = unknown (the judge did not answer for this key), never negative */
  scores: z.array(z.number().min(0).max(1).nullable()).max(500),
};

export interface RecordedVerdict {
  evidence_key: string;
  score: number | null;
}

export function compactVerdicts(prefix: string, verdicts: readonly RecordedVerdict[]): { key_prefix: string; keys: string[]; scores: (number | null)[] } {
  return {
    key_prefix: prefix,
    keys: verdicts.map((v) => (prefix && v.evidence_key.startsWith(prefix) ? v.evidence_key.slice(prefix.length) : v.evidence_key)),
    scores: verdicts.map((v) => v.score),
  };
}

/** The verdicts of a v2 verdict.recorded, in recorded order. */
export function recordedVerdicts(data: { key_prefix: string; keys: readonly string[]; scores: readonly (number | null)[] }): RecordedVerdict[] {
  return data.keys.map((k, i) => ({ evidence_key: k.startsWith('ev1:') ? k : data.key_prefix + k, score: data.scores[i] ?? null }));
}

/** v1 → v2: the same verdicts in columns (keys whole: an upcaster sees no namespace). */
export function upcastVerdictV1(data: unknown): unknown {
  const { verdicts, ...rest } = data as { verdicts: RecordedVerdict[]; [field: string]: unknown };
  return { ...rest, ...compactVerdicts('', verdicts) };
}

/**
 * A recall or verdict event's data as a person reads it (the artifacts of a turn): candidates and
 * verdicts one object each, flags as words, fingerprints as hex. Other events pass unchanged.
 */
export function readableEventData(type: string, data: unknown): unknown {
  if (type === 'recall.performed') {
    const d = data as CompactRecall & Record<string, unknown>;
    const { key_prefix: _p, keys: _k, scores: _s, flags: _f, lanes: _l, fingerprints: _fp, held: _h, backends: _b, ...rest } = d;
    return {
      ...rest,
      candidates: recallCandidates(d).map((c) => ({ ...c, flags: (Object.keys(c.flags) as RecallFlag[]).filter((f) => c.flags[f]) })),
      ...(d.backends ? { backends: recallBackends(d) } : {}),
    };
  }
  if (type === 'verdict.recorded') {
    const d = data as { key_prefix: string; keys: string[]; scores: (number | null)[] } & Record<string, unknown>;
    const { key_prefix: _p, keys: _k, scores: _s, ...rest } = d;
    return { ...rest, verdicts: recordedVerdicts(d) };
  }
  return data;
}
