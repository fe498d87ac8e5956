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

/** Turn ids as LoCoMo writes them in its turns ("D1:3"); evidence ids as written ("D8:6; D9:17", "D:11:26", "D30:05") normalised to them. */
export const canonical = (id: string): string | undefined => {
  const m = /^D:?(\d+):0*(\d+)$/.exec(id.trim());
  return m ? `D${m[1]}:${m[2]}` : undefined;
};

/** A question's gold turn ids; `onMalformed` hears of each evidence id that names no turn. */
export function goldIds(evidence: string[] | undefined, onMalformed: () => void = () => {}): string[] {
  const out: string[] = [];
  for (const r of evidence ?? [])
    for (const part of r.split(/[;,]\s*/)) {
      const id = canonical(part);
      if (id) out.push(id);
      else onMalformed();
    }
  return out;
}

/** Every turn id of a conversation, canonical. */
export function turnIdsOf(s: Sample): Set<string> {
  const ids = new Set<string>();
  for (let n = 1; s.conversation[`session_${n}`]; n++) for (const t of s.conversation[`session_${n}`] as Turn[]) ids.add(canonical(t.dia_id) ?? t.dia_id);
  return ids;
}

export interface Question {
  ns: string;
  question: string;
  category: number;
  gold: string[];
}

/** The questions with at least one gold turn the conversation holds. */
export function questionsOf(samples: readonly Sample[], onMalformed?: () => void): Question[] {
  return samples.flatMap((s) => {
    const known = turnIdsOf(s);
    return s.qa
      .map((q) => ({ ns: namespaceOf(s), question: q.question, category: q.category, gold: goldIds(q.evidence, onMalformed).filter((g) => known.has(g)) }))
      .filter((q) => q.gold.length > 0);
  });
}
