// The LoCoMo development split's shape, shared by the front-door eval (run.ts) and the
// in-process ablations (internal.ts).

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; evidence?: string[]; category: number }[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → epoch ms (0 when it does not parse). */
export function sessionTime(s: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (!m) return 0;
  let h = Number(m[1]) % 12;
  if (m[3]?.toLowerCase() === 'pm') h += 12;
  return Date.UTC(Number(m[6]), MONTHS.indexOf((m[5] as string).toLowerCase()), Number(m[4]), h, Number(m[2]));
}

/** One namespace per conversation. */
export const namespaceOf = (s: Sample): string => s.sample_id.toLowerCase().replace(/[^a-z0-9._-]/g, '-');

/** Sums of per-question recall@5, recall@10 and reciprocal rank (within the top 10) over `n` questions. */
export interface Scores {
  n: number;
  r5: number;
  r10: number;
  mrr: number;
}
export const zero = (): Scores => ({ n: 0, r5: 0, r10: 0, mrr: 0 });

/** One question's recall@5, recall@10 (share of its gold turns found) and reciprocal rank of the first gold turn within 10. */
export function score(ranked: readonly string[], gold: readonly string[]): { r5: number; r10: number; mrr: number } {
  const g = new Set(gold);
  const hit = (k: number): number => ranked.slice(0, k).filter((x) => g.has(x)).length / g.size;
  const first = ranked.findIndex((x) => g.has(x));
  return { r5: hit(5), r10: hit(10), mrr: first >= 0 && first < 10 ? 1 / (first + 1) : 0 };
}
