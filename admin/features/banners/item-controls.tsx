import { Button, ButtonGroup } from '@shopify/polaris';
import { ArrowDownIcon, ArrowUpIcon, DeleteIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';

export interface ItemControlsProps {
  /** What the item is called to a screen reader ("Button 2: Zalo"). */
  name: string;
  index: number;
  count: number;
  onMove(from: number, to: number): void;
  onRemove(): void;
  /** The list is at its minimum: the item can't be removed. */
  keep?: boolean;
  disabled?: boolean;
}

/** Move up, move down and remove, for one item of an ordered list. */
export function ItemControls({ name, index, count, onMove, onRemove, keep, disabled }: ItemControlsProps) {
  const { t } = useTranslation();
  return (
    <ButtonGroup gap="tight">
      <Button
        icon={ArrowUpIcon}
        variant="tertiary"
        disabled={disabled || index === 0}
        accessibilityLabel={t('widgets.items.moveUp', { name })}
        onClick={() => onMove(index, index - 1)}
      />
      <Button
        icon={ArrowDownIcon}
        variant="tertiary"
        disabled={disabled || index === count - 1}
        accessibilityLabel={t('widgets.items.moveDown', { name })}
        onClick={() => onMove(index, index + 1)}
      />
      <Button
        icon={DeleteIcon}
        variant="tertiary"
        tone="critical"
        disabled={disabled || keep}
        accessibilityLabel={t('widgets.items.remove', { name })}
        onClick={onRemove}
      />
    </ButtonGroup>
  );
}
