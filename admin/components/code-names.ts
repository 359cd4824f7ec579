/*
 * Countries and languages by name in the console's language, with their codes: the player screens, and the
 * application's country for phone numbers (phone-country-select.tsx).
 */

/** "Việt Nam (VN)": the name of a country (region) or language code in the console's language with the code; null when Intl has none. */
export function codeName(type: 'region' | 'language', code: string, language: string): string | null {
  try {
    const name = new Intl.DisplayNames([language], { type, fallback: 'none' }).of(code);
    return name && name !== code ? `${name} (${code})` : null;
  } catch {
    return null;
  }
}

/** A country code as its name in the console's language, with the code for search ("Việt Nam (VN)"). */
export function countryName(code: string | null, language: string): string | null {
  if (!code) return null;
  const upper = code.toUpperCase();
  return codeName('region', upper, language) ?? upper;
}

/** A language code as its name in the console's language, with the code ("Tiếng Việt (vi)"). */
export function languageName(code: string | null, language: string): string | null {
  if (!code) return null;
  const lower = code.toLowerCase();
  return codeName('language', lower, language) ?? lower;
}
