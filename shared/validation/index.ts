/**
 * Validation rules of spec §5, written once. Each rule is a plain predicate (used by the console's
 * forms and by the zod schemas in shared/contract) and carries the i18n key of its message.
 */

/** Standard address pattern: local@domain.tld, no spaces, one @. */
const EMAIL_RE = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const EMAIL_MAX_LENGTH = 254;

export function isEmail(value: string): boolean {
  // The local part is a dot-atom: no dot at its start or end, none doubled (mail servers refuse the rest).
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_RE.test(value) && !value.includes('..') && !/^\.|\.@/.test(value);
}

/**
 * An email address as stored, of console users and of players alike: trimmed and in lower case. Mail systems
 * treat addresses without regard to case, and a search or a login typed in any case must find it.
 */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** Username: letters, digits, underscore only. */
export function isUsername(value: string): boolean {
  return /^[A-Za-z0-9_]+$/.test(value);
}

/** Url: http, https or ftp with a host. */
export function isUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return ['http:', 'https:', 'ftp:'].includes(url.protocol) && url.hostname.length > 0;
}

/**
 * External link: starts with http:, https:, mailto: or tel: (and nothing else, so no javascript:), and leads
 * somewhere: a web link needs a host, mailto: and tel: an address ('http://' alone is a dead button).
 */
export function isExternalLink(value: string): boolean {
  const link = value.trim();
  if (/\s/.test(link)) return false;
  if (/^https?:/i.test(link)) return isUrl(link);
  return /^(mailto|tel):.+$/i.test(link);
}

/** Site URL and icon URL must be HTTPS, with a host. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export const PAYLOAD_URL_MAX_LENGTH = 2000;

/**
 * A webhook's payload URL: http or https with a host, no user name or password (they would travel to
 * every receiver in clear and in the logs), at most 2000 characters, no spaces. Where the host points is
 * checked by the server (private and loopback addresses are refused there).
 */
export function isPayloadUrl(value: string): boolean {
  if (value.length > PAYLOAD_URL_MAX_LENGTH || /\s/.test(value)) return false;
  // URL() forgives `https:///x` and backslashes (reading them as `https://x`): the host must follow `//` as typed.
  if (!/^https?:\/\/[^/\\]/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 && url.username === '' && url.password === '';
}

export const APPLICATION_ID_MIN_LENGTH = 3;
export const APPLICATION_ID_MAX_LENGTH = 64;

/** Application ID: letters, digits, underscore only, 3 to 64 characters. */
export function isApplicationId(value: string): boolean {
  return (
    value.length >= APPLICATION_ID_MIN_LENGTH &&
    value.length <= APPLICATION_ID_MAX_LENGTH &&
    /^[A-Za-z0-9_]+$/.test(value)
  );
}

/**
 * Numbers with at most this many integer digits are Unix seconds, longer ones milliseconds (spec §9).
 * 9_999_999_999 s is the year 2286, and 10-digit milliseconds only reach April 1970, so the two never meet
 * on a real timestamp.
 */
const SECONDS_MAX_DIGITS = 10;

/** A day's length in milliseconds: days here are UTC days or days of a fixed UTC offset (spec §9), never 23 or 25 hours. */
export const DAY_MS = 86_400_000;

/**
 * An epoch number in milliseconds: 10 integer digits or fewer are seconds (1732790000 → 1732790000000), more are
 * milliseconds already. The one reading of epoch numbers, for dates shown and for the times devices report.
 */
export function epochMs(n: number): number {
  // Fewer than 11 integer digits, without going through text (which turns 1e21 into '1e+21').
  return Math.abs(n) < 10 ** SECONDS_MAX_DIGITS ? n * 1000 : n;
}

/** The furthest a JavaScript Date reaches either side of 1970, in ms. */
const DATE_MS_MAX = 8.64e15;
/** ISO 8601 as apps and browsers write it: a date, or a date and time (T or a space) with an optional zone. */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A `.date` field's value (spec §5) as epoch ms, or null when it is not a date: ISO 8601 text (2026-12-02,
 * 2026-12-02T09:30:00+07:00; a time without a zone is UTC, a date alone its midnight UTC) or an epoch number
 * (ms, or seconds when 10 digits or fewer). Other text is not read, whatever Date.parse would make of it: it
 * takes "12/05/1990" as December 5th where a Vietnamese form meant May 12th, and "1" as the year 2001.
 */
