// Time phrases → date ranges, in English and Chinese, resolved against the clock recall runs on
// (the system clock, or KIOKU_CLOCK): the temporal cue and recall_timeline read them the same way.
// Absolute ("2023-05-08", "May 2023", "2023年9月", "in 2023"), relative ("三天前", "上周", "last
// spring", "two weeks ago"), months by numeral or name ("9月", "九月那阵子", "in March", "last
// March"), seasons and weekdays. All ranges are whole UTC days, [from, to).
//
// Words that are time words only sometimes stay unparsed unless something marks them as time:
// "May I ask", "march through the list", "spring boot", "9 files", "v3.2", "in 2000 ms".

export interface TimeRange {
  from: Date;
  /** exclusive */
  to: Date;
  /** the words that named it, as written */
  phrase: string;
}

type Span = [Date, Date];
type Resolve = (m: RegExpExecArray, now: Date) => Span | undefined;

const utc = (y: number, m: number, d = 1): Date => new Date(Date.UTC(y, m, d));
const dayOf = (d: Date, offset = 0): Date => utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offset);
const startOfWeek = (d: Date): Date => dayOf(d, -((d.getUTCDay() + 6) % 7)); // Monday
const monthSpan = (y: number, m: number): Span => [utc(y, m), utc(y, m + 1)];
const yearSpan = (y: number): Span => [utc(y, 0), utc(y + 1, 0)];
const validDate = (y: number, m: number, d: number): boolean => m >= 0 && m < 12 && d >= 1 && d <= utc(y, m + 1, 0).getUTCDate();
/** a year written as one (history has 1370年 and 1805年, so from 1000); bare "YYYY-MM" keeps to recent years, below */
const plausibleYear = (y: number): boolean => y >= 1000 && y <= 2999;

// ---- numbers ----

