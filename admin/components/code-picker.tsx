import { Autocomplete, Icon } from '@shopify/polaris';
import { SearchIcon } from '@shopify/polaris-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PLAYER_CODE_FIELDS, type PlayerCodeField } from '../../shared/validation';
import { useLanguage } from '../app/i18n';
import { countryChoices, countryName, findChoices, languageChoices, languageName, searchText } from './code-names';

/** Per kind of code: what there is to choose, how a code is named, and what the search field says. */
const KINDS = {
  country: { choices: countryChoices, name: countryName, search: 'common.countrySearch', none: 'common.noCountry' },
  language: { choices: languageChoices, name: languageName, search: 'common.languageSearch', none: 'common.noLanguage' },
} as const satisfies Record<PlayerCodeField, unknown>;

export interface CodePickerProps {
  /** What is chosen: a country or a language, each kept as players carry it. */
  field: PlayerCodeField;
  label: string;
  labelHidden?: boolean;
  /** The code chosen ("VN", "vi"), or '' for none. */
  value: string;
  onChange(code: string): void;
  error?: string;
}

/**
 * One country or language chosen by name: a search over every one, by its name in the console's language or in
 * English or by its code, with those it finds listed under it (Polaris Autocomplete). The value stays a code, as
 * players carry it and segment rules compare it. What is typed is a search, not the value: the value changes when a
 * choice is picked, or when the search left names exactly one (its code, "vn", or its whole name, "viet nam") as the
 * field is left; otherwise leaving the field shows the choice made again. A value that is no code (a segment saved
 * before countries had to be codes) shows as it is, with `error` saying what is wanted.
 */
export function CodePicker({ field, label, labelHidden, value, onChange, error }: CodePickerProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const kind = KINDS[field];
  // null while the field shows the value; the search typed otherwise.
  const [query, setQuery] = useState<string | null>(null);
  const all = kind.choices(lang);
  const found = useMemo(() => findChoices(all, query ?? ''), [all, query]);
  const valid = PLAYER_CODE_FIELDS[field].valid(value);
  const shown = valid ? (kind.name(value, lang) ?? value) : value;

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
      options={found.map((choice) => ({ value: choice.code, label: kind.name(choice.code, lang) ?? choice.code }))}
      selected={valid ? [value] : []}
      onSelect={(selected) => {
        if (selected[0]) choose(selected[0]);
      }}
      emptyState={t(kind.none, { query: (query ?? '').trim() })}
      textField={
        <Autocomplete.TextField
          label={label}
          labelHidden={labelHidden}
          prefix={<Icon source={SearchIcon} tone="subdued" />}
          placeholder={t(kind.search)}
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
