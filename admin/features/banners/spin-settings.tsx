import { BlockStack, Box, Button, Checkbox, FormLayout, InlineGrid, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { DeleteIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import type { SpinSlice } from '../../../shared/contract';
import { formatPercent } from '../../../shared/format';
import { LookSection, POPUP_POSITIONS } from './appearance-fields';
import { ColorField, NumberField, useErrorOf } from './form-fields';
import { ItemListFooter } from './item-controls';
import { SectionCard } from '../../components/section-card';
import { setter, TitleTextFields } from './settings-fields';
import type { SettingsSectionProps } from './widget-editor';
import { newSliceId } from './widget-drafts';
import { useLanguage } from '../../app/i18n';

/** The contract's bounds on a wheel. */
export const MIN_SLICES = 2;
export const MAX_SLICES = 12;

/** Colours new slices take in turn: distinct neighbours on the wheel. */
const SLICE_COLORS = ['#008060', '#2c6ecb', '#ffc453', '#d72c0d', '#8051ff', '#e4e5e7'];

/**
 * Each slice's chance of coming up, in percent: its weight over the sum of the weights. A weight that is not
 * a positive number counts as 0; when every weight is 0 no slice can come up and every chance is null.
 */
export function sliceChances(slices: ReadonlyArray<Pick<SpinSlice, 'weight'>>): Array<number | null> {
  const weights = slices.map((slice) => (Number.isFinite(slice.weight) && slice.weight > 0 ? slice.weight : 0));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => (total > 0 ? (weight / total) * 100 : null));
}

/** The spin wheel: its texts, the contact it asks for, and its slices with their odds, stocks and codes. */
export function SpinSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'spin'>) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const errorOf = useErrorOf(errors);
  const chances = sliceChances(settings.slices);
  const set = setter(settings, onChange);

  function setSlice(index: number, slice: SpinSlice) {
    onChange({ ...settings, slices: settings.slices.map((current, i) => (i === index ? slice : current)) });
  }

  function addSlice() {
    const taken = settings.slices.map((slice) => slice.id);
    const color = SLICE_COLORS[settings.slices.length % SLICE_COLORS.length];
    const slice: SpinSlice = { id: newSliceId(taken), label: '', color, weight: 1, lose: false, stock: null, code_prefix: '' };
    onChange({ ...settings, slices: [...settings.slices, slice] });
  }

  return (
    <>
      <SectionCard title={t('banners.spin.title')}>
        <FormLayout>
          <TitleTextFields settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
          <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
            <Select
              label={t('banners.spin.gate')}
              helpText={t('banners.spin.gateHelp')}
              options={[
                { value: 'email', label: t('banners.spin.gates.email') },
                { value: 'phone', label: t('banners.spin.gates.phone') },
              ]}
              value={settings.gate}
              disabled={disabled}
              onChange={(gate) => set('gate')(gate as typeof settings.gate)}
            />
            <TextField
              label={t('widgets.fields.buttonText')}
              placeholder={t('banners.spin.buttonPlaceholder')}
              value={settings.button_text}
              onChange={set('button_text')}
              autoComplete="off"
              maxLength={40}
              disabled={disabled}
              error={errorOf('button_text')}
            />
          </InlineGrid>
        </FormLayout>
      </SectionCard>

      <SectionCard title={t('banners.spin.slices')} help={t('banners.spin.slicesHelp')}>
        {settings.slices.map((slice, index) => {
          const chance = chances[index];
          const path = (field: string) => `slices.${index}.${field}`;
          return (
            <Box key={slice.id} padding="300" borderWidth="025" borderColor="border" borderRadius="200">
              <div role="group" aria-label={t('banners.spin.slice', { number: index + 1 })}>
                <BlockStack gap="300">
                  <InlineStack align="space-between" blockAlign="center">
                    <InlineStack gap="200" blockAlign="center">
                      <span
                        aria-hidden="true"
                        style={{ width: 14, height: 14, borderRadius: 7, background: slice.color, border: '1px solid var(--p-color-border)' }}
                      />
                      <Text as="span" variant="headingSm">
                        {t('banners.spin.slice', { number: index + 1 })}
                      </Text>
                    </InlineStack>
                    <InlineStack gap="300" blockAlign="center">
                      <Text as="span" tone={chance === null ? 'critical' : 'subdued'} fontWeight="semibold">
                        <span data-testid={`slice-chance-${index}`}>
                          {chance === null ? t('banners.spin.noChance') : t('banners.spin.chance', { percent: formatPercent(chance, lang) })}
                        </span>
                      </Text>
                      <Button
                        icon={DeleteIcon}
                        variant="tertiary"
                        tone="critical"
                        disabled={disabled || settings.slices.length <= MIN_SLICES}
                        accessibilityLabel={t('banners.spin.removeSlice', { number: index + 1 })}
                        onClick={() => onChange({ ...settings, slices: settings.slices.filter((_, i) => i !== index) })}
                      />
                    </InlineStack>
                  </InlineStack>
                  <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                    <TextField
                      label={t('banners.spin.label')}
                      value={slice.label}
                      onChange={(label) => setSlice(index, { ...slice, label })}
                      autoComplete="off"
                      maxLength={40}
                      disabled={disabled}
                      error={errorOf(path('label'))}
                    />
                    <ColorField
                      label={t('banners.spin.color')}
                      value={slice.color}
                      onChange={(color) => setSlice(index, { ...slice, color })}
                      disabled={disabled}
                      error={errorOf(path('color'))}
                    />
                  </InlineGrid>
                  <InlineGrid columns={{ xs: 1, sm: 3 }} gap="300">
                    <NumberField
                      label={t('banners.spin.weight')}
                      helpText={t('banners.spin.weightHelp')}
                      value={slice.weight}
                      min={0}
                      step={1}
                      onChange={(weight) => setSlice(index, { ...slice, weight: weight ?? Number.NaN })}
                      disabled={disabled}
                      error={errorOf(path('weight'))}
                    />
                    <NumberField
                      label={t('banners.spin.stock')}
                      helpText={t('banners.spin.stockHelp')}
                      emptyMeans={t('banners.spin.unlimited')}
                      value={slice.stock}
                      min={0}
                      step={1}
                      onChange={(stock) => setSlice(index, { ...slice, stock })}
                      disabled={disabled || slice.lose}
                      error={errorOf(path('stock'))}
                    />
                    <TextField
                      label={t('banners.spin.codePrefix')}
                      helpText={t('banners.spin.codePrefixHelp')}
                      value={slice.code_prefix}
                      onChange={(prefix) => setSlice(index, { ...slice, code_prefix: prefix.toUpperCase() })}
                      autoComplete="off"
                      maxLength={12}
                      monospaced
                      disabled={disabled || slice.lose}
                      error={errorOf(path('code_prefix'))}
                    />
                  </InlineGrid>
                  <Checkbox
                    label={t('banners.spin.lose')}
                    helpText={t('banners.spin.loseHelp')}
                    checked={slice.lose}
                    onChange={(lose) => setSlice(index, { ...slice, lose, ...(lose ? { code_prefix: '', stock: null } : {}) })}
                    disabled={disabled}
                  />
                </BlockStack>
              </div>
            </Box>
          );
        })}
        <ItemListFooter
          error={errorOf('slices')}
          addLabel={t('banners.spin.addSlice')}
          onAdd={addSlice}
          addDisabled={disabled || settings.slices.length >= MAX_SLICES}
          count={t('banners.spin.sliceCount', { count: settings.slices.length, min: MIN_SLICES, max: MAX_SLICES })}
        />
      </SectionCard>

      <LookSection settings={settings} onChange={onChange} positions={POPUP_POSITIONS} errorOf={errorOf} disabled={disabled} />
    </>
  );
}
