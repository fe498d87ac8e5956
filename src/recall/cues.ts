// Cue parsers shared by recall's cue lanes and recall_timeline: a date, month or
// relative time in the query (English or Chinese) → a time range; names in the query
// that match known entities or speakers.

export interface TimeRange {
  from: Date;
  /** exclusive */
  to: Date;
  /** the words that named it */
  phrase: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

const utc = (y: number, m: number, d = 1): Date => new Date(Date.UTC(y, m, d));
const monthIndex = (name: string): number => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3).toLowerCase()));
const day = (d: Date, offset = 0): Date => utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offset);
const startOfWeek = (d: Date): Date => day(d, -((d.getUTCDay() + 6) % 7)); // Monday

/** The first time expression in the text, as a [from, to) range in UTC; undefined when there is none. */
export function parseTimeRange(text: string, now: Date = new Date()): TimeRange | undefined {
  const t = text.normalize('NFKC');
  const lower = t.toLowerCase();
  let m: RegExpExecArray | null;

  if ((m = /(\d{4})-(\d{2})-(\d{2})/.exec(t))) {
    const d = utc(+m[1]!, +m[2]! - 1, +m[3]!);
    return { from: d, to: day(d, 1), phrase: m[0] };
  }
  if ((m = /(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/.exec(t))) {
    const d = utc(+m[1]!, +m[2]! - 1, +m[3]!);
    return { from: d, to: day(d, 1), phrase: m[0] };
  }
  if ((m = /(\d{4})\s*年\s*(\d{1,2})\s*月/.exec(t))) return { from: utc(+m[1]!, +m[2]! - 1), to: utc(+m[1]!, +m[2]!), phrase: m[0] };
  if ((m = /(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/.exec(t))) {
    const d = utc(now.getUTCFullYear(), +m[1]! - 1, +m[2]!);
    return { from: d, to: day(d, 1), phrase: m[0] };
  }
  if ((m = /(\d{4})\s*年/.exec(t))) return { from: utc(+m[1]!, 0), to: utc(+m[1]! + 1, 0), phrase: m[0] };
  if ((m = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH_RE},?\\s+(\\d{4})\\b`).exec(lower))) {
    const d = utc(+m[3]!, monthIndex(m[2]!), +m[1]!);
    return { from: d, to: day(d, 1), phrase: m[0] };
  }
  if ((m = new RegExp(`\\b${MONTH_RE}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`).exec(lower))) {
    const d = utc(+m[3]!, monthIndex(m[1]!), +m[2]!);
    return { from: d, to: day(d, 1), phrase: m[0] };
  }
  if ((m = new RegExp(`\\b${MONTH_RE},?\\s+(\\d{4})\\b`).exec(lower))) {
    const mi = monthIndex(m[1]!);
    return { from: utc(+m[2]!, mi), to: utc(+m[2]!, mi + 1), phrase: m[0] };
  }
  if ((m = /\b(?:in|during|since|of)\s+(\d{4})\b/.exec(lower))) return { from: utc(+m[1]!, 0), to: utc(+m[1]! + 1, 0), phrase: m[0] };

  const today = day(now);
  const rel: [RegExp, () => [Date, Date]][] = [
    [/\byesterday\b|昨天|昨日/, () => [day(today, -1), today]],
    [/\btoday\b|今天|今日/, () => [today, day(today, 1)]],
    [/前天/, () => [day(today, -2), day(today, -1)]],
    [/\blast week\b|上周|上个星期|上星期/, () => [day(startOfWeek(today), -7), startOfWeek(today)]],
    [/\bthis week\b|本周|这周|这个星期/, () => [startOfWeek(today), day(startOfWeek(today), 7)]],
    [/\blast month\b|上个月|上月/, () => [utc(today.getUTCFullYear(), today.getUTCMonth() - 1), utc(today.getUTCFullYear(), today.getUTCMonth())]],
    [/\bthis month\b|这个月|本月/, () => [utc(today.getUTCFullYear(), today.getUTCMonth()), utc(today.getUTCFullYear(), today.getUTCMonth() + 1)]],
    [/\blast year\b|去年/, () => [utc(today.getUTCFullYear() - 1, 0), utc(today.getUTCFullYear(), 0)]],
    [/\bthis year\b|今年/, () => [utc(today.getUTCFullYear(), 0), utc(today.getUTCFullYear() + 1, 0)]],
  ];
  for (const [re, range] of rel) {
    const hit = re.exec(lower);
    if (hit) {
      const [from, to] = range();
      return { from, to, phrase: hit[0] };
    }
  }
  if ((m = /\b(\d+|a|one|two|three|four|five|six)\s+(day|week|month)s?\s+ago\b/.exec(lower))) {
    const n = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 }[m[1] as 'a'] ?? Number(m[1]);
    const unit = m[2];
    const from =
      unit === 'day'
        ? day(today, -n)
        : unit === 'week'
          ? day(today, -7 * n - 3)
          : utc(today.getUTCFullYear(), today.getUTCMonth() - n, today.getUTCDate() - 15);
    const to =
      unit === 'day'
        ? day(today, -n + 1)
        : unit === 'week'
          ? day(today, -7 * n + 4)
          : utc(today.getUTCFullYear(), today.getUTCMonth() - n, today.getUTCDate() + 15);
    return { from, to, phrase: m[0] };
  }
  // a month name alone ("in May"): the latest such month not after now
  if ((m = new RegExp(`\\b(?:in|during|since|last)\\s+${MONTH_RE}\\b`).exec(lower))) {
    const mi = monthIndex(m[1]!);
    const year = mi <= now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
    return { from: utc(year, mi), to: utc(year, mi + 1), phrase: m[0] };
  }
  return undefined;
}

export function inRange(iso: string, range: TimeRange): boolean {
  const t = Date.parse(iso);
  return t >= range.from.getTime() && t < range.to.getTime();
}

/** Candidate names in the query: capitalised words and pairs, CJK runs. Matching against known entities happens in the pipeline. */
export function nameCandidates(text: string): string[] {
  const out = new Set<string>();
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? [];
  for (let i = 0; i < words.length; i++) {
    const w = (words[i] as string).replace(/['’]s$/u, '');
    if (/^\p{Lu}/u.test(w)) out.add(w.toLowerCase());
    const next = words[i + 1];
    if (next && /^\p{Lu}/u.test(w)) out.add(`${w} ${next}`.toLowerCase());
  }
  for (const run of text.match(/\p{Script=Han}{2,6}/gu) ?? [])
    for (let n = 2; n <= Math.min(4, run.length); n++) for (let i = 0; i + n <= run.length; i++) out.add(run.slice(i, i + n));
  return [...out];
}
