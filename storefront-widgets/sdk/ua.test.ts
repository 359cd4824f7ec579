import { describe, expect, it } from 'vitest';
import { parseUserAgent } from './ua';

/** Real user agent strings, as browsers send them. */
const CASES: [string, string, { os?: string; os_version?: string; browser?: string }][] = [
  [
    'Chrome on Windows 10',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { os: 'Windows', os_version: '10', browser: 'Chrome' },
  ],
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67',
    { os: 'Windows', os_version: '10', browser: 'Edge' },
  ],
  [
    'Firefox on Windows 7',
    'Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0',
    { os: 'Windows', os_version: '7', browser: 'Firefox' },
  ],
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
    { os: 'macOS', os_version: '10.15.7', browser: 'Safari' },
  ],
  [
    'Safari on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    { os: 'iOS', os_version: '17.4.1', browser: 'Safari' },
  ],
  [
    'Chrome on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    { os: 'iOS', os_version: '17.4', browser: 'Chrome' },
  ],
  [
    'Firefox on iPad',
    'Mozilla/5.0 (iPad; CPU OS 16_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15',
    { os: 'iOS', os_version: '16.7', browser: 'Firefox' },
  ],
  [
    'Chrome on Android',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.113 Mobile Safari/537.36',
    { os: 'Android', os_version: '14', browser: 'Chrome' },
  ],
  [
    'Samsung Internet on Android',
    'Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    { os: 'Android', os_version: '13', browser: 'Samsung Internet' },
  ],
  [
    'Coc Coc on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) coc_coc_browser/123.0.226 Chrome/117.0.5938.226 Safari/537.36',
    { os: 'Windows', os_version: '10', browser: 'Coc Coc' },
  ],
  [
    'Opera on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36 OPR/109.0.0.0',
    { os: 'Windows', os_version: '10', browser: 'Opera' },
  ],
  [
    "Facebook's in-app browser on iPhone",
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/455.0.0.38.108;FBBV/570370428;FBDV/iPhone14,5]',
    { os: 'iOS', os_version: '17.3.1', browser: 'Facebook' },
  ],
  [
    'Zalo in-app browser on Android',
    'Mozilla/5.0 (Linux; Android 12; SM-A325F Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.118 Mobile Safari/537.36 Zalo android/12100619 ZaloTheme/light ZaloLanguage/vi',
    { os: 'Android', os_version: '12', browser: 'Zalo' },
  ],
  [
    'Firefox on Linux',
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    { os: 'Linux', browser: 'Firefox' },
  ],
  [
    'Chrome on a Chromebook',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { os: 'Chrome OS', os_version: '14541.0.0', browser: 'Chrome' },
  ],
];

describe('the user agent parser', () => {
  for (const [name, ua, expected] of CASES) {
    it(`reads ${name}`, () => {
      expect(parseUserAgent(ua)).toEqual(expected);
    });
  }

  it('says nothing of what it does not recognise', () => {
    expect(parseUserAgent('curl/8.5.0')).toEqual({});
    expect(parseUserAgent('')).toEqual({});
  });
});
