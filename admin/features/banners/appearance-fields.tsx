import { InlineGrid, Select } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { ColorField, type ErrorOf } from './form-fields';

/** Every place a widget can sit on the page; each type allows some of them. */
export type WidgetPosition = 'top' | 'bottom' | 'center' | 'bottom_left' | 'bottom_right';

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
