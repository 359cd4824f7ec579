/*
 * Countries and languages by name in the console's language, with their codes: the player screens, the player
 * list's country filter, and the application's country for phone numbers (phone-country-select.tsx).
 */
import { PHONE_COUNTRIES } from '../../shared/validation/phone-countries';

/** Intl's names of one kind in one language, made once: a list of countries asks for two hundred. */
const displayNames = new Map<string, Intl.DisplayNames | null>();

/** The name Intl gives a region or language code in `language`, or null when it has none. */
function intlName(type: 'region' | 'language', code: string, language: string): string | null {
  const key = `${type}:${language}`;
  let names = displayNames.get(key);
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames([language], { type, fallback: 'none' });
    } catch {
      names = null;
    }
    displayNames.set(key, names);
  }
  try {
    const name = names?.of(code);
    return name && name !== code ? name : null;
  } catch {
    // A code Intl refuses outright ("V", "123"): no name.
    return null;
  }
}

/** "Việt Nam (VN)": the name of a country (region) or language code in the console's language with the code; null when Intl has none. */
export function codeName(type: 'region' | 'language', code: string, language: string): string | null {
  const name = intlName(type, code, language);
  return name ? `${name} (${code})` : null;
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

/** A country or language to choose: its code, as players carry it and the API takes it, and its names. */
export interface CodeChoice {
  /** A country's ISO 3166-1 alpha-2 code in capitals ("VN"), a language's code in small letters ("vi"). */
  code: string;
  /** Its name in the console's language ("Việt Nam"), or the code when Intl has none. */
  name: string;
  /** Its names in the console's language and in English, folded as a search compares them (searchText). */
  names: string[];
  /** The words of those names, folded. */
  words: string[];
}

/**
 * The languages the console offers by name: every ISO 639-1 language, and the few that devices report by a
 * three-letter code for want of a two-letter one (Filipino, Cantonese, Cebuano, Hmong, Hawaiian). Players keep the
 * language alone (shared/validation languageCode), so these are the codes a segment on language can match.
 */
export const LANGUAGE_CODES: readonly string[] = [
  ...'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'.split(' '),
  ...['fil', 'yue', 'ceb', 'hmn', 'haw'],
];

const choiceLists = new Map<string, CodeChoice[]>();

/** `codes` of one kind by name in `language` and in that language's order, made once per kind and language. */
function choicesOf(type: 'region' | 'language', codes: readonly string[], language: string): CodeChoice[] {
  const key = `${type}:${language}`;
  let list = choiceLists.get(key);
  if (!list) {
    const collator = new Intl.Collator(language);
    list = codes
      .map((code) => {
        const name = intlName(type, code, language) ?? code;
        const both = [name, intlName(type, code, 'en') ?? code];
        return {
          code,
          name,
          names: [...new Set(both.map(searchText))],
          words: [...new Set(both.flatMap((text) => text.split(/[\s\-,.()&]+/)).map(searchText).filter(Boolean))],
        };
      })
      .sort((a, b) => collator.compare(a.name, b.name));
    choiceLists.set(key, list);
  }
  return list;
}

/** The countries' codes, listed once rather than on every call of countryChoices (each render of a picker). */
const COUNTRY_CODES: readonly string[] = [...PHONE_COUNTRIES.keys()];

/**
 * Every country the console offers, by name in `language` and in that language's order. One list for every country
 * picker: the codes of shared/validation/phone-countries, every country and territory with a numbering plan (ISO
 * 3166-1 alpha-2, with Kosovo's XK), which is every one a player can be in.
 */
export function countryChoices(language: string): CodeChoice[] {
  return choicesOf('region', COUNTRY_CODES, language);
}

/** Every language the console offers (LANGUAGE_CODES), by name in `language` and in that language's order. */
export function languageChoices(language: string): CodeChoice[] {
  return choicesOf('language', LANGUAGE_CODES, language);
}

/**
 * Text as a search compares it: small letters without accents, spaces or punctuation, so "viet nam", "Việt Nam" and
 * "vietnam" are the same ("đ" is a letter of its own in Unicode, not a "d" with a mark).
 */
export function searchText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The countries or languages a search names, best first: the one whose code it is ("vn"), then those whose name
 * begins with it ("viet"), then those with a word that does ("kingdom" finds the United Kingdom), then those whose
 * name holds it anywhere. Names in the console's language and in English both count, so "vietnam" finds Việt Nam in
 * Vietnamese too. Within each, the list's own order; every choice, in order, for an empty search.
 */
export function findChoices(choices: readonly CodeChoice[], query: string): CodeChoice[] {
  const wanted = searchText(query);
  if (wanted === '') return [...choices];
  const rank = (choice: CodeChoice): number => {
    if (choice.code.toLowerCase() === wanted) return 0;
    if (choice.names.some((name) => name.startsWith(wanted))) return 1;
    if (choice.words.some((word) => word.startsWith(wanted))) return 2;
    if (choice.names.some((name) => name.includes(wanted))) return 3;
    return -1;
  };
  return choices
    .map((choice) => ({ choice, rank: rank(choice) }))
    .filter((entry) => entry.rank >= 0)
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.choice);
}
