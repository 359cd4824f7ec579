import { ChoiceList, FormLayout, InlineGrid, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { LookSection } from '../banners/appearance-fields';
import { useErrorOf } from '../banners/form-fields';
import { ItemListCard } from '../banners/item-controls';
import { SectionCard } from '../../components/section-card';
import { HeadingField, ItemLinkImageFields, setter } from '../banners/settings-fields';
import type { SettingsSectionProps } from '../banners/widget-editor';

/** The contract's cap on items of a box. */
export const MAX_SUGGESTION_ITEMS = 12;

/** A promotion or recommendation box: its title, kind, the products or links it shows, its place and colours. */
export function SuggestionSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'suggestion'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const set = setter(settings, onChange);

  return (
    <>
      <SectionCard title={t('suggestions.editor.box')}>
        <FormLayout>
          <HeadingField settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
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
      </SectionCard>
      <ItemListCard
        title={t('suggestions.editor.items')}
        help={t('suggestions.editor.itemsHelp')}
        items={settings.items}
        onChange={set('items')}
        itemName={(_, index) => t('suggestions.editor.item', { number: index + 1 })}
        renderItem={(item, index, setItem) => {
          const path = (field: string) => `items.${index}.${field}`;
          return (
            <>
              <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                <TextField
                  label={t('suggestions.editor.itemTitle')}
                  value={item.title}
                  onChange={(title) => setItem({ ...item, title })}
                  autoComplete="off"
                  maxLength={120}
                  disabled={disabled}
                  error={errorOf(path('title'))}
                />
                <TextField
                  label={t('suggestions.editor.price')}
                  helpText={t('suggestions.editor.priceHelp')}
                  value={item.price}
                  onChange={(price) => setItem({ ...item, price })}
                  autoComplete="off"
                  maxLength={40}
                  disabled={disabled}
                  error={errorOf(path('price'))}
                />
              </InlineGrid>
              <ItemLinkImageFields
                item={item}
                setItem={setItem}
                urlLabel={t('suggestions.editor.url')}
                errorOf={(field) => errorOf(path(field))}
                disabled={disabled}
              />
            </>
          );
        }}
        error={errorOf('items')}
        addLabel={t('suggestions.editor.addItem')}
        newItem={() => ({ title: '', url: '', image_url: '', price: '' })}
        max={MAX_SUGGESTION_ITEMS}
        count={t('widgets.items.count', { count: settings.items.length, max: MAX_SUGGESTION_ITEMS })}
        disabled={disabled}
      />
      <LookSection
        settings={settings}
        onChange={onChange}
        positions={['top', 'bottom', 'center', 'bottom_left', 'bottom_right'] as const}
        errorOf={errorOf}
        disabled={disabled}
      />
    </>
  );
}