export function dateValueMs(value: string | number | boolean | null): number | null {
  if (typeof value === 'number') {
    const ms = Number.isFinite(value) ? epochMs(value) : Number.NaN;
    return Math.abs(ms) <= DATE_MS_MAX ? ms : null;
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const parts = ISO_DATE_TIME.exec(text);
  if (!parts) return null;
  const [, year, month, day, hour, minute, second, zone] = parts;
  // Date.parse rolls 2026-02-30 over to March 2nd: the day must be one of its month's.
  const lastDay = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > lastDay) return null;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return null;
  const ms = Date.parse(hour !== undefined && zone === undefined ? `${text.replace(' ', 'T')}Z` : text.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}

/** Whether a `.date` field may take this value: a date (dateValueMs), or null, which removes an attribute. */
export const isDateValue = (value: string | number | boolean | null): boolean => value === null || dateValueMs(value) !== null;

/** Event, property and attribute names: what a developer would type, no markup, bounded. */
export const NAME_MAX_LENGTH = 64;
export const NAME_PATTERN = /^[A-Za-z0-9_$][A-Za-z0-9_.:$ -]*$/;
/**
 * A name the server takes as it is (the contract's Name, which trims it first): the pattern, the bound, no spaces
 * around it. The storefront SDK leaves out what fails it rather than have a batch refused.
 */
export const isName = (value: string): boolean => value.length <= NAME_MAX_LENGTH && value.trim() === value && NAME_PATTERN.test(value);

/** Date field names (events, attributes) must end with `.date`, with a name before it. */
export function isDateFieldName(value: string): boolean {
  return /^.+\.date$/.test(value);
}

/**
 * Spec §5 both ways: a date attribute's name must end with `.date` (the spec's message), and a name ending with
 * `.date` belongs to a date only, since the SDK types every `.date` value as a date. The message says which way
 * the name and the type disagree; null when they agree.
 */
export function dateNameProblem(name: string, isDate: boolean): string | null {
  if (isDate === isDateFieldName(name)) return null;
  return isDate ? V.dateField : V.dateSuffixNotDate;
}

export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 128;

export function isPasswordLongEnough(value: string): boolean {
  return value.length >= PASSWORD_MIN_LENGTH;
}

/** Not blank: something other than white space. */
export function isNotBlank(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.trim().length > 0;
}

/**
 * A mobile number: 8 to 15 digits, or + and 8 to 15 digits not beginning with 0 (a country code); spaces, dots, dashes and parentheses are allowed between
 * ("(090) 123 4567", "+1 (415) 555-2671").
 */
export function isMobileNumber(value: string): boolean {
  // International, E.164: no country code begins with 0 ("+0000000000" was taken, and no gateway could text it).
  return /^(?:\+[1-9]\d{7,14}|\d{8,15})$/.test(normalizeMobileNumber(value));
}

/**
 * A mobile number as stored: without the spaces, dots, dashes and parentheses it may be written with
 * ("+84 (912) 345-678" → "+84912345678"), so that a search typed either way finds it and an SMS provider gets no separators. A national
 * and an international form of one number ("0912…", "+84912…") stay two forms: telling them apart needs the
 * number's country.
 */
export function normalizeMobileNumber(value: string): string {
  return value.replace(/[\s.()-]/g, '');
}

/**
 * A language tag as devices report it: BCP 47 ("vi", "vi-VN", "zh-Hant-TW") or a platform locale ("en_US").
 */
export function isLanguageTag(value: string): boolean {
  return /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/.test(value);
}

/**
 * An IANA timezone name this runtime's time zone database knows ("Asia/Ho_Chi_Minh", "UTC", "Etc/GMT-7"), in any
 * case, as Intl takes it. A name only: an offset ("+07:00", which newer runtimes take as a zone) is a device's
 * `timezone_offset`. Not through shared/format's zoneOffsetAt and its kept formatters: the storefront widgets
 * import this module, and shared/format brings the console's messages (i18n JSON) into their bundles.
 */
export function isTimezoneName(value: string): boolean {
  if (!/^[A-Za-z][\w+\-/]*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * The language a player is kept under: the tag's language alone, in small letters ("vi-VN", "VI_vn" → "vi").
 * Browsers report "vi-VN", apps "vi" or "vi_VN"; a segment on language "vi" must find them all, and the region
 * is the player's country, kept apart.
 */
export function languageCode(tag: string): string {
  return tag.split(/[-_]/)[0].toLowerCase();
}

/** A country as players' countries are kept: its ISO 3166 alpha-2 code, in capitals ("VN"). */
export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value);
}

/** A language as players' languages are kept (see languageCode): its 2- or 3-letter code, in small letters ("vi"). */
export function isLanguageCode(value: string): boolean {
  return /^[a-z]{2,3}$/.test(value);
}

/** A 6-digit one-time code. */
export function isOtp(value: string): boolean {
  return /^\d{6}$/.test(value);
}

/** Valid JSON text (additional data, additional data B). Empty means "none" and is valid. */
export function isJsonText(value: string): boolean {
  if (value.trim() === '') return true;
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The players' fields kept as codes, each with its rule, its message and how typed text becomes the code: the
 * device API (the country), segment conditions and the console's inputs all take them from here.
 */
export const PLAYER_CODE_FIELDS = {
  country: { valid: isCountryCode, message: 'validation.countryCode', normalise: (text: string) => text.toUpperCase() },
  language: { valid: isLanguageCode, message: 'validation.languageCode', normalise: (text: string) => text.toLowerCase() },
} as const;
export type PlayerCodeField = keyof typeof PLAYER_CODE_FIELDS;

/** Whether a player field is one kept as a code (country, language). */
export function isPlayerCodeField(field: string): field is PlayerCodeField {
  return Object.hasOwn(PLAYER_CODE_FIELDS, field);
}

/**
 * The offsets a device may report, in minutes east of UTC: the world's clocks, from UTC-12:00 to UTC+14:00
 * (Kiribati's Line Islands; Chatham's summer is +13:45). An application chooses among UTC_OFFSETS, which stop at
 * UTC+13:00 (spec §9); a visitor whose clock is further east is still a visitor, and refusing the offset would
 * refuse every batch of theirs (the storefront SDK drops a batch answered 400).
 */
export const TIMEZONE_OFFSET_MIN = -12 * 60;
export const TIMEZONE_OFFSET_MAX = 14 * 60;

/**
 * Items of a storefront SDK batch, and events of a device API call, at most: the schemas refuse more
 * (shared/contract/audience.ts) and the SDK sends no more in one request (storefront-widgets/sdk/outbox.ts). The
 * messages V.batchItems and V.batchEvents spell the number out in both languages (shared/contract/audience.test.ts).
 */
export const TRACK_BATCH_MAX = 50;

/**
 * The UTC offsets an application's timezone may be (minutes east of UTC): those in use between UTC-12 and
 * UTC+13 (spec §9), whole and half hours and the three quarter-hour ones (Nepal's +05:45, Eucla's +08:45,
 * Chatham's +12:45), west to east.
 */
export const UTC_OFFSETS: readonly number[] = [
  -720, -660, -600, -570, -540, -480, -420, -360, -300, -240, -210, -180, -120, -60, 0, 60, 120, 180, 210, 240, 270, 300, 330, 345,
  360, 390, 420, 480, 525, 540, 570, 600, 630, 660, 720, 765, 780,
];

export function isUtcOffset(value: number): boolean {
  return UTC_OFFSETS.includes(value);
}

/**
 * An iOS install's device token: the token APNs gave the app, as hexadecimal (32 bytes today, 64 characters; Apple
 * says the length may grow, so up to 100 bytes). An iOS install is reached through APNs only, which refuses
 * anything else as BadDeviceToken: the device API refuses it at once (V.apnsToken), and the APNs sender skips a
 * stored one that is not (server/delivery/senders/apns.ts).
 */
export const APNS_TOKEN_PATTERN = /^[0-9a-fA-F]{64,200}$/;

/** The i18n keys of the messages, one per rule. */
export const V = {
  email: 'validation.email',
  username: 'validation.username',
  url: 'validation.url',
  link: 'validation.link',
  siteUrlHttps: 'validation.siteUrlHttps',
  iconUrlHttps: 'validation.iconUrlHttps',
  applicationId: 'validation.applicationId',
  applicationName: 'validation.applicationName',
  dateField: 'validation.dateField',
  dateSuffixNotDate: 'validation.dateSuffixNotDate',
  passwordLength: 'validation.passwordLength',
  passwordTooLong: 'validation.passwordTooLong',
  confirmPassword: 'validation.confirmPassword',
  required: 'validation.required',
  /** A value of the wrong shape or kind, when no more precise rule says what is wrong. */
  invalid: 'validation.invalid',
  tooShort: 'validation.tooShort',
  outOfRange: 'validation.outOfRange',
  /** A number below its inclusive least ({min}); the API says the bound where zod gives it. */
  atLeast: 'validation.atLeast',
  /** A number above its inclusive most ({max}). */
  atMost: 'validation.atMost',
  tag: 'validation.tag',
  /** A personal tag in a message ({{name}} or {{name | default}}) typed wrong. */
  personalTag: 'validation.personalTag',
  date: 'validation.date',
  conditionsEmpty: 'validation.conditionsEmpty',
  /** An event's, a property's or an attribute's name (NAME_PATTERN). */
  eventName: 'validation.eventName',
  name: 'validation.name',
  mobileNumber: 'validation.mobileNumber',
  language: 'validation.language',
  timezone: 'validation.timezone',
  countryCode: PLAYER_CODE_FIELDS.country.message,
  languageCode: PLAYER_CODE_FIELDS.language.message,
  otp: 'validation.otp',
  number: 'validation.number',
  days: 'validation.days',
  times: 'validation.times',
  json: 'validation.json',
  tooLong: 'validation.tooLong',
  batchItems: 'validation.batchItems',
  batchEvents: 'validation.batchEvents',
  eventsCursor: 'validation.eventsCursor',
  scalarValue: 'validation.scalarValue',
  payloadUrl: 'validation.payloadUrl',
  eventTypes: 'validation.eventTypes',
  utcOffset: 'validation.utcOffset',
  /** An application's country for phone numbers that is not one (shared/validation/phone.ts). */
  phoneCountry: 'validation.phoneCountry',
  apnsToken: 'validation.apnsToken',
  /** An instant an API call names (a schedule, a page cursor): ISO 8601 with its zone. */
  dateTime: 'validation.dateTime',
  /** A `.date` field's value that is not a date (dateValueMs). */
  dateValue: 'validation.dateValue',
  /** A record's key (an attribute's or a property's name) left empty. */
  nameEmpty: 'validation.nameEmpty',
  /** A value of another kind than the field takes (shared/contract/common.ts). */
  expectedNumber: 'validation.expectedNumber',
  expectedInteger: 'validation.expectedInteger',
  expectedText: 'validation.expectedText',
  expectedBoolean: 'validation.expectedBoolean',
  expectedList: 'validation.expectedList',
  expectedObject: 'validation.expectedObject',
} as const;
