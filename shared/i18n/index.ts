import en from './en.json';
import vi from './vi.json';

/** Every user-visible string, errors included, in the two interface languages. */
export const LANGUAGES = ['vi', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'vi';
/** Inside the shop platform's frame the console speaks English by default. */
export const EMBEDDED_DEFAULT_LANGUAGE: Language = 'en';

export const resources = { vi, en } as const;

export function isLanguage(value: unknown): value is Language {
  return value === 'vi' || value === 'en';
}

/** The language a request asks for: an explicit `vi`/`en`, else the first of Accept-Language we speak. */
export function pickLanguage(header: string | undefined | null, fallback: Language = DEFAULT_LANGUAGE): Language {
  if (!header) return fallback;
  for (const part of header.split(',')) {
    const tag = part.split(';')[0].trim().toLowerCase().slice(0, 2);
    if (isLanguage(tag)) return tag;
  }
  return fallback;
}

function lookup(tree: unknown, key: string): string | undefined {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (node && typeof node === 'object' && part in node) node = (node as Record<string, unknown>)[part];
    else return undefined;
  }
  return typeof node === 'string' ? node : undefined;
}

/** Translate `key` with `{name}` placeholders; the key itself comes back when it is missing. */
export function translate(lang: Language, key: string, params: Record<string, string | number> = {}): string {
  const text = lookup(resources[lang], key) ?? lookup(resources.en, key) ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** Every leaf key of a translation tree, dotted. */
export function leafKeys(tree: unknown, prefix = ''): string[] {
  if (typeof tree !== 'object' || tree === null) return [prefix];
  return Object.entries(tree).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
}
