import { BlockStack, ChoiceList, Icon, Text, TextField } from '@shopify/polaris';
import { SearchIcon } from '@shopify/polaris-icons';
import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '../../app/i18n';
import { useApplicationTags, useTagChoices } from '../../components/tag-field';
import { TAG_MAX_LENGTH, type TagCount } from '../../../shared/contract';
import { countryChoices, countryName, findChoices } from '../../components/code-names';
import { useDebouncedValue } from '../../components/use-debounced-value';

/**
 * Puts the keyboard in the field inside `ref` once the filter's popover has opened. Polaris' popover focuses its
 * own container a frame after it opens (so an `autoFocus` is undone): the field takes focus the frame after.
 */
function useFocusWhenShown(ref: RefObject<HTMLElement>) {
  useEffect(() => {
    const frame = requestAnimationFrame(() => ref.current?.querySelector('input')?.focus());
    return () => cancelAnimationFrame(frame);
  }, [ref]);
}

export interface TextFilterProps {
  label: string;
  /** The filter as the list applies it. */
  value: string;
  /** Applies the text typed, once typing pauses. */
  onCommit(value: string): void;
  maxLength?: number;
  /** What the empty field shows: an example of what to type. */
  placeholder?: string;
  /** What shows under the field, from the text as it is typed (the tag filter's list of tags). */
  below?(text: string): ReactNode;
}

/** A text filter typed into a popover: kept locally while typed, applied once typing pauses. */
export function TextFilter({ label, value, onCommit, maxLength, placeholder, below }: TextFilterProps) {
  const [text, setText] = useState(value);
  const settled = useDebouncedValue(text, 400);
  const field = useRef<HTMLDivElement>(null);
  useFocusWhenShown(field);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (settled.trim() !== value) onCommit(settled.trim());
    // Only a settled change is applied; `value` changing from outside is synced above.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);
  const input = (
    <div ref={field}>
      <TextField
        label={label}
        labelHidden
        value={text}
        placeholder={placeholder}
        maxLength={maxLength}
        onChange={setText}
        autoComplete="off"
        clearButton
        onClearButtonClick={() => setText('')}
      />
    </div>
  );
  if (!below) return input;
  return (
    <BlockStack gap="200">
      {input}
      {below(text)}
    </BlockStack>
  );
}

export interface TagFilterProps {
  /** The tag the list is filtered by, or '' for none. */
  value: string;
  /** Filters by this tag, or by none with ''. */
  onCommit(tag: string): void;
}

/** How many of the application's tags the tag filter lists at once (the rest are found by typing). */
const TAGS_LISTED = 30;

/**
 * The player list's tag filter: the tag typed, applied once typing pauses (TextFilter), and under it the
 * application's tags that contain what is typed, in any case, each with its players, to choose one from: "VIP"
 * typed for players tagged "vip" (tags compare as written) is one click from them.
 */
export function TagFilter({ value, onCommit }: TagFilterProps) {
  const { t } = useTranslation();
  // Asked for when the filter opens (its popover renders it), not with every load of the list.
  const tags = useApplicationTags().data?.items;
  const label = t('players.filters.tag');
  return (
    <TextFilter
      label={label}
      value={value}
      onCommit={onCommit}
      maxLength={TAG_MAX_LENGTH}
      below={(text) => <TagChoices tags={tags} typed={text} label={label} value={value} onCommit={onCommit} />}
    />
  );
}

/** The tag filter's list: the application's tags that hold what is typed (useTagChoices), one to choose. */
function TagChoices({ tags, typed, label, value, onCommit }: TagFilterProps & { tags: readonly TagCount[] | undefined; typed: string; label: string }) {
  const found = useTagChoices(tags, typed, TAGS_LISTED);
  if (found.length === 0) return null;
  return (
    <div style={{ maxHeight: LIST_HEIGHT, overflowY: 'auto' }}>
      <ChoiceList title={label} titleHidden choices={found} selected={value ? [value] : []} onChange={(selected) => onCommit(selected[0] ?? '')} />
    </div>
  );
}

export interface CountryFilterProps {
  /** The country the list is filtered by, as its code ("VN"), or '' for none. */
  value: string;
  /** Filters by the country of this code, or by none with ''. */
  onChange(code: string): void;
}

/** How many countries the popover shows at once before it scrolls: about a phone's half screen. */
const LIST_HEIGHT = 264;

/**
 * The player list's country filter: a search over every country by name, in the console's language or in English,
 * or by code, and the countries it finds to choose one from. The list still asks by the code (`country=VN`), so
 * links keep working; a name is never read as a code, as "vietnam" once was as VI (the US Virgin Islands).
 */
export function CountryFilter({ value, onChange }: CountryFilterProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const [query, setQuery] = useState('');
  const field = useRef<HTMLDivElement>(null);
  useFocusWhenShown(field);
  const all = countryChoices(lang);
  const found = useMemo(() => {
    const matches = findChoices(all, query);
    // Unsearched, the country chosen leads the list rather than hiding two hundred rows down.
    if (query.trim() !== '' || !value) return matches;
    const chosen = matches.find((choice) => choice.code === value) ?? { code: value, name: value, names: [], words: [] };
    return [chosen, ...matches.filter((choice) => choice.code !== value)];
  }, [all, query, value]);

  // Enter takes the best match, as a search field that finds one thing should.
  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Enter' || query.trim() === '' || found.length === 0) return;
    event.preventDefault();
    onChange(found[0].code);
  }

  const label = t('common.countrySearch');
  return (
    <BlockStack gap="200">
      <div ref={field} onKeyDown={onKeyDown}>
        <TextField
          label={label}
          labelHidden
          placeholder={label}
          prefix={<Icon source={SearchIcon} tone="subdued" />}
          value={query}
          onChange={setQuery}
          autoComplete="off"
          clearButton
          onClearButtonClick={() => setQuery('')}
        />
      </div>
      {found.length === 0 ? (
        <Text as="p" tone="subdued">
          {t('common.noCountry', { query: query.trim() })}
        </Text>
      ) : (
        <div style={{ maxHeight: LIST_HEIGHT, overflowY: 'auto' }}>
          <ChoiceList
            title={t('players.filters.country')}
            titleHidden
            choices={found.map((choice) => ({ value: choice.code, label: countryName(choice.code, lang) ?? choice.code }))}
            selected={value ? [value] : []}
            onChange={(selected) => onChange(selected[0] ?? '')}
          />
        </div>
      )}
    </BlockStack>
  );
}
