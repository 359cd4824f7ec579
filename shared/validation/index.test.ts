import { describe, expect, it } from 'vitest';
import {
  APPLICATION_ID_MAX_LENGTH,
  APPLICATION_ID_MIN_LENGTH,
  EMAIL_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PAYLOAD_URL_MAX_LENGTH,
  V,
  dateNameProblem,
  dateValueMs,
  isApplicationId,
  isCountryCode,
  isDateFieldName,
  isEmail,
  isExternalLink,
  isHttpsUrl,
  isJsonText,
  isLanguageCode,
  isLanguageTag,
  isMobileNumber,
  isNotBlank,
  isOtp,
  isPayloadUrl,
  isPasswordLongEnough,
  isTimezoneName,
  isUrl,
  isUsername,
  languageCode,
} from './index';

/** Runs one predicate over a table and reports every value it judged wrongly, not just the first. */
function misjudged(rule: (value: string) => boolean, expected: Record<string, boolean>): string[] {
  return Object.entries(expected)
    .filter(([value, ok]) => rule(value) !== ok)
    .map(([value, ok]) => `${JSON.stringify(value)} should be ${ok ? 'accepted' : 'refused'}`);
}

describe('email', () => {
  it('accepts ordinary addresses, including plus tags, subdomains and capitals', () => {
    expect(
      misjudged(isEmail, {
        'ann@example.com': true,
        'ann.lee@example.com': true,
        'ann+news@example.co.uk': true,
        'ANN@EXAMPLE.COM': true,
        'a_b-c@mail.example-shop.vn': true,
        "o'neil@example.ie": true,
      }),
    ).toEqual([]);
  });

  it('refuses what is not an address', () => {
    expect(
      misjudged(isEmail, {
        '': false,
        'ann': false,
        'ann@': false,
        '@example.com': false,
        'ann@example': false,
        'ann@@example.com': false,
        'ann@b@example.com': false,
        'ann@example.com.': false,
        'ann@-example.com': false,
        'ann@example-.com': false,
        'ann@exa_mple.com': false,
        'ann@[127.0.0.1]': false,
      }),
    ).toEqual([]);
  });

  it('refuses doubled, leading and trailing dots', () => {
    expect(
      misjudged(isEmail, {
        'a..b@x.com': false,
        '.ann@x.com': false,
        'ann.@x.com': false,
        'ann@x..com': false,
      }),
    ).toEqual([]);
  });

  it('refuses spaces anywhere, so an untrimmed address is caught', () => {
    expect(
      misjudged(isEmail, { ' ann@x.com': false, 'ann@x.com ': false, 'an n@x.com': false, 'ann@x .com': false }),
    ).toEqual([]);
  });

  it('refuses non-ASCII letters, which the mail path does not carry', () => {
    expect(misjudged(isEmail, { 'nguyễn@x.com': false, 'ann@ví-dụ.vn': false })).toEqual([]);
  });

  it('accepts exactly 254 characters and refuses 255', () => {
    const domain = `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.com`; // 195 characters
    const at254 = `${'l'.repeat(EMAIL_MAX_LENGTH - domain.length - 1)}@${domain}`;
    expect(at254).toHaveLength(254);
    expect(isEmail(at254)).toBe(true);
    expect(isEmail(`l${at254}`)).toBe(false);
  });

  it('refuses a domain label longer than 63 characters', () => {
    expect(isEmail(`ann@${'d'.repeat(63)}.com`)).toBe(true);
    expect(isEmail(`ann@${'d'.repeat(64)}.com`)).toBe(false);
  });
});

describe('username', () => {
  it('allows letters, digits and underscore only', () => {
    expect(
      misjudged(isUsername, {
        ann: true,
        Ann_2024: true,
        _: true,
        '123': true,
        '': false,
        'ann lee': false,
        'ann-lee': false,
        'ann.lee': false,
        'ann@x': false,
        'nguyễn': false,
        ' ann': false,
      }),
    ).toEqual([]);
  });
});

