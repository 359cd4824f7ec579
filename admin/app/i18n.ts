import i18next, { type i18n as I18n } from 'i18next';
import { useCallback } from 'react';
import { initReactI18next, useTranslation } from 'react-i18next';
import { abbreviateNumber, formatDay, formatNumber } from '../../shared/format';
import { type Language, resources } from '../../shared/i18n';
import { selectLanguage, selectPageLanguage } from '../stores/settings-slice';
import { useAppStore } from '../stores/store';

/**
 * One i18next instance over the shared dictionaries. Placeholders are `{name}` as in shared/i18n, and
 * React escapes what it renders, so i18next must not escape a second time.
 */
export function createI18n(language: Language): I18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources: { vi: { translation: resources.vi }, en: { translation: resources.en } },
    lng: language,
    fallbackLng: 'en',
    interpolation: { prefix: '{', suffix: '}', escapeValue: false },
    // Resources are bundled: initialising synchronously means the first render is already translated.
    initAsync: false,
    showSupportNotice: false,
  });
  return instance;
}

/** The console's instance, following the language in the store. */
export const i18n = createI18n(selectLanguage(useAppStore.getState()));

useAppStore.subscribe((state) => {
  const language = selectLanguage(state);
  if (i18n.language !== language) void i18n.changeLanguage(language);
  // The document speaks the page's language: a public page's own while it is shown (the playerinfo page), else this.
  if (typeof document !== 'undefined') document.documentElement.lang = selectPageLanguage(state);
});

/**
 * The console's current language, as shared/format's formatters take it. Read through useTranslation, so the
 * component renders again when the language changes, together with its `t`.
 */
export function useLanguage(): Language {
  const { i18n: instance } = useTranslation();
  return instance.language === 'en' ? 'en' : 'vi';
}

/** Numbers as the console's current language writes them (shared/format formatNumber): `number(1234)`. */
export function useFormatNumber(): (value: number) => string {
  const lang = useLanguage();
  return useCallback((value: number) => formatNumber(value, lang), [lang]);
}

/**
 * Numbers abbreviated with k, M, G… (shared/format abbreviateNumber) with the decimal mark of the console's
 * language: `abbreviate(1500)` is 1,5k in Vietnamese and 1.5k in English.
 */
export function useAbbreviateNumber(): (value: number, digits?: number) => string {
  const lang = useLanguage();
  return useCallback((value: number, digits?: number) => abbreviateNumber(value, digits, lang), [lang]);
}

/** A chart's day (YYYY-MM-DD) as the console's language writes it (shared/format formatDay): "Nov 4", "4 thg 11". */
export function useFormatDay(): (day: string) => string {
  const lang = useLanguage();
  return useCallback((day: string) => formatDay(day, lang), [lang]);
}
