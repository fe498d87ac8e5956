// The local default judge: no network, no generation model. A logistic calibration of
// six signals a reader would use to say "this answers it":
//   cos   the embedder's cosine between the utterance (with its dialogue) and the item;
//   wcov  the share of the utterance's terms the item holds, each term weighted by how
//         telling it is in the namespace searched (BM25 idf from the keyword index);
//   dcov  the same for the terms the user's recent messages add (a follow-up's subject);
//   gap   the item's cosine minus the best cosine among the candidates (≤ 0): the best
//         semantic match stands out, the rest are pulled down;
//   tcov  the weighted share of utterance terms in the item's title;
//   time  the utterance names a time range ("last week") and the item happened in it —
//         the phrase's own words are left out of the coverages.
// Coefficients are fitted on the offline development cases (`npm run eval:fit-judge`,
// figures in evals/README.md); without a vector the cosine-free model applies.
import { tokenize } from '../../text/index.js';
import calibration from './calibration.json' with { type: 'json' };
import { utteranceTerms } from '../terms.js';
import { type Judge, type JudgeRequest, type JudgeResult } from './types.js';

/** The signals, by name; `cos` is absent when the candidate has no vector from the current model. */
export const VECTOR_FEATURES = ['cos', 'wcov', 'dcov', 'gap', 'tcov', 'time'] as const;
export const PLAIN_FEATURES = ['wcov', 'dcov', 'tcov', 'time'] as const;
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

function coverageOf(terms: ReadonlySet<string>, have: ReadonlySet<string>, weight: (term: string) => number): number {
  let all = 0;
  let hit = 0;
  for (const t of terms) {
    const w = weight(t);
    all += w;
    if (have.has(t)) hit += w;
  }
  return all > 0 ? hit / all : 0;
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
      .flatMap((m) => tokenize(m.content))
      .filter((t) => !utterance.has(t)),
  );
  const cosines = new Map<string, number>();
  for (const c of request.candidates) {
    const cos =
      c.cosine ?? (request.queryVector && c.vector && c.vector.length === request.queryVector.length ? cosine(request.queryVector, c.vector) : undefined);
    if (cos !== undefined) cosines.set(c.key, cos);
  }
  const best = cosines.size ? Math.max(...cosines.values()) : 0;
  const out = new Map<string, JudgeFeatures>();
  for (const c of request.candidates) {
    const have = new Set(tokenize(`${c.title}\n${c.text}`));
    const cos = cosines.get(c.key);
    out.set(c.key, {
      ...(cos !== undefined ? { cos } : {}),
      wcov: coverageOf(utterance, have, weight),
      dcov: coverageOf(added, have, weight),
      gap: cos !== undefined ? cos - best : 0,
      tcov: coverageOf(utterance, new Set(tokenize(c.title)), weight),
      time: c.inTimeRange ? 1 : 0,
    });
  }
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
