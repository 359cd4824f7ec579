/** What a user agent string says of the browser, as the player's os, os_version and browser fields. */
export interface UaFacts {
  os?: string;
  os_version?: string;
  browser?: string;
}

/*
 * A small parser for the browsers shops see, not a full UA database: order matters, since most browsers
 * carry the tokens of the ones they descend from (Edge and Opera say Chrome, Chrome says Safari, every
 * iOS browser says Safari and uses its own token: CriOS, FxiOS, EdgiOS).
 */
const OSES: [string, RegExp][] = [
  ['Windows', /Windows NT ([\d.]+)/],
  ['iOS', /(?:iPhone|iPad|iPod).*? OS ([\d_]+)/],
  ['Android', /Android ([\d.]+)/],
  ['Chrome OS', /CrOS \S+ ([\d.]+)/],
  ['macOS', /Mac OS X ([\d_.]+)/],
  ['Linux', /Linux()/],
];

const BROWSERS: [string, RegExp][] = [
  ['Edge', /Edg(?:e|A|iOS)?\//],
  ['Opera', /OPR\/|Opera/],
  ['Samsung Internet', /SamsungBrowser\//],
  ['Coc Coc', /coc_coc_browser\//],
  ['UC Browser', /UCBrowser\//],
  ['Facebook', /FBAN|FBAV/],
  ['Zalo', /Zalo/],
  ['Firefox', /Firefox\/|FxiOS\//],
  ['Chrome', /Chrome\/|CriOS\//],
  ['Safari', /Safari\//],
];

/** Windows NT versions as people know them. */
const WINDOWS: Record<string, string> = { '10.0': '10', '6.3': '8.1', '6.2': '8', '6.1': '7' };

/** The OS, its version and the browser a user agent names; fields it doesn't reveal are left out. */
export function parseUserAgent(ua: string): UaFacts {
  const facts: UaFacts = {};
  for (const [os, pattern] of OSES) {
    const match = pattern.exec(ua);
    if (!match) continue;
    facts.os = os;
    const version = match[1]?.replace(/_/g, '.');
    if (version) facts.os_version = os === 'Windows' ? (WINDOWS[version] ?? version) : version;
    break;
  }
  for (const [browser, pattern] of BROWSERS) {
    if (pattern.test(ua)) {
      facts.browser = browser;
      break;
    }
  }
  return facts;
}
