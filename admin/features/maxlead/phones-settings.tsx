import { Box, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { PLANS, type Plan } from '../../../shared/permissions/plans';
import { useErrorOf } from '../banners/form-fields';
import { ItemControls, ItemListFooter } from '../banners/item-controls';
import { SectionCard } from '../../components/section-card';
import type { SettingsSectionProps } from '../banners/widget-editor';
import { moveItem } from '../banners/widget-drafts';
import { OverCapBanner } from './over-cap-banner';

/** The contract's cap on hotline numbers. */
export const MAX_PHONES = 10;

export interface PhonesSettingsSectionProps extends SettingsSectionProps<'maxlead'> {
  plan: Plan;
}

/** The hotline numbers the contact widget offers as call buttons, with their labels and order. */
export function PhonesSettingsSection({ settings, onChange, errors, disabled, plan }: PhonesSettingsSectionProps) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const cap = PLANS[plan].maxleadPhones;
  const phones = settings.phones;
  const setPhones = (next: typeof phones) => onChange({ ...settings, phones: next });

  return (
    <SectionCard title={t('maxlead.phones.title')} help={t('maxlead.phones.help')}>
      {phones.length > cap ? <OverCapBanner title={t('plan.maxPhones', { number: cap })} /> : null}
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
      <ItemListFooter
        error={errorOf('phones')}
        addLabel={t('maxlead.phones.add')}
        onAdd={() => setPhones([...phones, { number: '', label: '' }])}
        addDisabled={disabled || phones.length >= MAX_PHONES}
        count={t('maxlead.plan.phonesUsed', { count: phones.length, number: cap })}
        countTone={phones.length > cap ? 'critical' : 'subdued'}
      />
    </SectionCard>
  );
}
