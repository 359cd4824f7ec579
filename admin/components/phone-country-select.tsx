import { Select } from '@shopify/polaris';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_PHONE_COUNTRY, PHONE_COUNTRIES, isPhoneCountry } from '../../shared/validation/phone-countries';
import { useLanguage } from '../app/i18n';
import { countryChoices, countryName } from './code-names';

/**
 * The country a new application starts with for phone numbers: the first region this browser's languages name
 * ("vi-VN", "en-GB"), else Vietnam, as the console's default language.
 */
export function defaultPhoneCountry(languages: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages): string {
  for (const tag of languages) {
    try {
      // The region the tag names, not one guessed for its language ("en" is not the United States).
      const region = new Intl.Locale(tag).region;
      if (region && isPhoneCountry(region)) return region;
    } catch {
      // Not a language tag Intl reads: the next one.
    }
  }
  return DEFAULT_PHONE_COUNTRY;
}

export interface PhoneCountrySelectProps {
  value: string;
  onChange(value: string): void;
  /** Its problem, an i18n key (form errors). */
  error?: string;
}

/**
 * An application's country for phone numbers: every country with a known numbering plan, by name in the console's
 * language with its code and calling code ("Việt Nam (VN) +84"). What it decides is said under it, for the country chosen:
 * a number written the national way is read in this country and kept with its calling code.
 */
export function PhoneCountrySelect({ value, onChange, error }: PhoneCountrySelectProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const options = useMemo(
    () => countryChoices(lang).map(({ code }) => ({ value: code, label: `${countryName(code, lang)} +${PHONE_COUNTRIES.get(code)}` })),
    [lang],
  );
  return (
    <Select
      label={t('applications.phoneCountry.label')}
      options={options}
      value={value}
      onChange={onChange}
      helpText={error || !isPhoneCountry(value) ? undefined : t('applications.phoneCountry.help', { country: countryName(value, lang), callingCode: PHONE_COUNTRIES.get(value) })}
      error={error ? t(error) : undefined}
    />
  );
}