describe('url', () => {
  it('accepts http, https and ftp with a host', () => {
    expect(
      misjudged(isUrl, {
        'http://example.com': true,
        'https://example.com/path?q=1#top': true,
        'ftp://files.example.com/a.zip': true,
        'http://localhost:3000': true,
        'http://192.168.1.10/': true,
        'HTTPS://EXAMPLE.COM': true,
        'https://ví-dụ.vn': true,
      }),
    ).toEqual([]);
  });

  it("refuses a scheme with no host, such as 'http://'", () => {
    expect(misjudged(isUrl, { 'http://': false, 'https://': false, 'ftp://': false })).toEqual([]);
  });

  it('refuses other schemes and relative addresses', () => {
    expect(
      misjudged(isUrl, {
        'javascript:alert(1)': false,
        'mailto:ann@example.com': false,
        'tel:+84901234567': false,
        'file:///etc/passwd': false,
        'data:text/html,<b>x</b>': false,
        'example.com': false,
        '//example.com': false,
        '/path': false,
        '': false,
      }),
    ).toEqual([]);
  });

  it('refuses a space inside the host', () => {
    expect(misjudged(isUrl, { 'http://exa mple.com': false, 'https:// example.com': false })).toEqual([]);
  });
});

describe('external link', () => {
  it('accepts http:, https:, mailto: and tel: links, in any letter case', () => {
    expect(
      misjudged(isExternalLink, {
        'https://shop.example.com/sale': true,
        'http://example.com': true,
        'HTTPS://EXAMPLE.COM': true,
        'mailto:ann@example.com': true,
        'MAILTO:ann@example.com': true,
        'tel:+84901234567': true,
      }),
    ).toEqual([]);
  });

  it('refuses javascript: and data: links, whatever their case', () => {
    expect(
      misjudged(isExternalLink, {
        'javascript:alert(1)': false,
        'JavaScript:alert(document.cookie)': false,
        ' javascript:alert(1)': false,
        'data:text/html,<script>alert(1)</script>': false,
        'vbscript:msgbox(1)': false,
      }),
    ).toEqual([]);
  });

  it('refuses other schemes and links with no scheme', () => {
    expect(
      misjudged(isExternalLink, {
        'ftp://example.com': false,
        'example.com': false,
        '//example.com': false,
        '': false,
      }),
    ).toEqual([]);
  });

  it('refuses a link that leads nowhere', () => {
    expect(
      misjudged(isExternalLink, { 'http://': false, 'https://': false, 'http:': false, 'mailto:': false, 'tel:': false }),
    ).toEqual([]);
  });

  it('tolerates surrounding blanks but refuses spaces inside', () => {
    expect(
      misjudged(isExternalLink, {
        '  https://example.com  ': true,
        'https://exa mple.com': false,
        'https://example.com/a b': false,
        'mailto:ann @example.com': false,
      }),
    ).toEqual([]);
  });
});

describe('https-only url (site URL, icon URL)', () => {
  it('accepts https with a host', () => {
    expect(
      misjudged(isHttpsUrl, {
        'https://shop.example.com': true,
        'https://cdn.example.com/icon.png': true,
        'HTTPS://EXAMPLE.COM': true,
      }),
    ).toEqual([]);
  });

  it('refuses http, ftp, a bare scheme and garbage', () => {
    expect(
      misjudged(isHttpsUrl, {
        'http://shop.example.com': false,
        'ftp://example.com': false,
        'https://': false,
        'shop.example.com': false,
        'javascript:alert(1)': false,
        '': false,
      }),
    ).toEqual([]);
  });
});

describe('application id', () => {
  it(`is ${APPLICATION_ID_MIN_LENGTH} to ${APPLICATION_ID_MAX_LENGTH} characters`, () => {
    expect(APPLICATION_ID_MIN_LENGTH).toBe(3);
    expect(APPLICATION_ID_MAX_LENGTH).toBe(64);
    expect(isApplicationId('ab')).toBe(false);
    expect(isApplicationId('abc')).toBe(true);
    expect(isApplicationId('a'.repeat(64))).toBe(true);
    expect(isApplicationId('a'.repeat(65))).toBe(false);
    expect(isApplicationId('')).toBe(false);
  });

  it('allows letters, digits and underscore only', () => {
    expect(
      misjudged(isApplicationId, {
        my_shop_2024: true,
        ABC: true,
        '123': true,
        'my-shop': false,
        'my shop': false,
        'my.shop': false,
        'shop.myshopify.com': false,
        'cửa_hàng': false,
        ' abc': false,
        'abc/def': false,
      }),
    ).toEqual([]);
  });
});

