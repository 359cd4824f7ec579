import { BlockStack, Checkbox, ChoiceList, FormLayout, InlineError, InlineGrid, InlineStack, Text, TextField } from '@shopify/polaris';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { CONTACT_FIELDS } from '../../../shared/contract';
import { AppearanceSettingsFields, LookSection, POPUP_POSITIONS } from './appearance-fields';
import { DateTimeField, NumberField, useErrorOf, type ErrorOf } from './form-fields';
import { SectionCard } from '../../components/section-card';
import { setter, TitleTextFields } from './settings-fields';
import type { SettingsSectionProps } from './widget-editor';
import type { PathErrors, SettingsOf } from './widget-drafts';

/** The link a widget opens and the text of its button, side by side (the flash sale and the banner). */
function LinkButtonFields<S extends { link?: string | null; button_text: string }>({
  settings,
  onChange,
  errorOf,
  disabled,
}: {
  settings: S;
  onChange(next: S): void;
  errorOf: ErrorOf;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const set = setter(settings, onChange);
  return (
    <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
      <TextField
        label={t('widgets.fields.link')}
        helpText={t('widgets.fields.linkHelp')}
        type="url"
        value={settings.link ?? ''}
        onChange={set('link')}
        autoComplete="off"
        disabled={disabled}
        error={errorOf('link')}
      />
      <TextField
        label={t('widgets.fields.buttonText')}
        value={settings.button_text}
        onChange={set('button_text')}
        autoComplete="off"
        maxLength={40}
        disabled={disabled}
        error={errorOf('button_text')}
      />
    </InlineGrid>
  );
}

/* ------------------------------------------------------------------ flash sale */

/** The flash sale bar: texts before, during and after, the countdown's mode, a button, its place and colours. */
export function ScheduleSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'schedule'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const set = setter(settings, onChange);
  return (
    <>
      <SectionCard title={t('banners.schedule.title')}>
        <FormLayout>
          <TextField
            label={t('banners.schedule.saleTitle')}
            helpText={t('banners.schedule.saleTitleHelp')}
            value={settings.title}
            onChange={set('title')}
            autoComplete="off"
            maxLength={200}
            disabled={disabled}
            error={errorOf('title')}
          />
          <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
            <TextField
              label={t('banners.schedule.beforeText')}
              helpText={t('banners.schedule.beforeTextHelp')}
              value={settings.before_text}
              onChange={set('before_text')}
              autoComplete="off"
              maxLength={200}
              disabled={disabled}
              error={errorOf('before_text')}
            />
            <TextField
              label={t('banners.schedule.afterText')}
              helpText={t('banners.schedule.afterTextHelp')}
              value={settings.after_text}
              onChange={set('after_text')}
              autoComplete="off"
              maxLength={200}
              disabled={disabled}
              error={errorOf('after_text')}
            />
          </InlineGrid>
          <ChoiceList
            title={t('banners.schedule.mode')}
            choices={[
              { value: 'fixed', label: t('banners.schedule.modes.fixed'), helpText: t('banners.schedule.modes.fixedHelp') },
              { value: 'evergreen', label: t('banners.schedule.modes.evergreen'), helpText: t('banners.schedule.modes.evergreenHelp') },
            ]}
            selected={[settings.mode]}
            disabled={disabled}
            onChange={([mode]) => set('mode')(mode as SettingsOf<'schedule'>['mode'])}
          />
          {settings.mode === 'fixed' ? (
            <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
              <DateTimeField
                label={t('banners.schedule.saleStart')}
                helpText={t('banners.schedule.saleStartHelp')}
                value={settings.sale_start}
                onChange={set('sale_start')}
                disabled={disabled}
                error={errorOf('sale_start')}
              />
              <DateTimeField
                label={t('banners.schedule.saleEnd')}
                value={settings.sale_end}
                onChange={set('sale_end')}
                disabled={disabled}
                error={errorOf('sale_end')}
              />
            </InlineGrid>
          ) : (
            <NumberField
              label={t('banners.schedule.evergreenMinutes')}
              helpText={t('banners.schedule.evergreenMinutesHelp')}
              value={settings.evergreen_minutes}
              min={1}
              max={60 * 24 * 30}
              suffix={t('widgets.units.minutes')}
              onChange={(value) => set('evergreen_minutes')(value ?? Number.NaN)}
              disabled={disabled}
              error={errorOf('evergreen_minutes')}
            />
          )}
        </FormLayout>
      </SectionCard>
      <SectionCard title={t('widgets.sections.buttonAndLook')}>
        <FormLayout>
          <LinkButtonFields settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
          <AppearanceSettingsFields
            settings={settings}
            onChange={onChange}
            positions={['top', 'bottom'] as const}
            errorOf={errorOf}
            disabled={disabled}
          />
          <Checkbox
            label={t('banners.schedule.sticky')}
            helpText={t('banners.schedule.stickyHelp')}
            checked={settings.sticky}
            onChange={set('sticky')}
            disabled={disabled}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}

/** A sale with fixed dates counts down to its end: it needs one, after its start. */
export function scheduleProblems(settings: SettingsOf<'schedule'>): PathErrors {
  if (settings.mode !== 'fixed') return {};
  if (!settings.sale_end) return { sale_end: 'banners.schedule.saleEndRequired' };
  if (settings.sale_start && Date.parse(settings.sale_end) <= Date.parse(settings.sale_start)) {
    return { sale_end: 'widgets.rules.endBeforeStart' };
  }
  return {};
}

/* ------------------------------------------------------------------ banner */

/** An image or text banner with a link. */
export function BannerSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'banner'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const set = setter(settings, onChange);
  return (
    <>
      <SectionCard title={t('banners.banner.title')}>
        <FormLayout>
          <TitleTextFields settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} textLines={3} countText />
          <TextField
            label={t('widgets.fields.imageUrl')}
            helpText={t('widgets.fields.imageUrlHelp')}
            type="url"
            value={settings.image_url ?? ''}
            onChange={set('image_url')}
            autoComplete="off"
            disabled={disabled}
            error={errorOf('image_url')}
          />
          <LinkButtonFields settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
        </FormLayout>
      </SectionCard>
      <SectionCard title={t('widgets.sections.look')}>
        <FormLayout>
          <AppearanceSettingsFields
            settings={settings}
            onChange={onChange}
            positions={['top', 'bottom', 'center', 'bottom_left', 'bottom_right'] as const}
            errorOf={errorOf}
            disabled={disabled}
          />
          <Checkbox
            label={t('banners.banner.closable')}
            checked={settings.closable}
            onChange={set('closable')}
            disabled={disabled}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}

