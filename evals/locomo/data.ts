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