const EN_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  'a couple of': 2,
  'a couple': 2,
  few: 3,
  'a few': 3,
  several: 3,
};
const EN_NUMBER = `(\\d{1,3}|a couple(?: of)?|a few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const enNumber = (s: string): number => EN_NUMBERS[s.toLowerCase()] ?? Number(s);

const CN_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
/** 1–99 in Arabic or Chinese numerals ("12", "十二", "二十一", "两"); NaN otherwise. */
export function cnNumber(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  const ten = s.indexOf('十');
  if (ten < 0) return s.length === 1 ? (CN_DIGITS[s] ?? NaN) : NaN;
  const tens = ten === 0 ? 1 : (CN_DIGITS[s.slice(0, ten)] ?? NaN);
  const unit = ten === s.length - 1 ? 0 : (CN_DIGITS[s.slice(ten + 1)] ?? NaN);
  return tens * 10 + unit;
}
const CN_NUMBER = '(\\d{1,3}|[一二三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])';
const FEW_CN = '(?:几|好几)';

// ---- months, seasons, weekdays ----

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?';
const monthIndex = (name: string): number => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3).toLowerCase()));
/** "may" and "march" are ordinary words too: without a preposition or a year they count only when capitalised */
const ambiguousLower = (name: string): boolean => /^(?:may|march|mar)$/.test(name);

const CN_MONTH = '(1[0-2]|0?[1-9]|十[一二]|十|[一二三四五六七八九])';
/** what may follow 月 in a month that is not one (月薪 a salary, 月度 monthly, 月报 a report …) */
const NOT_MONTH_AFTER = '(?![薪度报球亮光饼票卡费租供结均活刊])';
const CN_NOT_AFTER_NUMERAL = '(?<![\\d一二三四五六七八九十两零〇第每上下个])';

type Part = 'early' | 'mid' | 'late' | undefined;
function monthPart(y: number, m: number, part: Part): Span {
  if (part === 'early') return [utc(y, m, 1), utc(y, m, 11)];
  if (part === 'mid') return [utc(y, m, 11), utc(y, m, 21)];
  if (part === 'late') return [utc(y, m, 21), utc(y, m + 1)];
  return monthSpan(y, m);
}
const enPart = (s: string | undefined): Part => {
  const p = s?.toLowerCase().replace(/[\s-]/g, '');
  return p === 'early' || p === 'thebeginningof' || p === 'thestartof'
    ? 'early'
    : p === 'mid' || p === 'themiddleof'
      ? 'mid'
      : p === 'late' || p === 'theendof'
        ? 'late'
        : undefined;
};
const cnPart = (s: string | undefined): Part =>
  s === '初' || s === '上旬' ? 'early' : s === '中旬' || s === '中' ? 'mid' : s === '下旬' || s === '底' || s === '末' ? 'late' : undefined;

/** The latest month `m` that has begun by now. */
const latestYearOf = (m: number, now: Date): number => (m <= now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1);
/** "last March": the latest March before this month. */
const lastYearOf = (m: number, now: Date): number => (m < now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1);

type Season = 'spring' | 'summer' | 'autumn' | 'winter';
const SEASON_START: Record<Season, number> = { spring: 2, summer: 5, autumn: 8, winter: 11 };
/** Meteorological seasons (northern hemisphere); the winter of year y runs from December y to February y+1. */
const seasonSpan = (y: number, s: Season): Span => [utc(y, SEASON_START[s]), utc(y, SEASON_START[s] + 3)];
const enSeason = (s: string): Season => (/^(?:fall|autumn)$/i.test(s) ? 'autumn' : (s.toLowerCase() as Season));
const cnSeason = (s: string): Season => (({ 春: 'spring', 夏: 'summer', 秋: 'autumn', 冬: 'winter' }) as const)[s as '春'];
/** The latest season `s` that has begun by now (its year). */
function seasonStarted(s: Season, now: Date): number {
  let y = now.getUTCFullYear();
  while (seasonSpan(y, s)[0] > now) y -= 1;
  return y;
}
/** The latest season `s` that has ended by today (its year): "last spring". */
function seasonEnded(s: Season, now: Date): number {
  let y = now.getUTCFullYear();
  while (seasonSpan(y, s)[1] > dayOf(now)) y -= 1;
  return y;
}
/** The season `s` of the current year ("this winter" in January is the one still running). */
const seasonThis = (s: Season, now: Date): number => (s === 'winter' && now.getUTCMonth() < 2 ? now.getUTCFullYear() - 1 : now.getUTCFullYear());

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
// full names only: "on sun loungers", "last sat down" are not days
const WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const weekdayIndex = (name: string): number => WEEKDAYS.findIndex((d) => d.startsWith(name.slice(0, 3).toLowerCase())); // 0 = Monday
const CN_WEEKDAY: Record<string, number> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6 };
/** The latest such weekday before today (`strict`) or by today. */
function latestWeekday(i: number, now: Date, strict: boolean): Span {
  const today = dayOf(now);
  const back = (((today.getUTCDay() + 6) % 7) - i + 7) % 7 || (strict ? 7 : 0);
  return [dayOf(today, -back), dayOf(today, -back + 1)];
}
const weekdayOfWeek = (weekStart: Date, i: number): Span => [dayOf(weekStart, i), dayOf(weekStart, i + 1)];

// ---- relative spans ----

/** "N units ago": a window around that point (a day; a week ±3½ days; a month ±15 days; a year ±6 months). */
function ago(n: number, unit: string, now: Date, fuzzy = false): Span | undefined {
  if (!Number.isFinite(n) || n < 0 || n > 200) return undefined;
  const today = dayOf(now);
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const d = today.getUTCDate();
  // "a few days ago": from a week back to yesterday, not one day
  if (fuzzy) {
    if (unit === 'day') return [dayOf(today, -7), today];
    if (unit === 'week') return [dayOf(today, -35), dayOf(today, -7)];
    if (unit === 'month') return [utc(y, m - 6, d), utc(y, m - 1, d)];
    return [utc(y - 6, m, d), utc(y - 1, m, d)];
  }
  if (unit === 'day') return [dayOf(today, -n), dayOf(today, -n + 1)];
  if (unit === 'week') return [dayOf(today, -7 * n - 3), dayOf(today, -7 * n + 4)];
  if (unit === 'month') return [utc(y, m - n, d - 15), utc(y, m - n, d + 15)];
  return [utc(y - n, m - 6, d), utc(y - n, m + 6, d)];
}
const unitOf = (s: string): string => {
  const u = s.toLowerCase();
  return /^(?:day|天|日)/.test(u) ? 'day' : /^(?:week|周|星期|个星期|礼拜|个礼拜)/.test(u) ? 'week' : /^(?:month|个月|月)/.test(u) ? 'month' : 'year';
};
/** "the past 3 days", "最近两周": up to and including today. */
function pastSpan(n: number, unit: string, now: Date): Span | undefined {
  if (!Number.isFinite(n) || n <= 0 || n > 200) return undefined;
  const today = dayOf(now);
  const to = dayOf(today, 1);
  if (unit === 'day') return [dayOf(today, -n + 1), to];
  if (unit === 'week') return [dayOf(today, -7 * n + 1), to];
  if (unit === 'month') return [utc(today.getUTCFullYear(), today.getUTCMonth() - n, today.getUTCDate() + 1), to];
  return [utc(today.getUTCFullYear() - n, today.getUTCMonth(), today.getUTCDate() + 1), to];
}

/** "last week" (calendar weeks, Monday first), "this month", "the year before last" … */
function calendar(unit: string, offset: number, now: Date): Span {
  const today = dayOf(now);
  if (unit === 'day') return [dayOf(today, offset), dayOf(today, offset + 1)];
  if (unit === 'week') {
    const start = dayOf(startOfWeek(today), 7 * offset);
    return [start, dayOf(start, 7)];
  }
  if (unit === 'month') return monthSpan(today.getUTCFullYear(), today.getUTCMonth() + offset);
  return yearSpan(today.getUTCFullYear() + offset);
}
const cnYearOffset = (s: string | undefined): number | undefined =>
  s === '今年' || s === '本年' ? 0 : s === '去年' ? -1 : s === '前年' ? -2 : s === '大前年' ? -3 : undefined;
/** a year written before a month or season: "2023年", "去年", "今年" */
const cnYear = (digits: string | undefined, word: string | undefined, now: Date): number | undefined =>
  digits !== undefined ? Number(digits) : word !== undefined ? now.getUTCFullYear() + (cnYearOffset(word) as number) : undefined;

// Not a year when a unit follows: "in 2000 ms", "in 1024 bytes".
const NOT_A_QUANTITY =
  '(?!\\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|px|%|[kmgt]i?b|bytes?|items?|rows?|files?|lines?|words?|chars?|characters?|tokens?|times?|users?|requests?|steps?)\\b)';
const YEAR = '(\\d{4})';

/** The rules, each a pattern over the NFKC text (case-insensitive) and what it means. */
const RULES: [RegExp, Resolve][] = [];
const rule = (source: string, resolve: Resolve): void => void RULES.push([new RegExp(source, 'giu'), resolve]);

// -- absolute dates --
rule(`(?<![\\d.])${YEAR}[-/](\\d{1,2})[-/](\\d{1,2})(?![\\d.])`, (m) => {
  const [y, mo, d] = [+m[1]!, +m[2]! - 1, +m[3]!];
  return plausibleYear(y) && validDate(y, mo, d) ? [utc(y, mo, d), utc(y, mo, d + 1)] : undefined;
});
// 2024-02 (not 2007-08年, two years)
rule(`(?<![\\w.-])${YEAR}-(\\d{2})(?![\\d-]|\\s*年)`, (m) => {
  const [y, mo] = [+m[1]!, +m[2]! - 1];
  return y >= 1900 && y <= 2199 && mo >= 0 && mo < 12 ? monthSpan(y, mo) : undefined;
});
// 2007-08年, 2019至2021年: from the first year to the end of the second
rule(`(?<!\\d)${YEAR}\\s*[-~至到]\\s*(\\d{2}|\\d{4})\\s*年`, (m) => {
  const y1 = +m[1]!;
  const y2 = m[2]!.length === 2 ? Math.floor(y1 / 100) * 100 + +m[2]! : +m[2]!;
  return plausibleYear(y1) && y2 >= y1 && y2 - y1 < 100 ? [utc(y1, 0), utc(y2 + 1, 0)] : undefined;
});
// decades: 1980年代, the 1980s, 1960年代初
rule(`(?<!\\d)(\\d{3}0)\\s*年代(初|中|末)?|\\b(?:the\\s+)?(\\d{3}0)'?s\\b`, (m) => {
  const y = +(m[1] ?? m[3])!;
  if (!plausibleYear(y)) return undefined;
  const part = m[2];
  return part === '初'
    ? [utc(y, 0), utc(y + 4, 0)]
    : part === '中'
      ? [utc(y + 3, 0), utc(y + 7, 0)]
      : part === '末'
        ? [utc(y + 6, 0), utc(y + 10, 0)]
        : [utc(y, 0), utc(y + 10, 0)];
});
// 2023年5月8日, 去年九月三号, 5月8日
rule(
  `(?:(\\d{4})\\s*年|(去年|今年|前年))?\\s*${CN_NOT_AFTER_NUMERAL}${CN_MONTH}\\s*月\\s*(\\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])\\s*[日号號]`,
  (m, now) => {
    const mo = cnNumber(m[3]!) - 1;
    const d = cnNumber(m[4]!);
    const given = cnYear(m[1], m[2], now);
    const y = given ?? (utc(now.getUTCFullYear(), mo, d) <= now ? now.getUTCFullYear() : now.getUTCFullYear() - 1);
    return validDate(y, mo, d) ? [utc(y, mo, d), utc(y, mo, d + 1)] : undefined;
  },
);
// 2023年9月, 去年九月, 九月那阵子, 9月份, 三月底
rule(
  `(?:(\\d{4})\\s*年\\s*|(去年|今年|前年)\\s*的?)?${CN_NOT_AFTER_NUMERAL}${CN_MONTH}\\s*月${NOT_MONTH_AFTER}(?:份)?(初|上旬|中旬|下旬|底|末|中)?(?:那阵子|那陣子|那阵|那会儿|那会|那时候|那时|的时候|左右|前后)?`,
  (m, now) => {
    const mo = cnNumber(m[3]!) - 1;
    if (!(mo >= 0 && mo < 12)) return undefined;
    const y = cnYear(m[1], m[2], now) ?? latestYearOf(mo, now);
    return plausibleYear(y) ? monthPart(y, mo, cnPart(m[4])) : undefined;
  },
);
// 2023年, 2023年的时候 (not 1990年代, a decade)
rule(`(?<!\\d)${YEAR}\\s*年(?!代)(?:的时候|那阵子|那会儿|左右)?`, (m) => (plausibleYear(+m[1]!) ? yearSpan(+m[1]!) : undefined));
// 8 May 2023, the 8th of May 2023, 8 May
rule(`\\b(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?(?:\\s+of)?\\s+${MONTH}(?:(?:,\\s*|\\s+)${YEAR})?\\b`, (m, now) => {
  const [d, mo] = [+m[1]!, monthIndex(m[2]!)];
  if (m[3] === undefined && ambiguousLower(m[2]!) && m[2] === m[2]!.toLowerCase()) return undefined;
  const y = m[3] !== undefined ? +m[3] : utc(now.getUTCFullYear(), mo, d) <= now ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return validDate(y, mo, d) ? [utc(y, mo, d), utc(y, mo, d + 1)] : undefined;
});
// May 8, 2023; May 8th; May 8
rule(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:(?:,\\s*|\\s+)${YEAR})?(?![\\d.:])\\b${NOT_A_QUANTITY}`, (m, now) => {
  const [mo, d] = [monthIndex(m[1]!), +m[2]!];
  if (m[3] === undefined && ambiguousLower(m[1]!) && m[1] === m[1]!.toLowerCase()) return undefined;
  const y = m[3] !== undefined ? +m[3] : utc(now.getUTCFullYear(), mo, d) <= now ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return validDate(y, mo, d) ? [utc(y, mo, d), utc(y, mo, d + 1)] : undefined;
});
// May 2023, March of 2023, early June 2023
rule(`\\b(?:(early|mid-?|late|the beginning of|the start of|the middle of|the end of)\\s*)?${MONTH}(?:,\\s*|\\s+)(?:of\\s+)?${YEAR}\\b`, (m) =>
  plausibleYear(+m[3]!) ? monthPart(+m[3]!, monthIndex(m[2]!), enPart(m[1])) : undefined,
);
// in March, last March, this March, since March, early March, mid-March, back in late May
rule(
  `\\b(?:(in|during|around|since|from|last|this|back in)\\s+(?:(early|mid-?|late|the beginning of|the start of|the middle of|the end of)\\s*)?|(early|mid-|late)\\s*)${MONTH}\\b(?!\\s*\\d)`,
  (m, now) => {
    const lead = m[1]?.toLowerCase();
    const mo = monthIndex(m[4]!);
    // "late may" / "early march" without a preposition are too often other words
    if (!lead && ambiguousLower(m[4]!) && m[4] === m[4]!.toLowerCase()) return undefined;
    const y = lead === 'last' ? lastYearOf(mo, now) : lead === 'this' ? now.getUTCFullYear() : latestYearOf(mo, now);
    const span = monthPart(y, mo, enPart(m[2] ?? m[3]));
    return lead === 'since' ? [span[0], dayOf(now, 1)] : span;
  },
);
// in 2023, during 2023, since 2023, back in 2019, the year 2023
rule(`\\b(in|during|since|of|back in|around|the year)\\s+${YEAR}\\b${NOT_A_QUANTITY}`, (m, now) => {
  const y = +m[2]!;
  if (!plausibleYear(y)) return undefined;
  return m[1]!.toLowerCase() === 'since' ? [utc(y, 0), dayOf(now, 1)] : yearSpan(y);
});

// -- quarters: Q3 2023, 2023 Q3, 2023年第三季度 --
const quarter = (y: number, q: number): Span | undefined => (plausibleYear(y) && q >= 1 && q <= 4 ? [utc(y, 3 * (q - 1)), utc(y, 3 * q)] : undefined);
rule(`\\bQ([1-4])\\s*(?:of\\s+)?${YEAR}\\b`, (m) => quarter(+m[2]!, +m[1]!));
rule(`\\b${YEAR}\\s*-?\\s*Q([1-4])\\b`, (m) => quarter(+m[1]!, +m[2]!));
rule(`(?:(\\d{4})\\s*年|(去年|今年|前年))\\s*的?\\s*第?([一二三四1-4])季度`, (m, now) => quarter(cnYear(m[1], m[2], now) as number, cnNumber(m[3]!)));

// -- seasons --
// spring 2023, the summer of 2022, in the fall of 2021
rule(`\\b(?:(?:in|during)\\s+)?(?:the\\s+)?(spring|summer|fall|autumn|winter)\\s+(?:of\\s+)?${YEAR}\\b`, (m) =>
  plausibleYear(+m[2]!) ? seasonSpan(+m[2]!, enSeason(m[1]!)) : undefined,
);
// last spring, this summer, in the fall, during winter (a season alone is not one: "spring boot")
rule(
  `\\b(last|this|past|previous|in|during|in the|during the|over the|since)\\s+(spring|summer|fall|autumn|winter)\\b(?!\\s+(?:boot|framework|cloud|data|security|mvc|batch|integration|release))`,
  (m, now) => {
    const lead = m[1]!.toLowerCase();
    // seasons are written in lower case: "in Spring" is the framework more often than the season
    if (/^(?:in|during|over|since)/.test(lead) && /^[A-Z]/.test(m[2]!)) return undefined;
    const s = enSeason(m[2]!);
    const y = lead === 'this' ? seasonThis(s, now) : lead === 'last' || lead === 'past' || lead === 'previous' ? seasonEnded(s, now) : seasonStarted(s, now);
    const span = seasonSpan(y, s);
    return lead === 'since' ? [span[0], dayOf(now, 1)] : span;
  },
);
// 去年春天, 2023年夏季, 今年冬天那阵子, 春天的时候
rule(
  `(?:(?:(\\d{4})\\s*年|(去年|今年|前年))\\s*的?\\s*([春夏秋冬])(?:天|季)|([春夏秋冬])(?:天|季)(?=的时候|那阵子|那會|那会儿|那时候))(?:的时候|那阵子|那会儿|那时候)?`,
  (m, now) => {
    const s = cnSeason(m[3] ?? m[4]!);
    const y = cnYear(m[1], m[2], now) ?? seasonStarted(s, now);
    return seasonSpan(y, s);
  },
);

// -- days --
// not "tonight": it names plans ("dinner tonight") far more often than a past to recall
rule(`\\b(the day before yesterday|yesterday|last night|today|this (?:morning|afternoon|evening))\\b`, (m, now) => {
  const w = m[1]!.toLowerCase();
  return calendar('day', w.startsWith('the day before') ? -2 : w === 'yesterday' || w === 'last night' ? -1 : 0, now);
});
rule(`(大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今早|今晚|今儿)`, (m, now) =>
  calendar('day', { 大前天: -3, 前天: -2, 昨天: -1, 昨日: -1, 昨晚: -1, 昨夜: -1 }[m[1]! as '前天'] ?? 0, now),
);

// -- N units ago --
rule(`\\b${EN_NUMBER}\\s+(days?|weeks?|months?|years?)\\s+ago\\b`, (m, now) => {
  const n = m[1]!.toLowerCase();
  return ago(enNumber(n), unitOf(m[2]!), now, /few|several/.test(n));
});
// 三天前 (not 哪一年前往 "which year did … go to", nor 第一年前 …)
const CN_AGO = '(?:以前|之前|前)(?![往进面端台后提夕景途程线者沿])';
rule(`(?<![哪第每])${CN_NUMBER}\\s*(天|日|周|週|个星期|星期|个礼拜|礼拜|个月|年)${CN_AGO}`, (m, now) => ago(cnNumber(m[1]!), unitOf(m[2]!), now));
rule(`(?:${FEW_CN}(天|周|个星期|个礼拜|个月|年)${CN_AGO}|前几(天)|前些(天|日子))`, (m, now) => ago(3, unitOf(m[1] ?? m[2] ?? '天'), now, true));
// the past 3 days, the last two weeks, 过去三天, 最近两周
rule(`\\b(?:the\\s+)?(?:past|last)\\s+${EN_NUMBER}\\s+(days?|weeks?|months?|years?)\\b`, (m, now) => pastSpan(enNumber(m[1]!), unitOf(m[2]!), now));
// not 近50年 alone ("nearly 50 years", mostly history)
rule(`(?:过去|最近)\\s*的?\\s*${CN_NUMBER}\\s*(天|日|周|个星期|个礼拜|个月|年)`, (m, now) => pastSpan(cnNumber(m[1]!), unitOf(m[2]!), now));

// -- calendar weeks, months, years --
rule(`\\b(?:(last|this|past|previous)|(earlier this))\\s+(week|month|year)\\b`, (m, now) => {
  const unit = m[3]!.toLowerCase();
  const lead = m[1]?.toLowerCase();
  if (m[2]) return [calendar(unit, 0, now)[0], dayOf(now, 1)];
  // "the past week" is the seven days up to today; "last week" the calendar week before this one
  if (lead === 'past') return pastSpan(1, unit, now);
  return calendar(unit, lead === 'this' ? 0 : -1, now);
});
rule(`\\bthe\\s+(week|month|year)\\s+before\\s+last\\b`, (m, now) => calendar(m[1]!.toLowerCase(), -2, now));
rule(`\\b(last|this)\\s+weekend\\b`, (m, now) => {
  const monday = startOfWeek(dayOf(now));
  const sat = m[1]!.toLowerCase() === 'this' ? dayOf(monday, 5) : dayOf(monday, -2);
  return [sat, dayOf(sat, 2)];
});
rule(`(上上|上|这|本)(?:个)?(?:周|週|星期|礼拜)末`, (m, now) => {
  const monday = startOfWeek(dayOf(now));
  const sat = dayOf(monday, { 上上: -9, 上: -2, 这: 5, 本: 5 }[m[1]! as '上']);
  return [sat, dayOf(sat, 2)];
});
// 上周三, 这周五, 本星期一
rule(`(上上|上|这|本)(?:个)?(?:周|週|星期|礼拜)([一二三四五六日天])`, (m, now) => {
  const weeks = { 上上: -2, 上: -1, 这: 0, 本: 0 }[m[1]! as '上'];
  return weekdayOfWeek(dayOf(startOfWeek(dayOf(now)), 7 * weeks), CN_WEEKDAY[m[2]!] as number);
});
// 上周, 上上周, 这周, 本周, 上个星期 (not 上周期, a period)
rule(`(上上|上|这|本)(?:个)?(?:周|週|星期|礼拜)(?![期一二三四五六日天末])`, (m, now) =>
  calendar('week', { 上上: -2, 上: -1, 这: 0, 本: 0 }[m[1]! as '上'], now),
);
rule(`(上上|上|这|本)个?月(?![份球亮光饼薪度报])`, (m, now) => calendar('month', { 上上: -2, 上: -1, 这: 0, 本: 0 }[m[1]! as '上'], now));
rule(`(大前年|前年|去年|今年)(?![春夏秋冬]|[\\d一二三四五六七八九十]+月)`, (m, now) => calendar('year', cnYearOffset(m[1]!) as number, now));
rule(`(?:这|今)(?:两|几)天`, (_m, now) => [dayOf(now, -2), dayOf(now, 1)]);

// -- weekdays --
rule(`\\b(last|on|this past)\\s+${WEEKDAY}\\b`, (m, now) => latestWeekday(weekdayIndex(m[2]!), now, m[1]!.toLowerCase() !== 'on'));
rule(`(?<![上这本个每几一二三四五六七八九十两])(?:周|週|星期|礼拜)([一二三四五六日天])(?![\\d])`, (m, now) =>
  latestWeekday(CN_WEEKDAY[m[1]!] as number, now, false),
);

/**
 * The time expression of the text, as a [from, to) range in UTC; undefined when there is none.
 * One that names its year ("April 10, 2023", "2023年9月") wins over one that does not: a question
 * such as "what did Maria do last weekend before April 10, 2023?" is anchored by its date (four
 * LoCoMo dev questions are). Then the one that starts first, then the longest
 * ("去年九月" over "去年"), so the phrase is the whole expression.
 */
export function parseTimeRange(text: string, now: Date = new Date()): TimeRange | undefined {
  const t = text.normalize('NFKC');
  let best: { dated: boolean; index: number; phrase: string; span: Span } | undefined;
  for (const [re, resolve] of RULES) {
    re.lastIndex = 0;
    for (const m of t.matchAll(re)) {
      const phrase = m[0].trim();
      const index = m.index + (m[0].length - m[0].trimStart().length);
      const dated = /\d{4}/.test(phrase);
      if (best && !before({ dated, index, phrase }, best)) continue;
      const span = resolve(m, now);
      if (span && span[0] < span[1]) best = { dated, index, phrase, span };
    }
  }
  return best ? { from: best.span[0], to: best.span[1], phrase: best.phrase } : undefined;
}

type Found = { dated: boolean; index: number; phrase: string };
const before = (a: Found, b: Found): boolean => (a.dated !== b.dated ? a.dated : a.index !== b.index ? a.index < b.index : a.phrase.length > b.phrase.length);
