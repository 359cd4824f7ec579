import { Autocomplete, Icon } from '@shopify/polaris';
import { SearchIcon } from '@shopify/polaris-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PLAYER_CODE_FIELDS } from '../../shared/validation';
import { useLanguage } from '../app/i18n';
import { countryChoices, countryName, findCountries, searchText } from './code-names';

export interface CountryPickerProps {
  label: string;
  labelHidden?: boolean;
  /** The country chosen, as players carry it ("VN"), or '' for none. */
  value: string;
  onChange(code: string): void;
  error?: string;
}

/**
 * One country chosen by name: a search over every country, by its name in the console's language or in English or
 * by its code, with the countries it finds listed under it (Polaris Autocomplete). The value stays a code, as
 * players carry it and segment rules compare it. What is typed is a search, not the value: the value changes when a
 * country is picked, or when the search left names exactly one (its code, "vn", or its whole name, "viet nam") as
 * the field is left; otherwise leaving the field shows the country chosen again. A value that is no code (a
 * segment saved before countries had to be codes) shows as it is, with `error` saying what is wanted.
 */
export function CountryPicker({ label, labelHidden, value, onChange, error }: CountryPickerProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  // null while the field shows the value; the search typed otherwise.
  const [query, setQuery] = useState<string | null>(null);
  const all = countryChoices(lang);
  const found = useMemo(() => findCountries(all, query ?? ''), [all, query]);
  const valid = PLAYER_CODE_FIELDS.country.valid(value);
  const shown = valid ? (countryName(value, lang) ?? value) : value;

  function choose(code: string) {
    setQuery(null);
    if (code !== value) onChange(code);
  }

  function leave() {
    if (query === null) return;
    const wanted = searchText(query);
    const exact = wanted === '' ? undefined : all.find((choice) => choice.code.toLowerCase() === wanted || choice.names.includes(wanted));
    if (exact) choose(exact.code);
    else setQuery(null);
  }

  return (
    <Autocomplete
      options={found.map((choice) => ({ value: choice.code, label: countryName(choice.code, lang) ?? choice.code }))}
      selected={valid ? [value] : []}
      onSelect={(selected) => {
        if (selected[0]) choose(selected[0]);
      }}
      emptyState={t('common.noCountry', { query: (query ?? '').trim() })}
      textField={
        <Autocomplete.TextField
          label={label}
          labelHidden={labelHidden}
          prefix={<Icon source={SearchIcon} tone="subdued" />}
          placeholder={t('common.countrySearch')}
          value={query ?? shown}
          onChange={setQuery}
          onFocus={() => setQuery((current) => current ?? '')}
          onBlur={leave}
          autoComplete="off"
          // The search's problem is that it found nothing, said in the list; the value's is the error.
          error={query === null ? error : undefined}
        />
      }
    />
  );
}
