import { Badge } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import type { AttributeType } from '../../shared/contract';

/** Each type's colour, the same on every screen that names one: text plain, number blue, date purple, true/false green. */
const TYPE_TONES: Record<AttributeType, 'info' | 'success' | 'magic' | undefined> = {
  text: undefined,
  number: 'info',
  boolean: 'success',
  date: 'magic',
};

export interface AttributeTypeBadgeProps {
  type: AttributeType;
  /** 'small' beside a name in a line of text (an event's property, a player's attribute); 'medium' in a column of its own. */
  size?: 'small' | 'medium';
}

/** An attribute's or event property's type as a badge in its colour ("Number", "Date"…). */
export function AttributeTypeBadge({ type, size = 'medium' }: AttributeTypeBadgeProps) {
  const { t } = useTranslation();
  return (
    // Read out as "Type Number": Polaris would otherwise name the colour's tone ("Info Number"), which here means nothing.
    <Badge tone={TYPE_TONES[type]} size={size} toneAndProgressLabelOverride={t('attributes.columns.type')}>
      {t(`attributes.types.${type}`)}
    </Badge>
  );
}

/** A property or attribute name with its type as a badge (`.date` properties are dates). */
export function PropertyBadge({ name, type }: { name: string; type: AttributeType }) {
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 4, whiteSpace: 'nowrap' }}>
      <span className="nudge-mono">{name}</span>
      <AttributeTypeBadge type={type} size="small" />
    </span>
  );
}
