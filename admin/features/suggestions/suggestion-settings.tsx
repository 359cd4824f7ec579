import { BlockStack, Button, Card, ChoiceList, FormLayout, InlineError, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { AppearanceFields } from '../banners/appearance-fields';
import { useErrorOf } from '../banners/form-fields';
import { ItemCard } from '../banners/item-controls';
import type { SettingsSectionProps } from '../banners/widget-editor';
import { type SettingsOf } from '../banners/widget-drafts';

/** The contract's cap on items of a box. */
export const MAX_SUGGESTION_ITEMS = 12;

type Item = SettingsOf<'suggestion'>['items'][number];

/** A promotion or recommendation box: its title, kind, the products or links it shows, its place and colours. */
export function SuggestionSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'suggestion'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const itemsId = useId();
  const set = <K extends keyof typeof settings>(key: K) => (value: (typeof settings)[K]) => onChange({ ...settings, [key]: value });

  function setItem(index: number, item: Item) {
    set('items')(settings.items.map((current, i) => (i === index ? item : current)));
  }

  return (
    <>
      <Card>
        <BlockStack gap="400">
          <Text as="h2" variant="headingMd">
            {t('suggestions.editor.box')}
          </Text>
          <FormLayout>
            <TextField
              label={t('widgets.fields.heading')}
              value={settings.title}
              onChange={set('title')}
              autoComplete="off"
              maxLength={200}
              disabled={disabled}
              error={errorOf('title')}
            />
            <ChoiceList
              title={t('suggestions.editor.kind')}
              choices={[
                { value: 'recommendation', label: t('suggestions.kinds.recommendation'), helpText: t('suggestions.kinds.recommendationHelp') },
                { value: 'promotion', label: t('suggestions.kinds.promotion'), helpText: t('suggestions.kinds.promotionHelp') },
              ]}
              selected={[settings.kind]}
              disabled={disabled}
              onChange={([kind]) => set('kind')(kind as typeof settings.kind)}
            />
          </FormLayout>
        </BlockStack>
      </Card>
      <Card>
        <BlockStack gap="400">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              {t('suggestions.editor.items')}
            </Text>
            <Text as="p" tone="subdued">
              {t('suggestions.editor.itemsHelp')}
            </Text>
          </BlockStack>
          {settings.items.map((item, index) => {
            const name = t('suggestions.editor.item', { number: index + 1 });
            const path = (field: string) => `items.${index}.${field}`;
            return (
              <ItemCard
                key={index}
                name={name}
                index={index}
                items={settings.items}
                onChange={set('items')}
                disabled={disabled}
              >
                <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                  <TextField
                    label={t('suggestions.editor.itemTitle')}
                    value={item.title}
                    onChange={(title) => setItem(index, { ...item, title })}
                    autoComplete="off"
                    maxLength={120}
                    disabled={disabled}
                    error={errorOf(path('title'))}
                  />
                  <TextField
                    label={t('suggestions.editor.price')}
                    helpText={t('suggestions.editor.priceHelp')}
                    value={item.price}
                    onChange={(price) => setItem(index, { ...item, price })}
                    autoComplete="off"
                    maxLength={40}
                    disabled={disabled}
                    error={errorOf(path('price'))}
                  />
                </InlineGrid>
                <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                  <TextField
                    label={t('suggestions.editor.url')}
                    type="url"
                    value={item.url}
                    onChange={(url) => setItem(index, { ...item, url })}
                    autoComplete="off"
                    disabled={disabled}
                    error={errorOf(path('url'))}
                  />
                  <TextField
                    label={t('widgets.fields.imageUrl')}
                    type="url"
                    value={item.image_url ?? ''}
                    onChange={(url) => setItem(index, { ...item, image_url: url })}
                    autoComplete="off"
                    disabled={disabled}
                    error={errorOf(path('image_url'))}
                  />
                </InlineGrid>
              </ItemCard>
            );
          })}
          {errorOf('items') ? <InlineError message={errorOf('items') ?? ''} fieldID={itemsId} /> : null}
          <InlineStack align="space-between" blockAlign="center">
            <Button
              icon={PlusIcon}
              disabled={disabled || settings.items.length >= MAX_SUGGESTION_ITEMS}
              onClick={() => set('items')([...settings.items, { title: '', url: '', image_url: '', price: '' }])}
            >
              {t('suggestions.editor.addItem')}
            </Button>
            <Text as="span" tone="subdued" variant="bodySm">
              {t('widgets.items.count', { count: settings.items.length, max: MAX_SUGGESTION_ITEMS })}
            </Text>
          </InlineStack>
        </BlockStack>
      </Card>
      <Card>
        <BlockStack gap="400">
          <Text as="h2" variant="headingMd">
            {t('widgets.sections.look')}
          </Text>
          <AppearanceFields
            positions={['top', 'bottom', 'center', 'bottom_left', 'bottom_right'] as const}
            position={settings.position}
            onPosition={set('position')}
            background={settings.background}
            onBackground={set('background')}
            color={settings.color}
            onColor={set('color')}
            errorOf={errorOf}
            disabled={disabled}
          />
        </BlockStack>
      </Card>
    </>
  );
}
