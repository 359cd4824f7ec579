import type { Lang } from '../../types';

/** Merchant text, as a string whatever the config holds (a preview may hand over a half-typed draft). */
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A colour as #rgb or #rrggbb, or the fallback: a colour is the one merchant value that reaches CSS. */
export const safeColor = (value: unknown, fallback: string): string =>
  typeof value === 'string' && /^#([0-9a-f]{3}){1,2}$/i.test(value) ? value : fallback;

/** The table of the visitor's language. */
export const inLang = <T>(table: Record<Lang, T>, lang: Lang): T => table[lang] || table.en;
