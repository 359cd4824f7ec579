import { Select } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { DEFAULT_LOCAL_OFFSET_MINUTES } from '../../shared/contract';
import { formatUtcOffset } from '../../shared/format';
import { UTC_OFFSETS, isUtcOffset } from '../../shared/validation';

/** This computer's UTC offset now, minutes east of UTC. */
export function browserUtcOffset(now: Date = new Date()): number {
  return -now.getTimezoneOffset();
}

/**
 * The timezone a new application starts with: this computer's, when it is one of UTC_OFFSETS (it is, but for a
 * summer time outside spec §9's range), else Vietnam's.
 */
export function defaultUtcOffset(now: Date = new Date()): number {
  const here = browserUtcOffset(now);
  return isUtcOffset(here) ? here : DEFAULT_LOCAL_OFFSET_MINUTES;
}

export interface UtcOffsetSelectProps {
  value: number;
  onChange(value: number): void;
  /** Its problem, an i18n key (form errors). */
  error?: string;
}

/**
 * An application's timezone (spec §9): the UTC offsets in use, west to east, this computer's marked. What it
 * decides is said under it: the days of the dashboard and statistics.
 */
export function UtcOffsetSelect({ value, onChange, error }: UtcOffsetSelectProps) {
  const { t } = useTranslation();
  const here = browserUtcOffset();
  const options = UTC_OFFSETS.map((offset) => ({
    value: String(offset),
    label: offset === here ? t('applications.timezone.here', { zone: formatUtcOffset(offset) }) : formatUtcOffset(offset),
  }));
  return (
    <Select
      label={t('applications.timezone.label')}
      options={options}
      value={String(value)}
      onChange={(next) => onChange(Number(next))}
      helpText={error ? undefined : t('applications.timezone.help')}
      error={error ? t(error) : undefined}
    />
  );
}
