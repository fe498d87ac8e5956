// The local default judge: no network, no generation model. A logistic calibration of
// eight signals a reader would use to say "this answers it":
//   cos   the embedder's cosine between the utterance (with its dialogue) and the item;
//   wcov  the share of the utterance the item holds: Latin words weighted by how telling
//         they are in the namespace searched (BM25 idf from the keyword index), CJK text
//         counted by character (coverage.ts: the bigrams that straddle two words no longer
//         outweigh the words);
//   dcov  the same for the terms the user's recent messages add (a follow-up's subject);
//   gap   the item's cosine minus the best cosine among the candidates (≤ 0): the best
//         semantic match stands out, the rest are pulled down;
//   lgap  the item's wcov minus the best wcov among the candidates (≤ 0): the same for
//         words, and the only such contrast when the embedder reads neither side (CJK);
//   tcov  the same share in the item's title and section heading path;
//   rank  1 / (1 + fused rank): what retrieval thought, all a judge without a vector has
//         besides the words (on the Chinese Vue docs the answer was ranked first for 36 of 44);
//   time  the utterance names a time range ("last week") and the item happened in it —
//         the phrase's own words are left out of the coverages.
// Coefficients are fitted on the offline development cases and, lightly weighted, the
// real-documentation dev questions (`npm run eval:fit-judge`, figures in calibration.json);
// without a vector the cosine-free model applies.
import { queryTokens, tokenize } from '../../text/index.js';
import calibration from './calibration.json' with { type: 'json' };
import { utteranceTerms } from '../terms.js';
import { coverageUnits, unitCoverage } from './coverage.js';
import { type Judge, type JudgeRequest, type JudgeResult } from './types.js';

/** The signals, by name; `cos` is absent when the candidate has no vector from the current model. */
export const VECTOR_FEATURES = ['cos', 'wcov', 'dcov', 'gap', 'tcov', 'time', 'rank', 'lgap'] as const;
export const PLAIN_FEATURES = ['wcov', 'dcov', 'tcov', 'time', 'rank', 'lgap'] as const;
export type FeatureName = (typeof VECTOR_FEATURES)[number];

/** sigmoid(bias + Σ coefficient × signal); a signal without a coefficient weighs 0. */
export interface LocalJudgeCalibration {
  /** with a cosine */
  withVector: Partial<Record<FeatureName, number>> & { bias: number };
  /** without one (mainly-CJK text, item still waiting for its vector) */
  withoutVector: Partial<Record<Exclude<FeatureName, 'cos' | 'gap'>, number>> & { bias: number };
}

/**
 * Fitted by maximum likelihood (`npm run eval:fit-judge -- --write`) on the candidates the
 * judge saw in the offline dev cases, labelled by the cases' allowed ids; quiet and
 * unanswerable cases supply the negatives LoCoMo (always answerable) cannot. Raw prior, so
 * 0.5 means "more likely allowed than not". The weights, the fit that produced them, its date
 * and its figures live in calibration.json (one data file, never edited by hand: a test refits).
 */
export const DEFAULT_LOCAL_CALIBRATION: LocalJudgeCalibration = {
  withVector: calibration.withVector,
  withoutVector: calibration.withoutVector,
};

export interface JudgeFeatures {
  cos?: number;
  wcov: number;
  dcov: number;
  gap: number;
  tcov: number;
  /** 1 when the utterance names a time range and the candidate happened in it */
  time: number;
  /** 1 / (1 + fused rank): the retrieval's own opinion, which a judge without a vector needs most */
  rank: number;
  /** the item's coverage minus the best coverage among the candidates (≤ 0): the lexical twin of gap */
  lgap: number;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** The judge's signals for every candidate of one request (exported so the calibration is fitted on exactly these). */
export function judgeFeatures(request: JudgeRequest): Map<string, JudgeFeatures> {
  // each term's weight once per request, not once per candidate
  const weights = new Map<string, number>();
  const weight = (t: string): number => {
    let w = weights.get(t);
    if (w === undefined) weights.set(t, (w = request.termWeight?.(t) ?? 1));
    return w;
  };
  const utterance = utteranceTerms(request.utterance, request.timePhrase);
  // what the user's last messages add: the subject a follow-up ("and the old ones?") leaves out
  const added = new Set(
    request.dialogue
      .slice(-2)
      .filter((m) => m.role === 'user')
      .flatMap((m) => queryTokens(m.content))
      .filter((t) => !utterance.has(t)),
  );
  const cosines = new Map<string, number>();
  for (const c of request.candidates) {
    const cos =
      c.cosine ?? (request.queryVector && c.vector && c.vector.length === request.queryVector.length ? cosine(request.queryVector, c.vector) : undefined);
    if (cos !== undefined) cosines.set(c.key, cos);
  }
  const best = cosines.size ? Math.max(...cosines.values()) : 0;
  const units = coverageUnits(request.utterance, weight, (t) => utterance.has(t));
  const addedUnits = coverageUnits(
    request.dialogue
      .slice(-2)
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n'),
    weight,
    (t) => added.has(t),
  );
  const out = new Map<string, JudgeFeatures>();
  const haves = request.candidates.map((c) => new Set(tokenize(`${c.title}\n${c.text}`)));
  const coverages = haves.map((have) => unitCoverage(units, have));
  const bestCoverage = coverages.length ? Math.max(...coverages) : 0;
  request.candidates.forEach((c, i) => {
    const have = haves[i] as Set<string>;
    const cos = cosines.get(c.key);
    out.set(c.key, {
      ...(cos !== undefined ? { cos } : {}),
      wcov: coverages[i] as number,
      lgap: (coverages[i] as number) - bestCoverage,
      dcov: unitCoverage(addedUnits, have),
      gap: cos !== undefined ? cos - best : 0,
      tcov: unitCoverage(units, new Set(tokenize(`${c.title}\n${c.heading ?? ''}`))),
      time: c.inTimeRange ? 1 : 0,
      rank: 1 / (1 + (c.rank ?? i)),
    });
  });
  return out;
}

/** The calibrated score of one candidate's signals. */
export function localVerdict(f: JudgeFeatures, calibration: LocalJudgeCalibration = DEFAULT_LOCAL_CALIBRATION): number {
  const [k, names]: [Partial<Record<FeatureName, number>> & { bias: number }, readonly FeatureName[]] =
    f.cos !== undefined ? [calibration.withVector, VECTOR_FEATURES] : [calibration.withoutVector, PLAIN_FEATURES];
  let x = k.bias;
  for (const name of names) x += (k[name] ?? 0) * (f[name] ?? 0);
  return sigmoid(x);
}

export class LocalJudge implements Judge {
  readonly id = 'local-calibrated';

  constructor(private readonly calibration: LocalJudgeCalibration = DEFAULT_LOCAL_CALIBRATION) {}

  async judge(request: JudgeRequest): Promise<JudgeResult> {
    const started = performance.now();
    const verdicts = new Map<string, number | null>();
    for (const [key, f] of judgeFeatures(request)) verdicts.set(key, round(localVerdict(f, this.calibration)));
    return { judge: this.id, status: 'complete', verdicts, calls: 0, ms: performance.now() - started };
  }
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;
