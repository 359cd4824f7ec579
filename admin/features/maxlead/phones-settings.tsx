import { Banner, BlockStack, Box, Button, Card, InlineError, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { PLANS, type Plan } from '../../../shared/permissions/plans';
import { useErrorOf } from '../banners/form-fields';
import { ItemControls } from '../banners/item-controls';
import type { SettingsSectionProps } from '../banners/widget-editor';
import { moveItem } from '../banners/widget-drafts';

/** The contract's cap on hotline numbers. */
export const MAX_PHONES = 10;

export interface PhonesSettingsSectionProps extends SettingsSectionProps<'maxlead'> {
  plan: Plan;
}

/** The hotline numbers the contact widget offers as call buttons, with their labels and order. */
export function PhonesSettingsSection({ settings, onChange, errors, disabled, plan }: PhonesSettingsSectionProps) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const listId = useId();
  const cap = PLANS[plan].maxleadPhones;
  const phones = settings.phones;
  const setPhones = (next: typeof phones) => onChange({ ...settings, phones: next });

  return (
    <Card>
      <BlockStack gap="400">
        <BlockStack gap="100">
          <Text as="h2" variant="headingMd">
            {t('maxlead.phones.title')}
          </Text>
          <Text as="p" tone="subdued">
            {t('maxlead.phones.help')}
          </Text>
        </BlockStack>
        {phones.length > cap ? (
          <Banner tone="warning">
            <BlockStack gap="100">
              <Text as="p" fontWeight="semibold">
                {t('plan.maxPhones', { number: cap })}
              </Text>
              <Text as="p">{t('maxlead.plan.overCap')}</Text>
            </BlockStack>
          </Banner>
        ) : null}
        {phones.length === 0 ? (
          <Text as="p" tone="subdued">
            {t('maxlead.phones.none')}
          </Text>
        ) : null}
        {phones.map((phone, index) => {
          const name = t('maxlead.phones.item', { number: index + 1 });
          return (
            <Box key={index} padding="300" borderWidth="025" borderColor="border" borderRadius="200">
              <div role="group" aria-label={name}>
                <InlineStack gap="300" blockAlign="start" wrap={false}>
                  <div style={{ flex: '1 1 auto', minWidth: 0 }}>
                    <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                      <TextField
                        label={t('maxlead.phones.number')}
                        type="tel"
                        placeholder="0901 234 567"
                        value={phone.number}
                        onChange={(number) => setPhones(phones.map((p, i) => (i === index ? { ...p, number } : p)))}
                        autoComplete="off"
                        disabled={disabled}
                        error={errorOf(`phones.${index}.number`)}
                      />
                      <TextField
                        label={t('maxlead.phones.label')}
                        placeholder={t('maxlead.phones.labelPlaceholder')}
                        value={phone.label}
                        onChange={(label) => setPhones(phones.map((p, i) => (i === index ? { ...p, label } : p)))}
                        autoComplete="off"
                        maxLength={40}
                        disabled={disabled}
                        error={errorOf(`phones.${index}.label`)}
                      />
                    </InlineGrid>
                  </div>
                  <div style={{ paddingTop: 24 }}>
                    <ItemControls
                      name={name}
                      index={index}
                      count={phones.length}
                      disabled={disabled}
                      onMove={(from, to) => setPhones(moveItem(phones, from, to))}
                      onRemove={() => setPhones(phones.filter((_, i) => i !== index))}
                    />
                  </div>
                </InlineStack>
              </div>
            </Box>
          );
        })}
        {errorOf('phones') ? <InlineError message={errorOf('phones') ?? ''} fieldID={listId} /> : null}
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <Button
            icon={PlusIcon}
            disabled={disabled || phones.length >= MAX_PHONES}
            onClick={() => setPhones([...phones, { number: '', label: '' }])}
          >
            {t('maxlead.phones.add')}
          </Button>
          <Text as="span" tone={phones.length > cap ? 'critical' : 'subdued'} variant="bodySm">
            {t('maxlead.plan.phonesUsed', { count: phones.length, number: cap })}
          </Text>
        </InlineStack>
      </BlockStack>
    </Card>
  );
}
