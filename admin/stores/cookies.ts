/** Spec §3: the signed-in user's id, email, name and created date live in cookies for 3 days. */
export const SESSION_COOKIE_DAYS = 3;
const DAY_SECONDS = 24 * 60 * 60;

/** Reads one cookie of this page; undefined when it is absent or expired. */
export function getCookie(name: string): string | undefined {
  if (typeof document === 'undefined') return undefined;
  for (const pair of document.cookie.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    if (pair.slice(0, at).trim() === name) {
      try {
        return decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Writes a cookie for the whole console that expires after `days` days. */
export function setCookie(name: string, value: string, days = SESSION_COOKIE_DAYS): void {
  if (typeof document === 'undefined') return;
  const secure = typeof location !== 'undefined' && location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${days * DAY_SECONDS}; Path=/; SameSite=Lax${secure}`;
}

export function removeCookie(name: string): void {
  if (typeof document === 'undefined') return;
  // Both forms: some engines ignore Max-Age=0 but all honour a past Expires.
  document.cookie = `${name}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; SameSite=Lax`;
}