describe('date field name', () => {
  it('must end with .date after a name', () => {
    expect(
      misjudged(isDateFieldName, {
        'birthday.date': true,
        'order.last.date': true,
        'ngày_sinh.date': true,
        '.date': false,
        date: false,
        'birthday_date': false,
        'birthday.Date': false,
        'birthday.date ': false,
        'birthday.dates': false,
        'birthday.date.x': false,
        '': false,
      }),
    ).toEqual([]);
  });

  it('and only a date may end so: each disagreement has its own message', () => {
    expect(dateNameProblem('birthday.date', true)).toBeNull();
    expect(dateNameProblem('plan', false)).toBeNull();
    expect(dateNameProblem('birthday', true)).toBe(V.dateField);
    expect(dateNameProblem('visit.date', false)).toBe(V.dateSuffixNotDate);
  });
});

describe('a .date value', () => {
  it('reads ISO 8601 dates and times, a time without a zone as UTC, and epoch numbers in ms or seconds', () => {
    expect(dateValueMs('1990-05-12')).toBe(Date.UTC(1990, 4, 12));
    expect(dateValueMs(' 2026-12-02T09:30:00+07:00 ')).toBe(Date.UTC(2026, 11, 2, 2, 30));
    expect(dateValueMs('2026-12-02T09:30:00.123456Z')).toBe(Date.UTC(2026, 11, 2, 9, 30, 0, 123));
    expect(dateValueMs('2026-12-02 09:30')).toBe(Date.UTC(2026, 11, 2, 9, 30));
    expect(dateValueMs('2026-12-02T09:30-0500')).toBe(Date.UTC(2026, 11, 2, 14, 30));
    expect(dateValueMs('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(dateValueMs(1732790000)).toBe(1732790000000);
    expect(dateValueMs(1732790000123)).toBe(1732790000123);
  });

  it('reads nothing else: days a month lacks, other orders of day and month, words, booleans, out of range', () => {
    for (const value of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-12-02T24:00Z', '2026-12-02T10:60', '12/05/1990', '05-12-1990', '1', 'soon', '', true, false, Number.NaN, 1e20]) {
      expect(dateValueMs(value), String(value)).toBeNull();
    }
  });
});

describe('password length', () => {
  it(`needs at least ${PASSWORD_MIN_LENGTH} characters`, () => {
    expect(PASSWORD_MIN_LENGTH).toBe(6);
    expect(isPasswordLongEnough('')).toBe(false);
    expect(isPasswordLongEnough('12345')).toBe(false);
    expect(isPasswordLongEnough('123456')).toBe(true);
    expect(isPasswordLongEnough('mật khẩu')).toBe(true);
  });
});

describe('not blank', () => {
  it('needs something other than white space', () => {
    expect(isNotBlank('Shop')).toBe(true);
    expect(isNotBlank('  a  ')).toBe(true);
    expect(isNotBlank('')).toBe(false);
    expect(isNotBlank('   ')).toBe(false);
    expect(isNotBlank('\t\n')).toBe(false);
    expect(isNotBlank('\u00a0\u3000')).toBe(false);
    expect(isNotBlank(null)).toBe(false);
    expect(isNotBlank(undefined)).toBe(false);
  });
});

describe('mobile number', () => {
  it('accepts 8 to 15 digits, with an optional leading + and spaces, dots, dashes or parentheses between', () => {
    expect(
      misjudged(isMobileNumber, {
        '0901234567': true,
        '+84901234567': true,
        '+84 90 123 4567': true,
        '090-123-4567': true,
        '090.123.4567': true,
        '(090) 123 4567': true,
        '+1 (415) 555-2671': true,
        '(+84) 90 123 4567': true,
        '12345678': true,
        '123456789012345': true,
      }),
    ).toEqual([]);
  });

  it('refuses too few or too many digits, letters, misplaced + and a country code beginning with 0', () => {
    expect(
      misjudged(isMobileNumber, {
        '+0000000000': false,
        '+0901234567': false,
        '1234567': false,
        '1234567890123456': false,
        '': false,
        '+': false,
        '09012345ab': false,
        '++84901234567': false,
        '84+901234567': false,
        '(090) 12': false,
        '090/123/4567': false,
      }),
    ).toEqual([]);
  });
});

describe('language of a device', () => {
  it('takes the tags browsers and apps report, and refuses names and stray characters', () => {
    expect(
      misjudged(isLanguageTag, {
        vi: true,
        'vi-VN': true,
        en_US: true,
        'zh-Hant-TW': true,
        fil: true,
        '': false,
        v: false,
        Vietnamese: false,
        'vi-': false,
        'vi VN': false,
        'tiếng việt': false,
      }),
    ).toEqual([]);
  });

  it('keeps the language alone, in small letters', () => {
    expect(['vi', 'vi-VN', 'VI_vn', 'zh-Hant-TW', 'EN'].map(languageCode)).toEqual(['vi', 'vi', 'vi', 'zh', 'en']);
  });
});

describe('timezone of a device', () => {
  it('takes the zone names of the time zone database in any case, and refuses offsets, countries and made-up zones', () => {
    expect(
      misjudged(isTimezoneName, {
        'Asia/Ho_Chi_Minh': true,
        'asia/ho_chi_minh': true,
        'America/Argentina/Buenos_Aires': true,
        'America/Port-au-Prince': true,
        UTC: true,
        'Etc/GMT-7': true,
        '': false,
        '+07:00': false,
        'UTC+7': false,
        Vietnam: false,
        'Mars/Olympus_Mons': false,
        'Asia/Ho Chi Minh': false,
      }),
    ).toEqual([]);
  });
});

describe('country and language codes, as players keep them', () => {
  it('takes a country as its two capital letters only', () => {
    expect(misjudged(isCountryCode, { VN: true, US: true, vn: false, V: false, VNM: false, Vietnam: false, 'V1': false, '': false, ' VN': false })).toEqual([]);
  });

  it('takes a language as its two or three small letters only', () => {
    expect(misjudged(isLanguageCode, { vi: true, en: true, fil: true, VI: false, v: false, 'vi-VN': false, vi_VN: false, viet: false, '': false })).toEqual([]);
  });
});

describe('one-time code', () => {
  it('is exactly 6 ASCII digits', () => {
    expect(
      misjudged(isOtp, {
        '123456': true,
        '000000': true,
        '12345': false,
        '1234567': false,
        '12345a': false,
        ' 123456': false,
        '123 456': false,
        '١٢٣٤٥٦': false,
        '': false,
      }),
    ).toEqual([]);
  });
});

describe('JSON text (additional data)', () => {
  it('accepts valid JSON and treats empty as "none"', () => {
    expect(
      misjudged(isJsonText, {
        '': true,
        '   ': true,
        '{"coupon":"SALE10","n":1}': true,
        '[1, 2]': true,
        '"text"': true,
        'null': true,
      }),
    ).toEqual([]);
  });

  it('refuses what JSON.parse refuses: single quotes, bare keys, trailing commas, cut-off text', () => {
    expect(
      misjudged(isJsonText, {
        "{'a': 1}": false,
        '{a: 1}': false,
        '{"a": 1,}': false,
        '{"a": ': false,
        undefined: false,
      }),
    ).toEqual([]);
  });
});

describe('payload URL (webhooks)', () => {
  it('accepts http and https addresses with a host, port, path and query', () => {
    expect(
      misjudged(isPayloadUrl, {
        'https://hooks.example.com/nudge': true,
        'http://hooks.example.com': true,
        'https://hooks.example.com:8443/in?source=nudge&x=1': true,
        'https://xn--v-dua.vn/webhook': true,
        'http://203.0.113.9/hook': true,
        'https://[2001:db8::1]/hook': true,
      }),
    ).toEqual([]);
  });

  it('refuses other schemes, a missing host and spaces', () => {
    expect(
      misjudged(isPayloadUrl, {
        '': false,
        'hooks.example.com/nudge': false,
        'ftp://hooks.example.com/nudge': false,
        'file:///etc/passwd': false,
        'javascript:alert(1)': false,
        'gopher://hooks.example.com/': false,
        'https://': false,
        'https:///path': false,
        'https:\\\\hooks.example.com\\x': false,
        ' https://hooks.example.com': false,
        'https://hooks.example.com/a b': false,
      }),
    ).toEqual([]);
  });

  it('refuses credentials in the address, which every receiver and log would see', () => {
    expect(
      misjudged(isPayloadUrl, {
        'https://user:secret@hooks.example.com/': false,
        'https://user@hooks.example.com/': false,
        'https://:secret@hooks.example.com/': false,
      }),
    ).toEqual([]);
  });

  it('refuses an address longer than 2000 characters', () => {
    const base = 'https://hooks.example.com/';
    expect(isPayloadUrl(base + 'a'.repeat(PAYLOAD_URL_MAX_LENGTH - base.length))).toBe(true);
    expect(isPayloadUrl(base + 'a'.repeat(PAYLOAD_URL_MAX_LENGTH - base.length + 1))).toBe(false);
  });
});

describe('message keys', () => {
  it('are namespaced under validation.', () => {
    for (const key of Object.values(V)) expect(key).toMatch(/^validation\.[A-Za-z]+$/);
  });
});
