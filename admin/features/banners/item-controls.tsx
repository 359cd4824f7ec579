import { BlockStack, Box, Button, ButtonGroup, InlineStack, Text } from '@shopify/polaris';
import { ArrowDownIcon, ArrowUpIcon, DeleteIcon } from '@shopify/polaris-icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { moveItem } from './widget-drafts';

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

export interface ItemCardProps<T> {
  /** The item's heading, also the name of its group and controls ("Button 2: Zalo"). */
  name: string;
  index: number;
  /** The whole ordered list the item belongs to. */
  items: readonly T[];
  /** Receives the list reordered or without this item. */
  onChange(items: T[]): void;
  /** The list is at its minimum: the item can't be removed. */
  keep?: boolean;
  disabled?: boolean;
  /** Shown before the heading (a channel's badge). */
  badge?: ReactNode;
  /** The item's fields. */
  children: ReactNode;
}

/** One item of an ordered list in an editor: a bordered group with its heading, move and remove controls, and fields. */
export function ItemCard<T>({ name, index, items, onChange, keep, disabled, badge, children }: ItemCardProps<T>) {
  return (
    <Box padding="300" borderWidth="025" borderColor="border" borderRadius="200">
      <div role="group" aria-label={name}>
        <BlockStack gap="300">
          <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
            <InlineStack gap="200" blockAlign="center" wrap={false}>
              {badge}
              <Text as="h3" variant="headingSm">
                {name}
              </Text>
            </InlineStack>
            <ItemControls
              name={name}
              index={index}
              count={items.length}
              keep={keep}
              disabled={disabled}
              onMove={(from, to) => onChange(moveItem(items, from, to))}
              onRemove={() => onChange(items.filter((_, i) => i !== index))}
            />
          </InlineStack>
          {children}
        </BlockStack>
      </div>
    </Box>
  );
}
