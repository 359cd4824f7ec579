import { InlineGrid, Select } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { ColorField, type ErrorOf } from './form-fields';
import { SectionCard } from '../../components/section-card';
import { setter } from './settings-fields';

/** Every place a widget can sit on the page; each type allows some of them. */
export type WidgetPosition = 'top' | 'bottom' | 'center' | 'bottom_left' | 'bottom_right';

/** The places of a popup (the contact form, the spin wheel): over the page or in a lower corner. */
export const POPUP_POSITIONS = ['center', 'bottom_left', 'bottom_right'] as const;

export interface AppearanceFieldsProps<P extends WidgetPosition> {
  positions: readonly P[];
  position: P;
  onPosition(position: P): void;
  /** Background and text colours, when the type has them. */
  background?: string;
  onBackground?(value: string): void;
  color?: string;
  onColor?(value: string): void;
  /** The label of `color` (the text colour, or a widget's accent). */
  colorLabel?: string;
  errorOf: ErrorOf;
  disabled?: boolean;
}

/** Position and colours: the part of every widget's look the merchant chooses. */
export function AppearanceFields<P extends WidgetPosition>({
  positions,
  position,
  onPosition,
  background,
  onBackground,
  color,
  onColor,
  colorLabel,
  errorOf,
  disabled,
}: AppearanceFieldsProps<P>) {
  const { t } = useTranslation();
  return (
    <InlineGrid columns={{ xs: 1, sm: 3 }} gap="400">
      <Select
        label={t('widgets.fields.position')}
        options={positions.map((value) => ({ value, label: t(`widgets.positions.${value}`) }))}
        value={position}
        disabled={disabled}
        onChange={(value) => onPosition(value as P)}
      />
      {background !== undefined && onBackground ? (
        <ColorField
          label={t('widgets.fields.background')}
          value={background}
          onChange={onBackground}
          error={errorOf('background')}
          disabled={disabled}
        />
      ) : null}
      {color !== undefined && onColor ? (
        <ColorField
          label={colorLabel ?? t('widgets.fields.textColor')}
          value={color}
          onChange={onColor}
          error={errorOf('color')}
          disabled={disabled}
        />
      ) : null}
    </InlineGrid>
  );
}

/** The settings of a widget whose place and both colours the merchant chooses. */
type PlacedSettings = { position: WidgetPosition; background: string; color: string };

export interface AppearanceSettingsFieldsProps<S extends PlacedSettings, P extends S['position']> {
  settings: S;
  onChange(next: S): void;
  /** The places the type offers; the first stands for a saved place it doesn't (a popup's old 'top'). */
  positions: readonly P[];
  errorOf: ErrorOf;
  disabled?: boolean;
}

/** AppearanceFields on a widget's own `position`, `background` and `color` settings. */
export function AppearanceSettingsFields<S extends PlacedSettings, P extends S['position']>({
  settings,
  onChange,
  positions,
  errorOf,
  disabled,
}: AppearanceSettingsFieldsProps<S, P>) {
  const set = setter(settings, onChange);
  const offered = (positions as readonly WidgetPosition[]).includes(settings.position);
  return (
    <AppearanceFields
      positions={positions}
      position={offered ? (settings.position as P) : positions[0]}
      onPosition={set('position')}
      background={settings.background}
      onBackground={set('background')}
      color={settings.color}
      onColor={set('color')}
      errorOf={errorOf}
      disabled={disabled}
    />
  );
}

/** A section of its own for the look, when a widget has nothing else to set there (the popups and the suggestion box). */
export function LookSection<S extends PlacedSettings, P extends S['position']>(props: AppearanceSettingsFieldsProps<S, P>) {
  const { t } = useTranslation();
  return (
    <SectionCard title={t('widgets.sections.look')}>
      <AppearanceSettingsFields {...props} />
    </SectionCard>
  );
}
