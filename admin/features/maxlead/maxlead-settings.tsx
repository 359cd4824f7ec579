import { ChoiceList, FormLayout, InlineGrid, Select, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { CONTACT_BUTTON_TYPES, type ContactButton, type ContactButtonType } from '../../../shared/contract';
import { PLANS, type Plan } from '../../../shared/permissions/plans';
import { AppearanceFields } from '../banners/appearance-fields';
import { useErrorOf } from '../banners/form-fields';
import { ItemListCard } from '../banners/item-controls';
import { SectionCard } from '../../components/section-card';
import { setter } from '../banners/settings-fields';
import type { SettingsSectionProps } from '../banners/widget-editor';
import { type PathErrors, type SettingsOf } from '../banners/widget-drafts';
import { BUTTON_TYPES, ButtonTypeBadge, buttonValueProblem } from './button-types';
import { OverCapBanner } from './over-cap-banner';

/** The contract's cap: one button of each type at most. */
export const MAX_BUTTONS = CONTACT_BUTTON_TYPES.length;

/** The first type not used yet, so a new button doesn't duplicate one. */
function nextType(buttons: readonly ContactButton[]): ContactButtonType {
  return CONTACT_BUTTON_TYPES.find((type) => !buttons.some((button) => button.type === type)) ?? 'zalo';
}

/** The editor's checks of the buttons beyond the contract: each value must make a link of its type. */
export function maxleadProblems(settings: SettingsOf<'maxlead'>): PathErrors {
  const errors: PathErrors = {};
  settings.buttons.forEach((button, index) => {
    const problem = buttonValueProblem(button.type, button.value);
    if (problem) errors[`buttons.${index}.value`] = problem;
  });
  return errors;
}

export interface MaxleadSettingsSectionProps extends SettingsSectionProps<'maxlead'> {
  /** The application's plan, for the caps shown ahead of saving. */
  plan: Plan;
}

/**
 * The contact buttons: which channels, in which order, with which values and labels; then the floating
 * button's colour, corner, greeting and the optional phone/email capture.
 */
export function MaxleadSettingsSection({ settings, onChange, errors, disabled, plan }: MaxleadSettingsSectionProps) {
  const { t } = useTranslation();
  const errorOf = useErrorOf(errors);
  const cap = PLANS[plan].maxleadButtons;
  const set = setter(settings, onChange);
  const typeName = (type: ContactButtonType) => t(`maxlead.types.${type}`);

  return (
    <>
      <ItemListCard
        title={t('maxlead.editor.buttons')}
        help={t('maxlead.editor.buttonsHelp')}
        notice={settings.buttons.length > cap ? <OverCapBanner title={t('plan.maxButtons', { number: cap })} /> : null}
        items={settings.buttons}
        onChange={set('buttons')}
        itemName={(button, index) => t('maxlead.editor.buttonName', { number: index + 1, type: typeName(button.type) })}
        itemBadge={(button) => <ButtonTypeBadge type={button.type} />}
        keep={settings.buttons.length <= 1}
        renderItem={(button, index, setButton) => {
          const kind = BUTTON_TYPES[button.type].kind;
          const path = (field: string) => `buttons.${index}.${field}`;
          return (
            <InlineGrid columns={{ xs: 1, sm: 3 }} gap="300">
              <Select
                label={t('maxlead.editor.type')}
                options={CONTACT_BUTTON_TYPES.map((type) => ({ value: type, label: typeName(type) }))}
                value={button.type}
                disabled={disabled}
                onChange={(type) => setButton({ ...button, type: type as ContactButtonType })}
                error={errorOf(path('type'))}
              />
              <TextField
                label={t(`maxlead.values.${kind}`)}
                placeholder={t(`maxlead.values.${kind}Placeholder`)}
                value={button.value}
                onChange={(value) => setButton({ ...button, value })}
                autoComplete="off"
                maxLength={300}
                disabled={disabled}
                error={errorOf(path('value'))}
              />
              <TextField
                label={t('maxlead.editor.label')}
                placeholder={typeName(button.type)}
                value={button.label}
                onChange={(label) => setButton({ ...button, label })}
                autoComplete="off"
                maxLength={40}
                disabled={disabled}
                error={errorOf(path('label'))}
              />
            </InlineGrid>
          );
        }}
        error={errorOf('buttons')}
        addLabel={t('maxlead.editor.addButton')}
        newItem={(buttons) => ({ type: nextType(buttons), value: '', label: '' })}
        max={MAX_BUTTONS}
        count={t('maxlead.plan.buttonsUsed', { count: settings.buttons.length, number: cap })}
        countTone={settings.buttons.length > cap ? 'critical' : 'subdued'}
        disabled={disabled}
      />
      <SectionCard title={t('widgets.sections.look')}>
        <FormLayout>
          <AppearanceFields
            positions={['bottom_left', 'bottom_right'] as const}
            position={settings.position}
            onPosition={set('position')}
            color={settings.color}
            onColor={set('color')}
            colorLabel={t('maxlead.editor.color')}
            errorOf={errorOf}
            disabled={disabled}
          />
          <TextField
            label={t('maxlead.editor.greeting')}
            helpText={t('maxlead.editor.greetingHelp')}
            value={settings.greeting}
            onChange={set('greeting')}
            autoComplete="off"
            multiline={2}
            maxLength={200}
            disabled={disabled}
            error={errorOf('greeting')}
          />
          <ChoiceList
            title={t('maxlead.editor.capture')}
            choices={[
              { value: 'none', label: t('maxlead.capture.none') },
              { value: 'phone', label: t('maxlead.capture.phone'), helpText: t('maxlead.capture.help') },
              { value: 'email', label: t('maxlead.capture.email'), helpText: t('maxlead.capture.help') },
            ]}
            selected={[settings.capture]}
            disabled={disabled}
            onChange={([capture]) => set('capture')(capture as typeof settings.capture)}
          />
        </FormLayout>
      </SectionCard>
    </>
  );
}