/** A banner with neither a heading, a text nor an image shows an empty box. */
export function bannerProblems(settings: SettingsOf<'banner'>): PathErrors {
  if (!settings.title.trim() && !settings.text.trim() && !(settings.image_url ?? '').trim()) {
    return { title: 'banners.banner.empty' };
  }
  return {};
}

/* ------------------------------------------------------------------ contact form */

type ContactField = (typeof CONTACT_FIELDS)[number];

/** The contact form: its texts, which fields it asks for and which of them must be filled. */
export function ContactSettingsSection({ settings, onChange, errors, disabled }: SettingsSectionProps<'contact'>) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const set = setter(settings, onChange);
  const fieldsId = useId();

  function toggleField(field: ContactField, on: boolean) {
    const fields = CONTACT_FIELDS.filter((f) => (f === field ? on : settings.fields.includes(f)));
    // A field that is not asked for can't be required.
    const required = settings.required.filter((f) => fields.includes(f));
    onChange({ ...settings, fields, required });
  }

  function toggleRequired(field: ContactField, on: boolean) {
    onChange({ ...settings, required: CONTACT_FIELDS.filter((f) => (f === field ? on : settings.required.includes(f))) });
  }

  return (
    <>
      <SectionCard title={t('banners.contact.title')}>
        <FormLayout>
          <TitleTextFields settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
          <fieldset style={{ border: 0, margin: 0, padding: 0 }}>
            <legend>
              <Text as="span" variant="bodyMd">
                {t('banners.contact.fields')}
              </Text>
            </legend>
            <BlockStack gap="200">
              {CONTACT_FIELDS.map((field) => (
                <InlineStack key={field} gap="600" blockAlign="center">
                  <div style={{ minWidth: 140 }}>
                    <Checkbox
                      label={t(`banners.contact.field.${field}`)}
                      checked={settings.fields.includes(field)}
                      onChange={(on) => toggleField(field, on)}
                      disabled={disabled}
                    />
                  </div>
                  <Checkbox
                    label={t('banners.contact.requiredField', { field: t(`banners.contact.field.${field}`) })}
                    checked={settings.required.includes(field)}
                    onChange={(on) => toggleRequired(field, on)}
                    disabled={disabled || !settings.fields.includes(field)}
                  />
                </InlineStack>
              ))}
              {errorOf('fields') ? <InlineError message={errorOf('fields') ?? ''} fieldID={fieldsId} /> : null}
              {errorOf('required') ? <InlineError message={errorOf('required') ?? ''} fieldID={fieldsId} /> : null}
            </BlockStack>
          </fieldset>
          <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
            <TextField
              label={t('banners.contact.submitText')}
              placeholder={t('banners.contact.submitPlaceholder')}
              value={settings.submit_text}
              onChange={set('submit_text')}
              autoComplete="off"
              maxLength={40}
              disabled={disabled}
              error={errorOf('submit_text')}
            />
            <TextField
              label={t('banners.contact.successText')}
              placeholder={t('banners.contact.successPlaceholder')}
              value={settings.success_text}
              onChange={set('success_text')}
              autoComplete="off"
              maxLength={200}
              disabled={disabled}
              error={errorOf('success_text')}
            />
          </InlineGrid>
        </FormLayout>
      </SectionCard>
      <LookSection settings={settings} onChange={onChange} positions={POPUP_POSITIONS} errorOf={errorOf} disabled={disabled} />
    </>
  );
}

/** A form that collects neither an email nor a phone number leaves no way to answer the visitor. */
export function contactProblems(settings: SettingsOf<'contact'>): PathErrors {
  if (settings.fields.length > 0 && !settings.fields.includes('email') && !settings.fields.includes('phone')) {
    return { fields: 'banners.contact.needsReach' };
  }
  return {};
}
