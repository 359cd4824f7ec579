import { BlockStack, Box, Button, ButtonGroup, InlineError, InlineStack, Text } from '@shopify/polaris';
import { ArrowDownIcon, ArrowUpIcon, DeleteIcon, PlusIcon } from '@shopify/polaris-icons';
import { type ReactNode, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SectionCard } from '../../components/section-card';
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

export interface ItemListFooterProps {
  /** The problem of the list as a whole (too few, too many), if any. */
  error?: string;
  addLabel: string;
  onAdd(): void;
  /** The list is full, or the editor is read-only. */
  addDisabled?: boolean;
  /** How many items there are, of how many allowed. */
  count: string;
  /** 'critical' when the list is past what the plan allows. */
  countTone?: 'subdued' | 'critical';
}

/** The end of an editor's list: the list's own problem, then the add button beside the count. */
export function ItemListFooter({ error, addLabel, onAdd, addDisabled, count, countTone = 'subdued' }: ItemListFooterProps) {
  const errorId = useId();
  return (
    <>
      {error ? <InlineError message={error} fieldID={errorId} /> : null}
      <InlineStack align="space-between" blockAlign="center" gap="200">
        <Button icon={PlusIcon} disabled={addDisabled} onClick={onAdd}>
          {addLabel}
        </Button>
        <Text as="span" tone={countTone} variant="bodySm">
          {count}
        </Text>
      </InlineStack>
    </>
  );
}

export interface ItemListCardProps<T> {
  /** The card's heading and the help under it. */
  title: string;
  help: string;
  items: readonly T[];
  /** Receives the list with an item changed, added, moved or removed. */
  onChange(items: T[]): void;
  /** An item's heading, also the name of its group and controls ("Item 2"). */
  itemName(item: T, index: number): string;
  /** Shown before an item's heading (a channel's badge). */
  itemBadge?(item: T): ReactNode;
  /** The fields of one item; `setItem` puts a changed item in its place. */
  renderItem(item: T, index: number, setItem: (item: T) => void): ReactNode;
  /** The list is at its minimum: no item can be removed. */
  keep?: boolean;
  /** Shown between the help and the items (the plan's cap passed). */
  notice?: ReactNode;
  /** The problem of the list as a whole, if any. */
  error?: string;
  addLabel: string;
  /** The item the add button appends. */
  newItem(items: readonly T[]): T;
  /** The add button is off at this many items. */
  max: number;
  /** How many items there are, of how many allowed. */
  count: string;
  countTone?: 'subdued' | 'critical';
  disabled?: boolean;
}

/**
 * An ordered list of an editor in its own card: heading and help, one ItemCard per item with the fields
 * `renderItem` gives, then the add button and the count.
 */
export function ItemListCard<T>({
  title,
  help,
  items,
  onChange,
  itemName,
  itemBadge,
  renderItem,
  keep,
  notice,
  error,
  addLabel,
  newItem,
  max,
  count,
  countTone,
  disabled,
}: ItemListCardProps<T>) {
  return (
    <SectionCard title={title} help={help}>
      {notice}
      {items.map((item, index) => (
        <ItemCard
          key={index}
          name={itemName(item, index)}
          index={index}
          items={items}
          onChange={onChange}
          keep={keep}
          badge={itemBadge?.(item)}
          disabled={disabled}
        >
          {renderItem(item, index, (next) => onChange(items.map((current, i) => (i === index ? next : current))))}
        </ItemCard>
      ))}
      <ItemListFooter
        error={error}
        addLabel={addLabel}
        onAdd={() => onChange([...items, newItem(items)])}
        addDisabled={disabled || items.length >= max}
        count={count}
        countTone={countTone}
      />
    </SectionCard>
  );
}
