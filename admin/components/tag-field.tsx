import { Autocomplete } from '@shopify/polaris';
import { type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { TAG_MAX_LENGTH, type TagCount } from '../../shared/contract';
import { useFormatNumber } from '../app/i18n';

/** How many of the application's tags the list under the field shows at once. */
const SHOWN = 8;

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
  const { t } = useTranslation();
  const number = useFormatNumber();
  const options = useMemo(() => {
    const wanted = value.trim().toLowerCase();
    const found = (tags ?? []).filter((entry) => entry.tag.toLowerCase().includes(wanted) && entry.tag !== value.trim());
    return found.slice(0, SHOWN).map((entry) => ({ value: entry.tag, label: t('tags.choice', { tag: entry.tag, count: number(entry.players) }) }));
  }, [tags, value, t, number]);

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
