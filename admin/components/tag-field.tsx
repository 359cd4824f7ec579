import { Autocomplete } from '@shopify/polaris';
import { type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { TAG_MAX_LENGTH, type TagCount, TagList } from '../../shared/contract';
import { type ApiQuery, useApiQuery } from '../api/use-api-query';
import { useCurrentApplication } from '../app/application-scope';
import { useFormatNumber } from '../app/i18n';

/** How many of the application's tags the list under the field shows at once. */
const SHOWN = 8;

/**
 * The current application's tags with their players (GET …/tag), most held first, loaded while `enabled`: what the
 * tag field (segment editor, player page) and the player list's tag filter offer. Every member may read them.
 */
export function useApplicationTags(enabled = true): ApiQuery<TagList> {
  const { applicationId } = useCurrentApplication();
  return useApiQuery(enabled ? `/application/${encodeURIComponent(applicationId)}/tag` : null, TagList);
}

/**
 * The application's tags that contain `typed`, in any case, at most `max`, most held first as listed, each as a
 * choice named with its players ("vip · 1,200 players"): what the tag field and the player list's tag filter offer.
 * `except`: a tag left out (the one the field holds already).
 */
export function useTagChoices(tags: readonly TagCount[] | undefined, typed: string, max: number, except?: string): { value: string; label: string }[] {
  const { t } = useTranslation();
  const number = useFormatNumber();
  return useMemo(() => {
    const wanted = typed.trim().toLowerCase();
    return (tags ?? [])
      .filter((entry) => entry.tag !== except && entry.tag.toLowerCase().includes(wanted))
      .slice(0, max)
      .map((entry) => ({ value: entry.tag, label: t('tags.choice', { tag: entry.tag, count: entry.players, players: number(entry.players) }) }));
  }, [tags, typed, max, except, t, number]);
}

export interface TagFieldProps {
  label: string;
  labelHidden?: boolean;
  placeholder?: string;
  /** The tag as typed: the value itself, a tag no player has yet included. */
  value: string;
  onChange(tag: string): void;
  /** The application's tags with their players (GET …/tag), most held first; undefined while they load. */
  tags: readonly TagCount[] | undefined;
  error?: string;
  helpText?: string;
  /** Beside the field (the player page's Add button). */
  connectedRight?: ReactNode;
}

/**
 * A tag typed, with the application's tags that contain what is typed (in any case) listed under it, most held
 * first, each with how many players have it: picking one writes it as the players have it, so "VIP" typed for
 * players tagged "vip" is one click from the tag they carry (tags compare as written).
 */
export function TagField({ label, labelHidden, placeholder, value, onChange, tags, error, helpText, connectedRight }: TagFieldProps) {
  // The typed tag itself is not offered again.
  const options = useTagChoices(tags, value, SHOWN, value.trim());
  return (
    <Autocomplete
      options={options}
      selected={[]}
      onSelect={(selected) => {
        if (selected[0] !== undefined) onChange(selected[0]);
      }}
      textField={
        <Autocomplete.TextField
          label={label}
          labelHidden={labelHidden}
          placeholder={placeholder}
          value={value}
          onChange={onChange}
          autoComplete="off"
          maxLength={TAG_MAX_LENGTH}
          error={error}
          helpText={helpText}
          connectedRight={connectedRight}
        />
      }
    />
  );
}
