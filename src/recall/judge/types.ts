// The relevance judge: one interface, several implementations. A missing verdict is
// unknown (null), never negative.
import type { ConversationMessage } from '../conversation.js';

export type JudgeStatus = 'complete' | 'partial' | 'failed' | 'disabled';

export interface JudgeCandidate {
  key: string;
  title: string;
  /** excerpt shown to the judge (≤ 2,000 characters) */
  text: string;
  /** the item's stored vector from the current embedding model, when it has one */
  vector?: Float32Array | undefined;
  /** cosine to the query vector when the vector lane already measured it (saves reading the vector) */
  cosine?: number | undefined;
  /** the section's heading path (a document's sections share its title) */
  heading?: string | undefined;
  /** position in the fused ranking, 0 = best (default: the candidate's place in the request) */
  rank?: number | undefined;
  /** the utterance names a time range and this item happened in it */
  inTimeRange?: boolean | undefined;
}

export interface JudgeRequest {
  utterance: string;
  dialogue: readonly ConversationMessage[];
  candidates: readonly JudgeCandidate[];
  /** embedding of the utterance with its dialogue, when the model could read it */
  queryVector?: Float32Array | undefined;
  /** the time phrase the utterance names ("last week"), matched against dates, not text */
  timePhrase?: string | undefined;
  /** how telling a term is in this library (BM25 idf); absent = every term weighs 1 */
  termWeight?: ((term: string) => number) | undefined;
  /** absolute deadline (ms since epoch) shared by every call the judge makes */
  deadline: number;
}

export interface JudgeResult {
  judge: string;
  status: JudgeStatus;
  /** key → score in [0, 1], or null when unknown */
  verdicts: Map<string, number | null>;
  calls: number;
  tokens?: { prompt: number; completion: number };
  ms: number;
  error?: string;
}

export interface Judge {
  readonly id: string;
  judge(request: JudgeRequest): Promise<JudgeResult>;
}

/** Status from how many candidates got a verdict. */
export function statusOf(verdicts: Map<string, number | null>, total: number): JudgeStatus {
  const known = [...verdicts.values()].filter((v) => v !== null).length;
  return total === 0 || known === total ? 'complete' : known === 0 ? 'failed' : 'partial';
}
