import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import {
  abbreviateNumber,
  addDays,
  dayAtOffset,
  dayStartAtOffset,
  DEFAULT_DATE_PATTERN,
  formatDate,
  formatDay,
  zoneOffsetAt,
  formatNumber,
  formatPercent,
  formatUtcOffset,
  relativeTime,
  toDate,
} from './index';

// Every assertion names its zone, so the suite gives the same answers on any machine.
const UTC = 'UTC';
const SAIGON = 'Asia/Ho_Chi_Minh';

describe('formatDate', () => {
  describe('with the default pattern', () => {
    it('prints year-month-day hour:minute:second (spec §9)', () => {
      expect(DEFAULT_DATE_PATTERN).toBe('{y}-{m}-{d} {h}:{i}:{s}');
      expect(formatDate('2024-03-05T14:07:09Z', undefined, UTC)).toBe('2024-03-05 14:07:09');
    });

    it('zero-pads every field, including midnight and single-digit months and days', () => {
      expect(formatDate('2024-01-02T03:04:05Z', undefined, UTC)).toBe('2024-01-02 03:04:05');
      expect(formatDate('2024-01-01T00:00:00Z', undefined, UTC)).toBe('2024-01-01 00:00:00');
      expect(formatDate('0999-12-31T23:59:59Z', undefined, UTC)).toBe('0999-12-31 23:59:59');
    });

    it('uses a 24-hour clock', () => {
      expect(formatDate('2024-06-30T23:15:00Z', '{h}:{i}', UTC)).toBe('23:15');
      expect(formatDate('2024-06-30T12:00:00Z', '{h}:{i}', UTC)).toBe('12:00');
    });
  });

  describe('when the value is a number', () => {
    it('reads 10 digits as seconds', () => {
      expect(formatDate(1_700_000_000, undefined, UTC)).toBe('2023-11-14 22:13:20');
      expect(formatDate(9_999_999_999, undefined, UTC)).toBe('2286-11-20 17:46:39');
    });

    it('reads 11 digits and more as milliseconds', () => {
      expect(formatDate(10_000_000_000, undefined, UTC)).toBe('1970-04-26 17:46:40');
      expect(formatDate(1_700_000_000_000, undefined, UTC)).toBe('2023-11-14 22:13:20');
    });

    it('reads short numbers as seconds too, down to the epoch', () => {
      expect(formatDate(0, undefined, UTC)).toBe('1970-01-01 00:00:00');
      expect(formatDate(86_400, '{y}-{m}-{d}', UTC)).toBe('1970-01-02');
    });

    it('keeps the fraction of fractional seconds', () => {
      expect(toDate(1_700_000_000.5)?.getTime()).toBe(1_700_000_000_500);
    });

    it('reads a digit-only string as a number, not as a year', () => {
      expect(formatDate('1700000000', undefined, UTC)).toBe('2023-11-14 22:13:20');
      expect(formatDate('1700000000000', undefined, UTC)).toBe('2023-11-14 22:13:20');
    });
  });

  it('accepts a Date and an ISO string with an offset', () => {
    expect(formatDate(new Date(Date.UTC(2024, 11, 31, 23, 59, 59)), undefined, UTC)).toBe('2024-12-31 23:59:59');
    expect(formatDate('2024-03-05T09:00:00+07:00', undefined, UTC)).toBe('2024-03-05 02:00:00');
  });

  it("reads the wall clock at an application's fixed offset, half and quarter hours included, whatever the zone asked", () => {
    expect(formatDate('2031-01-05T10:20:00Z', '{d}/{m} {h}:{i}', { utcOffset: 420 })).toBe('05/01 17:20');
    expect(formatDate('2031-01-05T10:20:00Z', '{d}/{m} {h}:{i}', { utcOffset: 330 })).toBe('05/01 15:50');
    expect(formatDate('2031-01-05T10:20:00Z', '{d}/{m} {h}:{i}', { utcOffset: 345, timeZone: 'Asia/Tokyo' })).toBe('05/01 16:05');
    expect(formatDate('2031-01-05T02:20:00Z', '{y}-{m}-{d} {h}:{i} {a}', { utcOffset: -300, lang: 'en' })).toBe('2031-01-04 21:20 Sat');
  });

  it("gives an IANA zone's offset at a moment, summer time and quarter hours included, and null for an unknown zone", () => {
    const winter = Date.UTC(2031, 0, 15, 12);
    const summer = Date.UTC(2031, 6, 15, 12);
    expect(zoneOffsetAt('Asia/Ho_Chi_Minh', winter)).toBe(420);
    expect(zoneOffsetAt('America/New_York', winter)).toBe(-300);
    expect(zoneOffsetAt('America/New_York', summer)).toBe(-240);
    expect(zoneOffsetAt('Asia/Kathmandu', summer)).toBe(345);
    expect(zoneOffsetAt('Pacific/Kiritimati', summer)).toBe(840);
    expect(zoneOffsetAt('Pacific/Chatham', winter)).toBe(825);
    expect(zoneOffsetAt('UTC', summer)).toBe(0);
    expect(zoneOffsetAt('Mars/Olympus_Mons', summer)).toBeNull();
    expect(zoneOffsetAt('', summer)).toBeNull();
  });

  it('does not change the Date it was given', () => {
    const date = new Date(Date.UTC(2024, 0, 1));
    formatDate(date, undefined, SAIGON);
    expect(date.getTime()).toBe(Date.UTC(2024, 0, 1));
  });

  describe('with a time zone', () => {
    it('shows the wall-clock time of that zone, across a day boundary', () => {
      expect(formatDate('2024-03-05T20:30:00Z', undefined, SAIGON)).toBe('2024-03-06 03:30:00');
      expect(formatDate('2024-03-05T20:30:00Z', undefined, { timeZone: 'America/New_York' })).toBe('2024-03-05 15:30:00');
    });

    it('writes midnight as 00, not 24', () => {
      expect(formatDate('2024-03-05T17:00:00Z', '{h}:{i}:{s}', SAIGON)).toBe('00:00:00');
    });

    it('throws on a zone that does not exist, rather than showing a wrong time', () => {
      expect(() => formatDate(0, undefined, 'Mars/Olympus')).toThrow(RangeError);
    });
  });

  describe('with local time (no zone)', () => {
    it('shows the runtime zone’s wall clock', () => {
      const local = new Date(2024, 6, 4, 5, 6, 7);
      expect(formatDate(local)).toBe('2024-07-04 05:06:07');
      expect(formatDate(new Date(2024, 2, 10, 12), '{a}', { lang: 'en' })).toBe('Sun');
    });
  });

  describe('with a custom pattern', () => {
    it('replaces each token wherever it appears and leaves other text alone', () => {
      expect(formatDate('2024-03-05T14:07:09Z', '{d}/{m}/{y} lúc {h}h{i}', UTC)).toBe('05/03/2024 lúc 14h07');
      expect(formatDate('2024-03-05T14:07:09Z', '{y}{y}', UTC)).toBe('20242024');
    });

    it('leaves unknown tokens as they are', () => {
      expect(formatDate('2024-03-05T14:07:09Z', '{y} {x} {Y}', UTC)).toBe('2024 {x} {Y}');
    });

    it('names the weekday with {a}, in Vietnamese by default and in English on request', () => {
      // 2024-03-10 is a Sunday; the week runs to Saturday the 16th.
      const days = [10, 11, 12, 13, 14, 15, 16].map((day) => `2024-03-${day}T12:00:00Z`);
      expect(days.map((day) => formatDate(day, '{a}', UTC))).toEqual(['CN', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']);
      expect(days.map((day) => formatDate(day, '{a}', { timeZone: UTC, lang: 'en' }))).toEqual([
        'Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat',
      ]);
    });

    it('takes the weekday in the chosen zone, not in UTC', () => {
      // Saturday 20:00 UTC is already Sunday in Saigon.
      expect(formatDate('2024-03-09T20:00:00Z', '{a} {d}', { timeZone: SAIGON, lang: 'en' })).toBe('Sun 10');
    });
  });

  describe('when the input is not a date', () => {
    it.each([
      ['an unparseable string', 'not a date'],
      ['an empty string', ''],
      ['blanks', '   '],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['an invalid Date', new Date('nope')],
      ['a number beyond the Date range', 8.64e15 + 1],
      ['null', null],
      ['undefined', undefined],
    ])('gives an empty string for %s', (_label, value) => {
      expect(formatDate(value as never)).toBe('');
    });
  });
});

describe('relativeTime', () => {
  const now = Date.UTC(2024, 2, 10, 12, 0, 0);
  const ago = (ms: number) => now - ms;
  const SECOND = 1000;
  const MINUTE = 60 * SECOND;
  const HOUR = 60 * MINUTE;

  describe('in English', () => {
    const rel = (ms: number) => relativeTime(ago(ms), now, 'en', UTC);

    it('says "just now" under 30 seconds', () => {
      expect(rel(0)).toBe('just now');
      expect(rel(29 * SECOND)).toBe('just now');
      expect(rel(29_999)).toBe('just now');
    });

    it('switches to minutes at 30 seconds, counting at least one', () => {
      expect(rel(30 * SECOND)).toBe('1 minute ago');
      expect(rel(MINUTE + 59 * SECOND)).toBe('1 minute ago');
      expect(rel(2 * MINUTE)).toBe('2 minutes ago');
      expect(rel(5 * MINUTE)).toBe('5 minutes ago');
      expect(rel(59 * MINUTE + 59 * SECOND)).toBe('59 minutes ago');
    });

    it('counts whole hours from one hour to under 24 hours', () => {
      expect(rel(HOUR)).toBe('1 hour ago');
      expect(rel(HOUR + 59 * MINUTE)).toBe('1 hour ago');
      expect(rel(3 * HOUR)).toBe('3 hours ago');
      expect(rel(23 * HOUR + 59 * MINUTE)).toBe('23 hours ago');
    });

    it('says "1 day ago" from 24 hours to under 48 hours', () => {
      expect(rel(24 * HOUR)).toBe('1 day ago');
      expect(rel(47 * HOUR)).toBe('1 day ago');
      expect(rel(47 * HOUR + 59 * MINUTE + 59 * SECOND)).toBe('1 day ago');
    });

    it('shows the date from 48 hours on', () => {
      expect(rel(48 * HOUR)).toBe('2024-03-08');
      expect(rel(400 * 24 * HOUR)).toBe('2023-02-04');
    });
  });

  describe('in Vietnamese (the default language)', () => {
    it('uses the Vietnamese words', () => {
      expect(relativeTime(ago(0), now)).toBe('vừa xong');
      expect(relativeTime(ago(5 * MINUTE), now)).toBe('5 phút trước');
      expect(relativeTime(ago(3 * HOUR), now)).toBe('3 giờ trước');
      expect(relativeTime(ago(30 * HOUR), now)).toBe('1 ngày trước');
    });

    it('shows the date in the given zone after 48 hours', () => {
      // 2024-03-07 20:00 UTC is already the 8th in Saigon.
      expect(relativeTime(Date.UTC(2024, 2, 7, 20), now, 'vi', SAIGON)).toBe('2024-03-08');
      expect(relativeTime(Date.UTC(2024, 2, 7, 20), now, 'vi', UTC)).toBe('2024-03-07');
    });
  });

  describe('when the time is in the future', () => {
    it('says "just now" up to 30 seconds ahead, for clocks that differ a little', () => {
      expect(relativeTime(now + 29_999, now, 'en', UTC)).toBe('just now');
    });

    it('shows the date from 30 seconds ahead, never "ago"', () => {
      expect(relativeTime(now + 30 * SECOND, now, 'en', UTC)).toBe('2024-03-10');
      expect(relativeTime(now + 3 * 24 * HOUR, now, 'en', UTC)).toBe('2024-03-13');
    });
  });

  it('takes a translate function, such as the console’s i18next t', () => {
    const calls: Array<[string, unknown]> = [];
    const t = (key: string, params?: Record<string, string | number>) => {
      calls.push([key, params]);
      return translate('en', key, params);
    };
    expect(relativeTime(ago(7 * MINUTE), now, t)).toBe('7 minutes ago');
    expect(calls).toEqual([['time.minutesAgo', { count: 7 }]]);
  });

  it('accepts the same inputs as formatDate: seconds, ISO strings and Dates, for the value and for now', () => {
    const nowSeconds = now / 1000;
    expect(relativeTime(nowSeconds - 90, nowSeconds, 'en')).toBe('1 minute ago');
    expect(relativeTime('2024-03-10T09:00:00Z', new Date(now), 'en')).toBe('3 hours ago');
  });

  it('gives an empty string for an invalid value or reference', () => {
    expect(relativeTime('yesterday', now, 'en')).toBe('');
    expect(relativeTime(ago(0), Number.NaN, 'en')).toBe('');
  });
});

describe('abbreviateNumber', () => {
  it('leaves numbers under 1000 as they are', () => {
    expect(abbreviateNumber(0)).toBe('0');
    expect(abbreviateNumber(7)).toBe('7');
    expect(abbreviateNumber(999)).toBe('999');
  });

  it.each([
    [1_000, '1k'],
    [1_000_000, '1M'],
    [1_000_000_000, '1G'],
    [1_000_000_000_000, '1T'],
    [1_000_000_000_000_000, '1P'],
    [1_000_000_000_000_000_000, '1E'],
  ])('switches suffix exactly at %d → %s', (n, text) => {
    expect(abbreviateNumber(n)).toBe(text);
  });

  it.each([
    [999_949, '999.9k'],
    [999_949_999, '999.9M'],
    [999_949_999_999, '999.9G'],
  ])('stays on the lower suffix just under a boundary: %d → %s', (n, text) => {
    expect(abbreviateNumber(n)).toBe(text);
  });

  it('keeps one decimal by default and drops a trailing .0', () => {
    expect(abbreviateNumber(1_500)).toBe('1.5k');
    expect(abbreviateNumber(1_040)).toBe('1k');
    expect(abbreviateNumber(2_000_000)).toBe('2M');
    expect(abbreviateNumber(12_345)).toBe('12.3k');
  });

  it('carries a rounding that reaches 1000 into the next suffix', () => {
    expect(abbreviateNumber(999_950)).toBe('1M');
    expect(abbreviateNumber(999_950_000)).toBe('1G');
    expect(abbreviateNumber(999.96)).toBe('1k');
  });

  it('rounds half up', () => {
    expect(abbreviateNumber(1_050)).toBe('1.1k');
    expect(abbreviateNumber(1_250)).toBe('1.3k');
    expect(abbreviateNumber(1_005, 2)).toBe('1.01k');
  });

  it('honours the number of digits, dropping only trailing zeros', () => {
    expect(abbreviateNumber(1_234_567, 2)).toBe('1.23M');
    expect(abbreviateNumber(1_205_000, 3)).toBe('1.205M');
    expect(abbreviateNumber(1_200_000, 3)).toBe('1.2M');
    expect(abbreviateNumber(1_500, 0)).toBe('2k');
    expect(abbreviateNumber(1_499, 0)).toBe('1k');
  });

  it('keeps the sign of negative numbers', () => {
    expect(abbreviateNumber(-999)).toBe('-999');
    expect(abbreviateNumber(-1_500)).toBe('-1.5k');
    expect(abbreviateNumber(-999_950)).toBe('-1M');
  });

  it('does not print "-0" for a negative number that rounds to zero', () => {
    expect(abbreviateNumber(-0.04)).toBe('0');
    expect(abbreviateNumber(-0)).toBe('0');
  });

  it('rounds small fractions to the same number of digits', () => {
    expect(abbreviateNumber(12.345)).toBe('12.3');
    expect(abbreviateNumber(0.05)).toBe('0.1');
  });

  it('counts in E beyond the last suffix', () => {
    expect(abbreviateNumber(2.5e21)).toBe('2500E');
  });

  it('gives an empty string for NaN and infinities', () => {
    expect(abbreviateNumber(Number.NaN)).toBe('');
    expect(abbreviateNumber(Number.POSITIVE_INFINITY)).toBe('');
    expect(abbreviateNumber(Number.NEGATIVE_INFINITY)).toBe('');
  });
});

describe('formatNumber', () => {
  it('groups digits as the language writes them: dots in Vietnamese (a comma is its decimal mark), commas in English', () => {
    expect(formatNumber(1234567, 'vi')).toBe('1.234.567');
    expect(formatNumber(1234567.5, 'vi')).toBe('1.234.567,5');
    expect(formatNumber(1234567, 'en')).toBe('1,234,567');
    expect(formatNumber(1234567.5, 'en')).toBe('1,234,567.5');
    expect(formatNumber(-0.125, 'en')).toBe('-0.125');
    expect(formatNumber(999)).toBe('999');
  });
});

describe('abbreviateNumber in a language', () => {
  it("writes the decimal mark as the language does: 1,5k in Vietnamese, 1.5k in English; whole numbers alike", () => {
    expect(abbreviateNumber(1_500, 1, 'vi')).toBe('1,5k');
    expect(abbreviateNumber(1_234_567, 2, 'vi')).toBe('1,23M');
    expect(abbreviateNumber(-1_500, 1, 'vi')).toBe('-1,5k');
    expect(abbreviateNumber(2_000_000, 1, 'vi')).toBe('2M');
    expect(abbreviateNumber(999, 1, 'vi')).toBe('999');
    expect(abbreviateNumber(1_500, 1, 'en')).toBe('1.5k');
  });
});

describe('formatPercent', () => {
  it('writes a percentage with at most one decimal (or the digits asked) in the language: 12,5% and 12.5%', () => {
    expect(formatPercent(12.5, 'vi')).toBe('12,5%');
    expect(formatPercent(12.5, 'en')).toBe('12.5%');
    expect(formatPercent(33.333, 'en')).toBe('33.3%');
    expect(formatPercent(49.6, 'vi', 0)).toBe('50%');
    expect(formatPercent(0, 'vi')).toBe('0%');
    expect(formatPercent(100, 'en')).toBe('100%');
  });
});

describe('days at a UTC offset', () => {
  it('puts a moment on the day it is at that offset', () => {
    // 20:30 UTC on 31 December is already 1 January in Vietnam (UTC+07:00), still 31 December in UTC-03:30.
    expect(dayAtOffset('2025-12-31T20:30:00.000Z', 420)).toBe('2026-01-01');
    expect(dayAtOffset('2025-12-31T20:30:00.000Z', 0)).toBe('2025-12-31');
    expect(dayAtOffset(Date.parse('2026-01-01T02:00:00.000Z'), -210)).toBe('2025-12-31');
    expect(dayAtOffset('2026-01-01T16:59:59.999Z', 420)).toBe('2026-01-01');
    expect(dayAtOffset('2026-01-01T17:00:00.000Z', 420)).toBe('2026-01-02');
  });

  it("gives the moment a day begins at that offset, each day's start mapping back to that day", () => {
    expect(new Date(dayStartAtOffset('2026-01-01', 420)).toISOString()).toBe('2025-12-31T17:00:00.000Z');
    expect(new Date(dayStartAtOffset('2026-01-01', -570)).toISOString()).toBe('2026-01-01T09:30:00.000Z');
    for (const offset of [-720, -570, 0, 345, 420, 780]) expect(dayAtOffset(dayStartAtOffset('2026-03-01', offset), offset)).toBe('2026-03-01');
  });

  it('counts days across month and year ends', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2026-01-01', -29)).toBe('2025-12-03');
  });

  it("writes a chart's day with the month in letters, as the language orders it, never as digits that read two ways", () => {
    expect(formatDay('2025-11-04', 'en')).toBe('Nov 4');
    expect(formatDay('2025-11-04', 'vi')).toBe('4 thg 11');
    expect(formatDay('2026-01-31', 'en')).toBe('Jan 31');
  });

  it('keeps the day it is given whatever the zone of the browser, and gives nothing for text that is not a day', () => {
    // A day already counted in the application's timezone: the first of the month stays the first west of UTC.
    expect(formatDay('2025-03-01', 'en')).toBe('Mar 1');
    expect(formatDay('', 'en')).toBe('');
    expect(formatDay('2025-13-45', 'en')).toBe('');
    expect(formatDay('yesterday', 'vi')).toBe('');
  });

  it('writes an offset as UTC±hh:mm', () => {
    expect(formatUtcOffset(420)).toBe('UTC+07:00');
    expect(formatUtcOffset(-570)).toBe('UTC-09:30');
    expect(formatUtcOffset(345)).toBe('UTC+05:45');
    expect(formatUtcOffset(0)).toBe('UTC+00:00');
  });
});
