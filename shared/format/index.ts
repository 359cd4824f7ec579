/**
 * Display helpers of spec §9: dates with a token pattern, relative time, numbers and number abbreviation.
 * Pure and dependency-free (besides the shared dictionaries and shared/validation's reading of epoch numbers), so the console, the embedded admin and the
 * server format the same value the same way.
 */
import { type Language, translate } from '../i18n';
import { DAY_MS, epochMs } from '../validation';

/** What the date helpers accept: a Date, an ISO 8601 string, or a Unix time in seconds or milliseconds. */
export type DateInput = Date | string | number;

/** spec §9: year-month-day hour:minute:second. */
export const DEFAULT_DATE_PATTERN = '{y}-{m}-{d} {h}:{i}:{s}';
export const DATE_ONLY_PATTERN = '{y}-{m}-{d}';

/** Turns any accepted input into a valid Date, or null. Digit-only strings count as numbers. */
export function toDate(value: DateInput | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  let date: Date;
  if (value instanceof Date) {
    date = new Date(value.getTime());
  } else if (typeof value === 'number') {
    date = fromEpoch(value);
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return null;
    // Timestamps often arrive as text (query strings, SQLite columns); treat them as numbers, not as years.
    date = /^-?\d+(\.\d+)?$/.test(text) ? fromEpoch(Number(text)) : new Date(text);
  } else {
    return null;
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

function fromEpoch(n: number): Date {
  return new Date(Number.isFinite(n) ? epochMs(n) : Number.NaN);
}

/** Options of formatDate. A plain string is read as `timeZone`. */
export interface FormatDateOptions {
  /** IANA zone (e.g. 'Asia/Ho_Chi_Minh', 'UTC'); the runtime's local zone when absent. */
  timeZone?: string;
  /** A fixed offset instead (minutes east of UTC): an application's timezone (spec §9). Wins over `timeZone`. */
  utcOffset?: number;
  /** Language of the {a} weekday name; Vietnamese by default, like the console. */
  lang?: Language;
}

interface DateParts {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
  /** 0 = Sunday. */
  a: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * Intl formatters are costly to build and a table formats hundreds of dates: keep one per zone. Bounded: the
 * server reads zones that devices name (zoneOffsetAt), and Intl takes any case of a name ('asia/HO_chi_minh').
 */
const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
const ZONE_FORMATTERS_MAX = 1_000;

function partsIn(date: Date, timeZone: string | undefined): DateParts {
  if (!timeZone) {
    return {
      y: date.getFullYear(),
      m: date.getMonth() + 1,
      d: date.getDate(),
      h: date.getHours(),
      i: date.getMinutes(),
      s: date.getSeconds(),
      a: date.getDay(),
    };
  }
  let formatter = zoneFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    if (zoneFormatters.size >= ZONE_FORMATTERS_MAX) zoneFormatters.clear();
    zoneFormatters.set(timeZone, formatter);
  }
  const found: Record<string, string> = {};
  for (const part of formatter.formatToParts(date)) found[part.type] = part.value;
  // Intl counts years before 1 AD as "1 BC", "2 BC"…; turn them back into astronomical years (0, -1…).
  const year = Number(found.year);
  return {
    y: found.era === 'BC' ? 1 - year : year,
    m: Number(found.month),
    d: Number(found.day),
    h: Number(found.hour) % 24,
    i: Number(found.minute),
    s: Number(found.second),
    a: WEEKDAYS.indexOf(found.weekday),
  };
}

const WEEKDAY_KEYS = WEEKDAYS.map((name) => name.toLowerCase());

/** Short weekday names come from the dictionaries, not Intl: ICU versions disagree ('Th 3' or 'Thứ 3'). */
function weekdayName(weekday: number, lang: Language): string {
  return translate(lang, `time.weekdays.${WEEKDAY_KEYS[weekday]}`);
}

function pad(n: number, width: number): string {
  const text = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${text}` : text;
}

/**
 * Formats a date with the tokens {y} {m} {d} {h} {i} {s} (zero-padded: 4-digit year, 2-digit rest, 24-hour
 * clock) and {a} (short weekday name in `lang`). Numbers of 10 digits or fewer are Unix seconds, longer
 * ones milliseconds; digit-only strings are read as numbers too. Invalid input (null, '', NaN, an
 * unparseable string, an out-of-range number) gives ''. An unknown `timeZone` throws a RangeError: it is
 * a programming mistake, not data to hide.
 */
export function formatDate(
  value: DateInput | null | undefined,
  pattern: string = DEFAULT_DATE_PATTERN,
  options: FormatDateOptions | string = {},
): string {
  const { timeZone, utcOffset, lang = 'vi' } = typeof options === 'string' ? { timeZone: options } : options;
  const date = toDate(value);
  if (!date) return '';
  // At a fixed offset: that moment's wall clock is UTC's at the moment shifted by the offset.
  const parts = utcOffset === undefined ? partsIn(date, timeZone) : partsIn(new Date(date.getTime() + utcOffset * OFFSET_MINUTE_MS), 'UTC');
  return pattern.replace(/\{([ymdhisa])\}/g, (_whole, token: keyof DateParts) => {
    if (token === 'a') return weekdayName(parts.a, lang);
    return pad(parts[token], token === 'y' ? 4 : 2);
  });
}

/*
 * Days at a UTC offset. An application's figures per day (dashboard, message statistics) are counted in its
 * timezone, a fixed offset (spec §9), so the day a moment falls on is plain arithmetic, the same in SQL.
 */
const OFFSET_MINUTE_MS = 60_000;

/** The day (YYYY-MM-DD) a moment (ISO 8601 or epoch ms) falls on at `offsetMinutes` east of UTC. */
export function dayAtOffset(at: string | number, offsetMinutes: number): string {
  if (offsetMinutes === 0 && typeof at === 'string') return at.slice(0, 10);
  const ms = typeof at === 'string' ? Date.parse(at) : at;
  return new Date(ms + offsetMinutes * OFFSET_MINUTE_MS).toISOString().slice(0, 10);
}

/** The moment (epoch ms) a day (YYYY-MM-DD) begins at `offsetMinutes` east of UTC. */
export function dayStartAtOffset(day: string, offsetMinutes: number): number {
  return Date.parse(`${day}T00:00:00.000Z`) - offsetMinutes * OFFSET_MINUTE_MS;
}

/** The day `count` days after `day` (before it when negative). */
export function addDays(day: string, count: number): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + count * DAY_MS).toISOString().slice(0, 10);
}

/** The locale each console language writes numbers (their digit grouping) and formatDay's dates with. */
const NUMBER_LOCALES: Record<Language, string> = { vi: 'vi-VN', en: 'en-US' };
const dayFormats = new Map<Language, Intl.DateTimeFormat>();

/**
 * A day (YYYY-MM-DD) as the language writes a short date, the month in letters: "Nov 4" in English, "4 thg 11" in
 * Vietnamese. A chart's days, which in digits alone ("04/11") read as April 11 to an American. The day is a
 * calendar day already counted in the application's timezone, so it is read and written in UTC, never shifted
 * by the browser's zone. '' for text that is not a day.
 */
export function formatDay(day: string, lang: Language = 'vi'): string {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(at)) return '';
  let format = dayFormats.get(lang);
  if (!format) dayFormats.set(lang, (format = new Intl.DateTimeFormat(NUMBER_LOCALES[lang], { day: 'numeric', month: 'short', timeZone: 'UTC' })));
  return format.format(at);
}

/**
 * Minutes east of UTC of an IANA timezone ('Asia/Ho_Chi_Minh' → 420) at a moment (epoch ms), summer time
 * included: what a device that names its zone but not its offset is at. Null for a name this runtime does not know.
 */
export function zoneOffsetAt(timeZone: string, at: number): number | null {
  // No name is no zone, not the runtime's own (partsIn's reading of a missing zone).
  if (!timeZone) return null;
  let parts: DateParts;
  try {
    parts = partsIn(new Date(at), timeZone);
  } catch {
    return null;
  }
  const wall = Date.UTC(parts.y, parts.m - 1, parts.d, parts.h, parts.i, parts.s);
  return Math.round((wall - Math.floor(at / 1000) * 1000) / OFFSET_MINUTE_MS);
}

/** Minutes east of UTC as "UTC+07:00", "UTC-03:30", "UTC+00:00". */
export function formatUtcOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const size = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(size / 60), 2)}:${pad(size % 60, 2)}`;
}

/** A translate function, such as react-i18next's `t` or a bound `translate(lang, …)`. */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Under this many milliseconds, either way, a time is 'just now' (spec §9: 30 seconds). */
export const JUST_NOW_MS = 30 * SECOND;

/**
 * How long ago `value` was, in words (spec §9): 'just now' under 30 seconds, then whole minutes (at least
 * one), whole hours under 24 h, '1 day ago' under 48 h, then the date as {y}-{m}-{d}.
 *
 * Future times: up to 30 seconds ahead also read 'just now', which absorbs small clock differences between
 * the server and the browser; anything further ahead (a scheduled send, a skewed clock) shows its date,
 * because 'ago' would be false and 'in 3 hours' is not a phrase of the spec.
 *
 * `lang` is a language code or a translate function (keys under `time.*`, `{count}` placeholder).
 * Invalid input gives ''.
 */
export function relativeTime(
  value: DateInput | null | undefined,
  now: DateInput = Date.now(),
  lang: Language | Translate = 'vi',
  timeZone?: string,
): string {
  const date = toDate(value);
  const reference = toDate(now);
  if (!date || !reference) return '';
  const t: Translate = typeof lang === 'function' ? lang : (key, params) => translate(lang, key, params);
  const elapsed = reference.getTime() - date.getTime();

  if (Math.abs(elapsed) < JUST_NOW_MS) return t('time.justNow');
  if (elapsed > 0 && elapsed < HOUR) {
    const count = Math.max(1, Math.floor(elapsed / MINUTE));
    return count === 1 ? t('time.minuteAgo', { count }) : t('time.minutesAgo', { count });
  }
  if (elapsed > 0 && elapsed < DAY) {
    const count = Math.floor(elapsed / HOUR);
    return count === 1 ? t('time.hourAgo', { count }) : t('time.hoursAgo', { count });
  }
  if (elapsed > 0 && elapsed < 2 * DAY) return t('time.dayAgo', { count: 1 });
  return formatDate(date, DATE_ONLY_PATTERN, {
    timeZone,
    lang: typeof lang === 'function' ? undefined : lang,
  });
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** The language's number format with at most `digits` decimals, made once. */
function numberFormat(lang: Language, digits: number): Intl.NumberFormat {
  const key = `${lang}:${digits}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(NUMBER_LOCALES[lang], { maximumFractionDigits: digits })));
  return format;
}

/**
 * A number grouped as the console's language writes it, whatever the browser's own locale: 1.234.567,5 in
 * Vietnamese (where a comma is the decimal mark), 1,234,567.5 in English; at most three decimals.
 */
export function formatNumber(value: number, lang: Language = 'vi'): string {
  return numberFormat(lang, 3).format(value);
}

/** k, M, G, T, P, E: powers of 1000 (spec §9). */
const SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;

/**
 * Abbreviates a number with k, M, G, T, P, E and at most `digits` decimals, dropping trailing zeros:
 * 999 → '999', 1500 → '1.5k', 999_950 → '1M' (rounding carries into the next suffix). Negative numbers keep
 * their sign. Beyond E the number of E grows (1e21 → '1000E'). NaN and infinities give ''. With `lang`, the
 * decimal mark is that language's: '1,5k' in Vietnamese, '1.5k' in English.
 */
export function abbreviateNumber(n: number, digits = 1, lang?: Language): string {
  if (!Number.isFinite(n)) return '';
  const places = Math.max(0, Math.min(20, Math.trunc(digits)));
  const size = Math.abs(n);
  let index = 0;
  while (index < SUFFIXES.length - 1 && size >= 1000 ** (index + 1)) index += 1;
  let scaled = round(size / 1000 ** index, places);
  // 999.95k rounds to 1000k: say 1M instead.
  if (scaled >= 1000 && index < SUFFIXES.length - 1) {
    index += 1;
    scaled = round(size / 1000 ** index, places);
  }
  const text = scaled.toFixed(places).replace(/\.0+$|(\.\d*?[1-9])0+$/, '$1');
  const sign = n < 0 && scaled !== 0 ? '-' : '';
  return `${sign}${lang === 'vi' ? text.replace('.', ',') : text}${SUFFIXES[index]}`;
}

/**
 * A percentage (12.5 for 12.5 %) as the console's language writes it, with at most `digits` decimals: '12,5%'
 * in Vietnamese, '12.5%' in English.
 */
export function formatPercent(value: number, lang: Language = 'vi', digits = 1): string {
  return `${numberFormat(lang, digits).format(value)}%`;
}

/** `part` as a percentage of `whole` (formatPercent); 0% when `whole` is 0. */
export function formatShare(part: number, whole: number, lang: Language = 'vi', digits = 1): string {
  return formatPercent(whole > 0 ? (part / whole) * 100 : 0, lang, digits);
}

/** Half-up rounding that survives binary fractions (1.005 → 1.01, not 1.00). */
function round(value: number, places: number): number {
  const text = String(value);
  // Shifting the decimal point in the text avoids 1.005 * 100 = 100.49999…; exponent forms can't be shifted so.
  if (text.includes('e')) return Math.round(value * 10 ** places) / 10 ** places;
  return Number(`${Math.round(Number(`${text}e${places}`))}e-${places}`);
}
