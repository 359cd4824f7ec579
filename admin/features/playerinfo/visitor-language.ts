import { DEFAULT_LANGUAGE, type Language, isLanguage } from '../../../shared/i18n';
import { localStore } from '../../stores/session-storage';

/** The console's language a language tag names ("en-US", "vi_VN", "EN" → en, vi), or null for any other. */
export function languageOfTag(tag: string | null | undefined): Language | null {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return isLanguage(primary) ? primary : null;
}

/**
 * The language the public playerinfo page speaks to a visitor who has not chosen one on it. The page is not the
 * console: a shopper opens it, so the console's own setting (Vietnamese by default, spec §1) has no say, and the
 * page never writes it. In order:
 *
 * 1. The browser's languages (navigator.languages), in the browser's order: the first that is Vietnamese or
 *    English in any region. That is the person reading now, on this device, as they set it up.
 * 2. The language on their record (what the SDK or app reported of the device): it helps when the browser asks
 *    only for languages the page does not have (a phone set to French whose app reported Vietnamese), and it is
 *    only second because the link may be opened on another device, or by a person who changed their browser since.
 * 3. English when the browser named languages but neither of ours: a reader of neither is likelier to read English.
 *    With nothing known at all (no browser list, no record), the product's default, Vietnamese.
 *
 * What the visitor picks on the page's switch comes before all of these (PlayerInfoPage), and is remembered on the
 * device (visitorChoice).
 */
export function visitorLanguage(browserLanguages: readonly string[], recordLanguage: string | null | undefined): Language {
  for (const tag of browserLanguages) {
    const language = languageOfTag(tag);
    if (language) return language;
  }
  const recorded = languageOfTag(recordLanguage);
  if (recorded) return recorded;
  return browserLanguages.some((tag) => tag.trim() !== '') ? 'en' : DEFAULT_LANGUAGE;
}

/** The browser's preferred languages, most preferred first (navigator.language alone where the list is missing). */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  if (navigator.languages && navigator.languages.length > 0) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}

/**
 * localStorage key of the language a visitor picked on the page. Its own key, not the console's settings: a member
 * who opens a shopper's link in their own browser keeps the console in the language they set for it.
 */
export const VISITOR_LANGUAGE_KEY = 'nudge.playerinfo.language';

/** The language the visitor picked on this device earlier, or null (none, storage refused, or not one of ours). */
export function visitorChoice(): Language | null {
  try {
    const stored = localStore()?.getItem(VISITOR_LANGUAGE_KEY);
    return isLanguage(stored) ? stored : null;
  } catch {
    return null;
  }
}

/** Remembers the visitor's pick on this device; where storage is refused, it lasts as long as the page. */
export function rememberVisitorChoice(language: Language): void {
  try {
    localStore()?.setItem(VISITOR_LANGUAGE_KEY, language);
  } catch {
    // Storage full or refused: the pick still holds on the page.
  }
}
