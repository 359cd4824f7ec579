import { Card, ChoiceList, FormLayout, InlineGrid, Select, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { FAKE_NOTI_SOURCES } from '../../../shared/contract';
import { isShopPlatformApplication } from '../../../shared/permissions';
import { useCurrentApplication } from '../../app/application-scope';
import { NumberField, useErrorOf } from '../banners/form-fields';
import { ItemListCard } from '../banners/item-controls';
import { SectionCard } from '../../components/section-card';
import { ItemLinkImageFields, setter } from '../banners/settings-fields';
import type { SettingsSectionProps } from '../banners/widget-editor';
import { type PathErrors, type SettingsOf } from '../banners/widget-drafts';

/** The contract's cap on notices of a widget. */
export const MAX_FAKE_NOTI_ITEMS = 100;

type Item = SettingsOf<'fake_noti'>['items'][number];

/** A blank notice, as the add button appends it and a written list starts with. */
function newItem(): Item {
  return { name: '', city: '', product: '', url: '', image_url: '', minutes_ago: 5 };
}

const SOURCE_LABELS = { manual: 'embed.fakeNoti.sourceManual', shop_orders: 'embed.fakeNoti.sourceShopOrders' } as const;

/**
 * Fake-buyer notices: who bought what, where and when, and the rhythm of the pop-ups. A shop-platform
 * application may take them from its real recent orders instead of a written list.
 */
export function FakeNotiSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'fake_noti'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const { applicationId } = useCurrentApplication();
  const fromOrders = settings.source === 'shop_orders';
  // Shown to shop applications, and to any widget already set to orders so it can be switched back.
  const offerSource = isShopPlatformApplication(applicationId) || fromOrders;
  const set = setter(settings, onChange);

  /** Orders need no written list: the blank notices a new widget starts with go, the written ones stay for a way back. */
  function chooseSource(source: (typeof FAKE_NOTI_SOURCES)[number]) {
    const items = source === 'shop_orders' ? settings.items.filter((item) => item.product.trim() !== '') : settings.items;
    onChange({ ...settings, source, items: source === 'manual' && items.length === 0 ? [newItem()] : items });
  }

  return (
    <>
      {offerSource ? (
        <Card>
          <ChoiceList
            title={t('embed.fakeNoti.source')}
            choices={FAKE_NOTI_SOURCES.map((source) => ({
              value: source,
              label: t(SOURCE_LABELS[source]),
              helpText: source === 'shop_orders' ? t('embed.fakeNoti.shopOrdersHelp') : undefined,
            }))}
            selected={[settings.source]}
            onChange={([source]) => chooseSource(source as (typeof FAKE_NOTI_SOURCES)[number])}
            disabled={disabled}
          />
        </Card>
      ) : null}
      {fromOrders ? null : (
        <ItemListCard
          title={t('fakeNoti.editor.items')}
          help={t('fakeNoti.editor.itemsHelp')}
          items={settings.items}
          onChange={set('items')}
          itemName={(_, index) => t('fakeNoti.editor.item', { number: index + 1 })}
          renderItem={(item, index, setItem) => {
            const path = (field: string) => `items.${index}.${field}`;
            return (
              <>
                <InlineGrid columns={{ xs: 1, sm: 3 }} gap="300">
                  <TextField
                    label={t('fakeNoti.editor.buyer')}
                    placeholder={t('fakeNoti.editor.buyerPlaceholder')}
                    value={item.name}
                    onChange={(value) => setItem({ ...item, name: value })}
                    autoComplete="off"
                    maxLength={60}
                    disabled={disabled}
                    error={errorOf(path('name'))}
                  />
                  <TextField
                    label={t('fakeNoti.editor.city')}
                    value={item.city}
                    onChange={(city) => setItem({ ...item, city })}
                    autoComplete="off"
                    maxLength={60}
                    disabled={disabled}
                    error={errorOf(path('city'))}
                  />
                  <NumberField
                    label={t('fakeNoti.editor.minutesAgo')}
                    value={item.minutes_ago}
                    min={0}
                    max={60 * 24 * 30}
                    suffix={t('widgets.units.minutes')}
                    onChange={(minutes) => setItem({ ...item, minutes_ago: minutes ?? Number.NaN })}
                    disabled={disabled}
                    error={errorOf(path('minutes_ago'))}
                  />
                </InlineGrid>
                <TextField
                  label={t('fakeNoti.editor.product')}
                  value={item.product}
                  onChange={(product) => setItem({ ...item, product })}
                  autoComplete="off"
                  maxLength={120}
                  disabled={disabled}
                  error={errorOf(path('product'))}
                />
                <ItemLinkImageFields
                  item={item}
                  setItem={setItem}
                  urlLabel={t('fakeNoti.editor.url')}
                  errorOf={(field) => errorOf(path(field))}
                  disabled={disabled}
                />
              </>
            );
          }}
          error={errorOf('items')}
          addLabel={t('fakeNoti.editor.addItem')}
          newItem={newItem}
          max={MAX_FAKE_NOTI_ITEMS}
          count={t('widgets.items.count', { count: settings.items.length, max: MAX_FAKE_NOTI_ITEMS })}
          disabled={disabled}
        />
      )}
      <SectionCard title={t('fakeNoti.editor.rhythm')}>
        <FormLayout>
          <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
            <NumberField
              label={t('fakeNoti.editor.minInterval')}
              value={settings.min_interval_seconds}
              min={3}
              max={3600}
              suffix={t('widgets.units.seconds')}
              onChange={(value) => set('min_interval_seconds')(value ?? Number.NaN)}
              disabled={disabled}
              error={errorOf('min_interval_seconds')}
            />
            <NumberField
              label={t('fakeNoti.editor.maxInterval')}
              helpText={t('fakeNoti.editor.intervalHelp')}
              value={settings.max_interval_seconds}
              min={3}
              max={3600}
              suffix={t('widgets.units.seconds')}
              onChange={(value) => set('max_interval_seconds')(value ?? Number.NaN)}
              disabled={disabled}
              error={errorOf('max_interval_seconds')}
            />
            <NumberField
              label={t('fakeNoti.editor.displaySeconds')}
              value={settings.display_seconds}
              min={2}
              max={60}
              suffix={t('widgets.units.seconds')}
              onChange={(value) => set('display_seconds')(value ?? Number.NaN)}
              disabled={disabled}
              error={errorOf('display_seconds')}
            />
            <NumberField
              label={t('fakeNoti.editor.maxPerSession')}
              helpText={t('fakeNoti.editor.maxPerSessionHelp')}
              value={settings.max_per_session}
              min={1}
              max={100}
              onChange={(value) => set('max_per_session')(value ?? Number.NaN)}
              disabled={disabled}
              error={errorOf('max_per_session')}
            />
          </InlineGrid>
          <Select
            label={t('widgets.fields.position')}
            options={(['bottom_left', 'bottom_right'] as const).map((value) => ({ value, label: t(`widgets.positions.${value}`) }))}
            value={settings.position}
            disabled={disabled}
            onChange={(value) => set('position')(value as typeof settings.position)}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}

/** Pop-ups come at a random interval between the two bounds: the shorter can't be the longer. */
export function fakeNotiProblems(settings: SettingsOf<'fake_noti'>): PathErrors {
  if (settings.min_interval_seconds > settings.max_interval_seconds) {
    return { max_interval_seconds: 'fakeNoti.editor.intervalOrder' };
  }
  return {};
}
